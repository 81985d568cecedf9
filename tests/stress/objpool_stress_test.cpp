// SPDX-License-Identifier: GPL-2.0-only
// objpool on real threads, one thread per virtual CPU, for every variant that must be correct.
// Objects move between CPUs the way kretprobes move them (pop on one CPU, push on another),
// signal-delivered IRQs and NMIs pop and push on the interrupted CPU, and the pool is checked
// exactly at quiescence: every object is in the pool or held, once, and nothing else is.
// Meant for ThreadSanitizer and ASan/UBSan builds too; each test runs for a fixed time
// (KVERIFY_STRESS_MS, default 250 ms) so a slow sanitizer build only does fewer rounds.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <new>
#include <string>
#include <thread>
#include <vector>

#include "impl/objpool.hpp"
#include "impl/real_env.hpp"
#include "tests/common/gtest_variants.hpp"
#include "tests/common/xorshift.hpp"

namespace kverify {
namespace {

using E = real_env;
using clock_type = std::chrono::steady_clock;

std::chrono::milliseconds run_time() {
    const char* s = std::getenv("KVERIFY_STRESS_MS");
    return std::chrono::milliseconds(s != nullptr ? std::atoi(s) : 250);
}

// Runs for run_time(), then on until enough() says the test did enough work to prove anything
// (a loaded machine gives the threads little time), but at most 3 s longer.
template <class F>
void run_until(F enough) {
    const auto soft = clock_type::now() + run_time();
    const auto hard = soft + std::chrono::seconds(3);
    for (;;) {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
        const auto now = clock_type::now();
        if ((now >= soft && enough()) || now >= hard) return;
    }
}

// Aborts the process (with a message) if a test hangs, e.g. a pop spinning on a broken slot.
class watchdog {
public:
    explicit watchdog(const char* what, std::chrono::seconds limit = std::chrono::seconds(20))
        : t_([this, what, limit] {
              std::unique_lock<std::mutex> l(m_);
              if (!cv_.wait_for(l, limit, [this] { return done_; })) {
                  std::fprintf(stderr, "objpool stress: '%s' hung for %llds: aborting\n", what,
                               static_cast<long long>(limit.count()));
                  std::abort();
              }
          }) {}
    ~watchdog() {
        {
            std::lock_guard<std::mutex> g(m_);
            done_ = true;
        }
        cv_.notify_one();
        t_.join();
    }

private:
    std::mutex m_;
    std::condition_variable cv_;
    bool done_ = false;
    std::thread t_;
};

// Sets the possible mask for one test and restores the default afterwards.
class machine_scope {
public:
    explicit machine_scope(cpumask possible) { E::configure(possible); }
    ~machine_scope() { E::configure(cpumask::first_n(4)); }
};

// What lives in each pool object (built by objinit). The owner flag is changed with relaxed
// exchanges so that it adds no happens-before edge of its own: the pool must provide them.
struct item {
    std::atomic<int> owner;        // 1 while held outside the pool, 0 while in it
    std::atomic<std::uint64_t> a;  // checksum payload (b == ~a ^ id), relaxed atomics:
    std::atomic<std::uint64_t> b;  // checks the value, invisible to ThreadSanitizer
    std::uint64_t plain_a;         // the same as plain memory: ThreadSanitizer checks that
    std::uint64_t plain_b;         // the pool orders the hand-over
    std::uint32_t id;
};

// The pool's context: objinit numbers the objects, release finds the test's data in `user`.
struct pool_context {
    std::uint32_t next_id = 0;
    void* user = nullptr;
};

int init_item(void* obj, void* context) {
    auto* ctx = static_cast<pool_context*>(context);
    item* it = ::new (obj) item();
    it->id = ctx->next_id++;
    it->a.store(0, std::memory_order_relaxed);
    it->b.store(~std::uint64_t{0} ^ it->id, std::memory_order_relaxed);
    it->plain_a = 0;
    it->plain_b = ~std::uint64_t{0} ^ it->id;
    return 0;
}

// Nesting depth of push on this thread (task or interrupt): with the kernel's commit an NMI must
// not push while a push on its CPU is between reservation and commit (see the finding in
// tests/unit/objpool_nesting_test.cpp); with fix-nested-push it may, and does.
int& push_depth() {
    static thread_local int depth = 0;
    return depth;
}

template <class V>
class rig {
public:
    using pool_t = objpool<E, V>;
    static constexpr unsigned stash_cells = 16;

    rig(cpumask cpus, int nr_objs) : cpus_(cpus), nr_objs_(nr_objs) {
        for (unsigned c = cpus.next(-1); c < cpumask::max_cpus; c = cpus.next(int(c)))
            cpu_list_.push_back(c);
        init_rc_ = pool_.init(nr_objs, sizeof(item), init_item, &context_, nullptr);
    }

    int init_rc() const { return init_rc_; }
    pool_t& pool() { return pool_; }
    const std::vector<unsigned>& cpu_list() const { return cpu_list_; }

    // ----- ownership protocol, usable from signal handlers (no locks, no allocation) -----

    // After a successful pop: the object must be ours alone and carry a consistent payload.
    item* take(void* p) {
        if (!pool_.is_pool_object(p)) {
            foreign_.fetch_add(1, std::memory_order_relaxed);
            return nullptr;
        }
        item* it = static_cast<item*>(p);
        if (it->owner.exchange(1, std::memory_order_relaxed) != 0)
            duplicates_.fetch_add(1, std::memory_order_relaxed);
        check_payload(it);
        return it;
    }
    void check_payload(const item* it) {
        const std::uint64_t a = it->a.load(std::memory_order_relaxed);
        const std::uint64_t b = it->b.load(std::memory_order_relaxed);
        if (b != (~a ^ it->id)) torn_.fetch_add(1, std::memory_order_relaxed);
    }
    void check_plain_payload(const item* it) {
        if (it->plain_b != (~it->plain_a ^ it->id)) torn_.fetch_add(1, std::memory_order_relaxed);
    }
    static void write_payload(item* it, std::uint64_t v) {
        it->a.store(v, std::memory_order_relaxed);
        it->b.store(~v ^ it->id, std::memory_order_relaxed);
    }
    static void write_plain_payload(item* it, std::uint64_t v) {
        it->plain_a = v;
        it->plain_b = ~v ^ it->id;
    }
    // Before push: we must still own it; the flag drops first, the push publishes.
    void give(item* it) {
        if (it->owner.exchange(0, std::memory_order_relaxed) != 1)
            bad_give_.fetch_add(1, std::memory_order_relaxed);
        int& depth = push_depth();
        ++depth;
        std::atomic_signal_fence(std::memory_order_seq_cst);
        pool_.push(it);
        std::atomic_signal_fence(std::memory_order_seq_cst);
        --depth;
    }

    // ----- mailboxes: the hand-over to another CPU (task context only) -----
    // Bounded, so that a descheduled CPU does not collect every object and empty the pool.
    static constexpr std::size_t mailbox_limit = 4;
    bool send(unsigned cpu, item* it) {
        std::lock_guard<std::mutex> g(box_[cpu].m);
        if (box_[cpu].items.size() >= mailbox_limit) return false;
        box_[cpu].items.push_back(it);
        return true;
    }
    void receive(unsigned cpu, std::vector<item*>& out) {
        std::lock_guard<std::mutex> g(box_[cpu].m);
        out.swap(box_[cpu].items);
    }

    // ----- the NMI stash: objects an NMI popped while a push on its CPU was in flight -----
    bool park(unsigned cpu, item* it) {
        for (auto& cell : stash_[cpu].cells) {
            if (cell.load(std::memory_order_relaxed) == nullptr) {
                cell.store(it, std::memory_order_relaxed);
                return true;
            }
        }
        return false;
    }
    bool stash_has_room(unsigned cpu) const {
        for (const auto& cell : stash_[cpu].cells)
            if (cell.load(std::memory_order_relaxed) == nullptr) return true;
        return false;
    }
    void drain_stash(unsigned cpu) {
        for (auto& cell : stash_[cpu].cells)
            if (item* it = cell.exchange(nullptr, std::memory_order_relaxed)) give(it);
    }

    // ----- interrupts: a kretprobe in IRQ or NMI context pops, works, pushes back -----
    static void on_irq(unsigned cpu, void* arg) { static_cast<rig*>(arg)->interrupt(cpu, false); }
    static void on_nmi(unsigned cpu, void* arg) { static_cast<rig*>(arg)->interrupt(cpu, true); }
    void interrupt(unsigned cpu, bool nmi) {
        if (!interrupts_live_.load(std::memory_order_acquire)) return;
        // The kernel's commit cannot take an NMI push inside a push (F2): the NMI keeps the
        // object until its CPU's task gets back. fix-nested-push can: the NMI pushes.
        const bool nested = nmi && push_depth() > 0;
        const bool must_park = nested && !nmi_may_push_inside_push;
        if (must_park && !stash_has_room(cpu)) return;
        void* p = pool_.pop();
        if (p == nullptr) return;
        item* it = take(p);
        if (it == nullptr) return;
        write_payload(it, (std::uint64_t{cpu} << 48) ^ reinterpret_cast<std::uintptr_t>(&p));
        (nmi ? nmi_ops_ : irq_ops_).fetch_add(1, std::memory_order_relaxed);
        if (must_park) {
            if (it->owner.load(std::memory_order_relaxed) != 1)
                bad_give_.fetch_add(1, std::memory_order_relaxed);
            park(cpu, it);
            nmi_parked_.fetch_add(1, std::memory_order_relaxed);
            return;
        }
        if (nested) nmi_nested_pushes_.fetch_add(1, std::memory_order_relaxed);
        give(it);
    }
    void start_interrupts() {
        for (unsigned c : cpu_list_) {
            E::set_irq_handler(c, on_irq, this);
            E::set_nmi_handler(c, on_nmi, this);
        }
        interrupts_live_.store(true, std::memory_order_release);
    }
    void stop_interrupts() {
        interrupts_live_.store(false, std::memory_order_release);
        for (unsigned c : cpu_list_) {
            E::set_irq_handler(c, nullptr, nullptr);
            E::set_nmi_handler(c, nullptr, nullptr);
        }
    }

    // ----- quiescence: everything back, then count exactly -----
    void check_quiescent_and_fini() {
        E::cpu_scope cpu(cpu_list_.front());
        // Held objects (mailboxes, NMI stashes) go back first.
        std::vector<item*> held;
        for (unsigned c : cpu_list_) {
            receive(c, held);
            for (item* it : held) give(it);
            held.clear();
            drain_stash(c);
        }
        std::vector<int> seen(static_cast<std::size_t>(nr_objs_), 0);
        std::vector<item*> all;
        while (void* p = pool_.pop()) {
            item* it = take(p);
            ASSERT_NE(it, nullptr) << "pop returned something that is not a pool object";
            ASSERT_LT(it->id, static_cast<std::uint32_t>(nr_objs_));
            EXPECT_EQ(seen[it->id]++, 0) << "object " << it->id << " was in the pool twice";
            all.push_back(it);
            ASSERT_LE(all.size(), static_cast<std::size_t>(nr_objs_)) << "pop never ends";
        }
        EXPECT_EQ(all.size(), static_cast<std::size_t>(nr_objs_)) << "objects were lost";
        for (unsigned c : cpu_list_) {
            const auto s = pool_.slot_state(c);
            EXPECT_EQ(s.head, s.last) << "cpu " << c << ": pop returned null on a non-empty slot";
            EXPECT_EQ(s.last, s.tail) << "cpu " << c << ": uncommitted reservation";
        }
        EXPECT_EQ(duplicates_.load(), 0) << "an object was handed out while already held";
        EXPECT_EQ(foreign_.load(), 0) << "pop returned a pointer that is no pool object";
        EXPECT_EQ(torn_.load(), 0) << "a popper saw an inconsistent payload";
        EXPECT_EQ(bad_give_.load(), 0) << "an object was pushed by a party that did not own it";
        for (item* it : all) give(it);
        EXPECT_EQ(pool_.fini(), 0);
        EXPECT_FALSE(pool_.allocated()) << "fini with every object back must free the pool";
    }

    long irq_ops() const { return irq_ops_.load(); }
    long nmi_ops() const { return nmi_ops_.load(); }
    long nmi_parked() const { return nmi_parked_.load(); }
    long nmi_nested_pushes() const { return nmi_nested_pushes_.load(); }
    static constexpr bool nmi_may_push_inside_push = V::push_commit == objpool_commit::outermost;

private:
    struct alignas(64) mailbox {
        std::mutex m;
        std::vector<item*> items;
    };
    struct alignas(64) stash {
        std::atomic<item*> cells[stash_cells]{};
    };

    cpumask cpus_;
    int nr_objs_;
    int init_rc_ = 0;
    pool_context context_;
    std::vector<unsigned> cpu_list_;
    pool_t pool_;
    mailbox box_[cpumask::max_cpus];
    stash stash_[cpumask::max_cpus];
    std::atomic<bool> interrupts_live_{false};
    std::atomic<long> duplicates_{0}, foreign_{0}, torn_{0}, bad_give_{0};
    std::atomic<long> irq_ops_{0}, nmi_ops_{0}, nmi_parked_{0}, nmi_nested_pushes_{0};
};

// Sends random IRQs and NMIs to the worker CPUs until stopped.
class injector {
public:
    explicit injector(std::vector<unsigned> cpus)
        : t_([this, cpus] {
              xorshift rng{0x2545f4914f6cdd1dull};
              while (!stop_.load(std::memory_order_relaxed)) {
                  const unsigned cpu = cpus[rng.next() % cpus.size()];
                  if (rng.next() % 4 != 0)
                      E::raise_irq(cpu);
                  else
                      E::raise_nmi(cpu);
                  std::this_thread::sleep_for(std::chrono::microseconds(5 + rng.next() % 40));
              }
          }) {}
    ~injector() { stop(); }
    void stop() {
        stop_.store(true, std::memory_order_relaxed);
        if (t_.joinable()) t_.join();
    }

private:
    std::atomic<bool> stop_{false};
    std::thread t_;
};

template <class V>
class ObjpoolStress : public ::testing::Test {
protected:
    void SetUp() override {
        E::reset_stats();
        E::fail_kmalloc_after(-1);
    }
    void TearDown() override {
        EXPECT_EQ(E::stats().warnings, 0u) << "objpool warned (tail - head > nr_objs?)";
        E::configure(cpumask::first_n(4));
    }

    // One worker per CPU: takes what other CPUs handed to it and pushes it here (the function
    // return on another CPU), then pops a few objects and hands each to a random CPU, itself
    // included (or pushes it back here if that CPU's mailbox is full). Counts its rounds.
    static void work(rig<V>& r, unsigned cpu, const std::atomic<bool>& stop,
                     std::atomic<long>& rounds, std::uint64_t seed) {
        E::cpu_scope scope(cpu);
        xorshift rng{seed};
        std::vector<item*> in;
        in.reserve(64);
        const auto& cpus = r.cpu_list();
        while (!stop.load(std::memory_order_relaxed)) {
            r.receive(cpu, in);
            for (item* it : in) {
                r.check_payload(it);  // written by the sender, handed over by the mailbox
                rig<V>::write_payload(it, rng.next());
                r.give(it);
            }
            in.clear();
            const unsigned burst = 1 + static_cast<unsigned>(rng.next() % 4);
            for (unsigned i = 0; i < burst; i++) {
                void* p = r.pool().pop();
                if (p == nullptr) break;
                item* it = r.take(p);
                if (it == nullptr) break;
                rig<V>::write_payload(it, rng.next());
                if (!r.send(cpus[rng.next() % cpus.size()], it)) r.give(it);
            }
            r.drain_stash(cpu);
            rounds.fetch_add(1, std::memory_order_relaxed);
        }
        r.drain_stash(cpu);
    }

    // Runs one worker per CPU until enough(rounds) (see run_until); returns the rounds done.
    template <class F>
    static long run_workers(rig<V>& r, F enough) {
        std::atomic<bool> stop{false};
        std::atomic<long> rounds{0};
        std::vector<std::thread> threads;
        for (std::size_t i = 0; i < r.cpu_list().size(); i++)
            threads.emplace_back([&, i] {
                work(r, r.cpu_list()[i], stop, rounds, 0x9e3779b97f4a7c15ull * (i + 1));
            });
        run_until([&] { return enough(rounds.load()); });
        stop.store(true);
        for (auto& t : threads) t.join();
        return rounds.load();
    }
};
TYPED_TEST_SUITE(ObjpoolStress, gtest_types<objpool_good_variants>, variant_names);

TYPED_TEST(ObjpoolStress, ObjectsMigrateBetweenCpusAndAreConserved) {
    watchdog w("ObjectsMigrateBetweenCpusAndAreConserved");
    machine_scope m(cpumask::first_n(4));
    rig<TypeParam> r(cpumask::first_n(4), 16);
    ASSERT_EQ(r.init_rc(), 0);
    const long rounds = this->run_workers(r, [](long n) { return n >= 1000; });
    EXPECT_GE(rounds, 1000) << "the workers barely ran: the test proves nothing";
    r.check_quiescent_and_fini();
}

TYPED_TEST(ObjpoolStress, InterruptsPopAndPushOnTheInterruptedCpu) {
    watchdog w("InterruptsPopAndPushOnTheInterruptedCpu");
    const cpumask cpus(0b1101);  // holes in the possible mask
    machine_scope m(cpus);
    rig<TypeParam> r(cpus, 16);
    ASSERT_EQ(r.init_rc(), 0);
    r.start_interrupts();
    long rounds;
    {
        injector inj(r.cpu_list());
        rounds = this->run_workers(
            r, [&](long n) { return n >= 1000 && r.irq_ops() >= 50 && r.nmi_ops() >= 20; });
        inj.stop();
    }
    r.stop_interrupts();
    EXPECT_GE(rounds, 1000);
    EXPECT_GE(r.irq_ops(), 50) << "few IRQ handlers got an object: interrupts barely exercised";
    EXPECT_GE(r.nmi_ops(), 20) << "few NMI handlers got an object: NMIs barely exercised";
    const auto st = E::stats();
    this->RecordProperty("irq_ops", std::to_string(r.irq_ops()));
    this->RecordProperty("nmi_ops", std::to_string(r.nmi_ops()));
    this->RecordProperty("irqs_run", std::to_string(st.irqs_run));
    this->RecordProperty("irqs_deferred", std::to_string(st.irqs_deferred));
    this->RecordProperty("nmis_run", std::to_string(st.nmis_run));
    this->RecordProperty("nmi_parked", std::to_string(r.nmi_parked()));
    this->RecordProperty("nmi_nested_pushes", std::to_string(r.nmi_nested_pushes()));
    if (rig<TypeParam>::nmi_may_push_inside_push)
        std::printf("[ %s ] %ld NMI pushes landed inside a push on their CPU; pool conserved\n",
                    TypeParam::name, r.nmi_nested_pushes());
    else
        EXPECT_EQ(r.nmi_nested_pushes(), 0) << "an NMI pushed inside a push with the kernel commit";
    r.check_quiescent_and_fini();
}

bool sanitizing_threads() {
#ifdef KVERIFY_TSAN
    return true;
#else
    return false;
#endif
}

// What the holder wrote into the object before push, the next holder reads after pop, as plain
// memory: under ThreadSanitizer this checks that the pool itself orders the hand-over. In the
// kernel versions pop reads `last` with READ_ONCE, which in C11 acquires nothing, so there is no
// happens-before edge from push to pop and ThreadSanitizer reports the race (a finding, see
// objpool_fix_acquire_last). Those variants are skipped under ThreadSanitizer unless
// KVERIFY_OBJPOOL_FINDINGS=1; everywhere else the payload values are checked.
TYPED_TEST(ObjpoolStress, PayloadHandoverThroughThePoolIsOrdered) {
    if (sanitizing_threads() && !TypeParam::pop_last_acquire &&
        std::getenv("KVERIFY_OBJPOOL_FINDINGS") == nullptr)
        GTEST_SKIP() << "known finding: no happens-before from push to pop in C11 "
                        "(set KVERIFY_OBJPOOL_FINDINGS=1 to see ThreadSanitizer report it)";
    watchdog w("PayloadHandoverThroughThePoolIsOrdered");
    const cpumask cpus = cpumask::first_n(3);
    machine_scope m(cpus);
    rig<TypeParam> r(cpus, 2);  // fewer objects than CPUs: most pops take another CPU's push
    ASSERT_EQ(r.init_rc(), 0);
    std::atomic<bool> stop{false};
    std::atomic<long> handovers{0};
    std::vector<std::thread> threads;
    for (unsigned c : r.cpu_list()) {
        threads.emplace_back([&, c] {
            E::cpu_scope scope(c);
            xorshift rng{0x1234567ull * (c + 1)};
            while (!stop.load(std::memory_order_relaxed)) {
                void* p = r.pool().pop();
                if (p == nullptr) continue;
                item* it = r.take(p);
                if (it == nullptr) break;
                r.check_plain_payload(it);  // written by the previous holder, maybe elsewhere
                rig<TypeParam>::write_plain_payload(it, rng.next());
                r.give(it);
                handovers.fetch_add(1, std::memory_order_relaxed);
                // Leave the object to the others for a moment: otherwise this CPU mostly pops
                // its own push back, and its own release of `head` orders the hand-over.
                for (int spin = 0; spin < 200; spin++) E::cpu_relax();
            }
        });
    }
    run_until([&] { return handovers.load(std::memory_order_relaxed) >= 1000; });
    stop.store(true);
    for (auto& t : threads) t.join();
    EXPECT_GE(handovers.load(), 1000);
    r.check_quiescent_and_fini();
}

// The kretprobe unregister pattern: objects are held while fini runs; the pool is freed by
// whichever reference goes last (fini or one of the concurrent drops), exactly once, and the
// release callback sees every dropper's writes (refcount release/acquire ordering).
template <class Pool>
struct drop_round {
    static constexpr unsigned max_workers = 4;
    std::uint64_t dropped_by[max_workers] = {};  // plain: written before each drop
    std::atomic<int> releases{0};
    std::uint64_t seen_at_release = 0;  // plain: written by the release callback
    std::atomic<int> zero_returns{0};

    static int on_release(Pool*, void* context) {
        auto* d = static_cast<drop_round*>(static_cast<pool_context*>(context)->user);
        std::uint64_t sum = 0;
        for (std::uint64_t n : d->dropped_by) sum += n;
        d->seen_at_release = sum;
        d->releases.fetch_add(1, std::memory_order_relaxed);
        return 0;
    }
};

TYPED_TEST(ObjpoolStress, LastReferenceFreesExactlyOnceWhileDropsRaceFini) {
    watchdog w("LastReferenceFreesExactlyOnceWhileDropsRaceFini");
    using pool_t = objpool<E, TypeParam>;
    const cpumask cpus = cpumask::first_n(4);
    machine_scope m(cpus);
    const unsigned workers = 3;  // CPUs 0..2; the finishing thread is CPU 3
    const auto soft = clock_type::now() + run_time();
    const auto hard = soft + std::chrono::seconds(3);
    int rounds = 0, freed_by_drop = 0;
    do {
        drop_round<pool_t> d;
        pool_t pool;
        pool_context ctx;
        ctx.user = &d;
        ASSERT_EQ(pool.init(12, sizeof(item), init_item, &ctx, drop_round<pool_t>::on_release), 0);
        std::atomic<unsigned> holding{0};
        std::atomic<bool> go_drop{false};
        std::vector<std::thread> threads;
        for (unsigned k = 0; k < workers; k++) {
            threads.emplace_back([&, k] {
                E::cpu_scope scope(k);
                xorshift rng{0xabcdefull * (k + 1) + rounds};
                for (int i = 0; i < 50; i++)  // churn: objects drift between slots
                    if (void* p = pool.pop()) pool.push(p);
                std::vector<void*> held;
                const unsigned want = 1 + static_cast<unsigned>(rng.next() % 4);
                for (unsigned i = 0; i < want; i++)
                    if (void* p = pool.pop()) held.push_back(p);
                holding.fetch_add(1);
                while (!go_drop.load()) std::this_thread::yield();
                for (void* p : held) {
                    d.dropped_by[k]++;
                    const int rc = pool.drop(p);
                    if (rc == 0)
                        d.zero_returns.fetch_add(1);
                    else if (rc != err_again)
                        ADD_FAILURE() << "drop returned " << rc;
                }
            });
        }
        std::uint64_t total_held = 0;
        {
            E::cpu_scope scope(3);
            while (holding.load() != workers) std::this_thread::yield();
            go_drop.store(true);  // drops start while fini runs: pushes have all finished
            EXPECT_EQ(pool.fini(), 0);
        }
        for (auto& t : threads) t.join();
        for (std::uint64_t n : d.dropped_by) total_held += n;
        EXPECT_EQ(d.releases.load(), 1) << "round " << rounds;
        EXPECT_LE(d.zero_returns.load(), 1) << "two droppers both saw the count reach zero";
        if (d.zero_returns.load() == 1) freed_by_drop++;
        // Whoever freed (the last dropper or fini), it saw every dropper's writes: all held
        // objects were dropped before the count reached zero.
        EXPECT_EQ(d.seen_at_release, total_held) << "round " << rounds;
        EXPECT_FALSE(pool.allocated());
        rounds++;
    } while ((rounds < 20 || clock_type::now() < soft) && clock_type::now() < hard);
    this->RecordProperty("rounds", rounds);
    this->RecordProperty("freed_by_drop", freed_by_drop);
    EXPECT_GE(rounds, 20);
}

}  // namespace
}  // namespace kverify
