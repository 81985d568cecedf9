// SPDX-License-Identifier: GPL-2.0-only
// objpool on real_env, one thread: the sequential contract (limits, allocation failure, objinit,
// distribution, capacity, FIFO per slot, pop order, lifecycle, 32-bit wrap-around), typed over
// the variants that must be correct. Then deterministic interrupt nesting: a test Env raises an
// NMI or IRQ on this thread at one chosen access to an entry, which shows a finding in every
// kernel version (an NMI push inside a push) and catches the mutants a single thread can catch.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstdint>
#include <set>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "impl/objpool.hpp"
#include "impl/real_env.hpp"

namespace kverify {
namespace {

// real_env plus allocation accounting and one-shot interrupt injection at the next write or
// read of an entry (the only void* atomics of objpool). Signals sent to the own thread are
// delivered before pthread_kill returns, so the interrupt lands exactly there.
struct test_env : real_env {
    // entry_write / entry_read: the next access to an entry; seq_read: the next read_once of a
    // sequence number (head, tail, last) after `seq_reads_to_skip` others; reserve: the next
    // cas on tail; after_commit: right after the next release store of `last`.
    enum class hook_point { none, entry_write, entry_read, seq_read, reserve, after_commit };

    static inline long live_allocs = 0;   // kmalloc'd and not yet kfree'd
    static inline long total_allocs = 0;  // successful kmallocs
    static inline hook_point armed = hook_point::none;
    static inline void (*hook)() = nullptr;
    static inline int seq_reads_to_skip = 0;

    static void* kmalloc(std::size_t bytes, src_loc loc = {}) noexcept {
        void* p = real_env::kmalloc(bytes, loc);
        if (p != nullptr) ++live_allocs, ++total_allocs;
        return p;
    }
    static void kfree(void* p, src_loc loc = {}) noexcept {
        if (p != nullptr) --live_allocs;
        real_env::kfree(p, loc);
    }
    template <class T>
    static void write_once(atomic<T>& a, T v, src_loc loc = {}) noexcept {
        if constexpr (std::is_pointer<T>::value) fire(hook_point::entry_write);
        real_env::write_once(a, v, loc);
    }
    template <class T>
    static T read_once(const atomic<T>& a, src_loc loc = {}) noexcept {
        if constexpr (std::is_pointer<T>::value) fire(hook_point::entry_read);
        if constexpr (std::is_same<T, std::uint32_t>::value) {
            if (armed == hook_point::seq_read && seq_reads_to_skip-- == 0) fire(armed);
        }
        return real_env::read_once(a, loc);
    }
    template <class T>
    static bool try_cmpxchg_acquire(atomic<T>& a, T& old, T nv, src_loc loc = {}) noexcept {
        fire(hook_point::reserve);  // push's reservation is its only acquire cas
        return real_env::try_cmpxchg_acquire(a, old, nv, loc);
    }
    template <class T>
    static bool try_cmpxchg_local(atomic<T>& a, T& old, T nv, src_loc loc = {}) noexcept {
        fire(hook_point::reserve);  // local-cas: the reservation
        return real_env::try_cmpxchg_local(a, old, nv, loc);
    }
    template <class T>
    static void store_release(atomic<T>& a, T v, src_loc loc = {}) noexcept {
        real_env::store_release(a, v, loc);
        if constexpr (std::is_same<T, std::uint32_t>::value) fire(hook_point::after_commit);
    }
    static void arm(hook_point where, void (*fn)(), int skip_seq_reads = 0) noexcept {
        hook = fn;
        seq_reads_to_skip = skip_seq_reads;
        armed = where;
    }
    static void reset() noexcept {
        live_allocs = total_allocs = 0;
        armed = hook_point::none;
        hook = nullptr;
        seq_reads_to_skip = 0;
    }

private:
    static void fire(hook_point where) noexcept {
        if (armed == where) {
            armed = hook_point::none;  // one shot: the interrupt's own accesses do not re-fire
            hook();
        }
    }
};

using E = test_env;

// Sets the possible mask for one test and restores the default afterwards.
class machine_scope {
public:
    explicit machine_scope(cpumask possible) { E::configure(possible); }
    ~machine_scope() { E::configure(cpumask::first_n(4)); }
};

// Counts release callbacks; the context pointer tells which pool/test it came from.
struct release_log {
    int calls = 0;
    const void* pool = nullptr;
    void* context = nullptr;
};
release_log g_release;

template <class Pool>
int record_release(Pool* pool, void* context) {
    ++g_release.calls;
    g_release.pool = pool;
    g_release.context = context;
    return 0;
}

std::string variant_name(const char* n) {
    std::string s(n);
    std::replace_if(
        s.begin(), s.end(), [](char c) { return c == '.' || c == '-'; }, '_');
    return s;
}
struct name_of_variant {
    template <class V>
    static std::string GetName(int) {
        return variant_name(V::name);
    }
};

// Every variant that must be correct, plus v6.7-rc1: its bug needs the weak model, so a single
// thread must see the full contract from it too.
using sequential_variants =
    variant_concat_t<objpool_good_variants,
                     objpool_variant_list<objpool_v6_7_rc1>>::apply<::testing::Types>;

template <class V>
class ObjpoolContract : public ::testing::Test {
protected:
    using pool_t = objpool<E, V>;

    void SetUp() override {
        E::reset();
        E::fail_kmalloc_after(-1);
        E::reset_stats();
        g_release = {};
    }
    void TearDown() override {
        E::fail_kmalloc_after(-1);
        E::configure(cpumask::first_n(4));
        EXPECT_EQ(E::live_allocs, 0) << "objpool leaked (or freed too much)";
        EXPECT_EQ(E::stats().warnings, 0u) << "objpool warned in normal use";
    }

    static int init(pool_t& p, int nr, int size = 16) {
        return p.init(nr, size, nullptr, &g_release, record_release<pool_t>);
    }
    static std::vector<void*> pop_all(pool_t& p) {
        std::vector<void*> v;
        while (void* o = p.pop()) v.push_back(o);
        return v;
    }
    static unsigned published(const pool_t& p, unsigned cpu) {
        const auto s = p.slot_state(cpu);
        return s.last - s.head;
    }
    static void expect_slot_consistent(const pool_t& p, unsigned cpu) {
        const auto s = p.slot_state(cpu);
        EXPECT_EQ(s.last, s.tail) << "cpu " << cpu << ": a reservation was never committed";
        EXPECT_LE(s.last - s.head, static_cast<std::uint32_t>(p.nr_objs())) << "cpu " << cpu;
    }
};
TYPED_TEST_SUITE(ObjpoolContract, sequential_variants, name_of_variant);

TYPED_TEST(ObjpoolContract, InitRejectsOutOfRangeSizesWithoutAllocating) {
    typename TestFixture::pool_t p;
    const int bad[][2] = {{0, 8}, {-1, 8}, {INT_MIN, 8},       {(1 << 24) + 1, 8}, {INT_MAX, 8},
                          {1, 0}, {1, -1}, {1, (1 << 16) + 1}, {1, INT_MIN},       {0, 0}};
    for (const auto& b : bad) {
        EXPECT_EQ(p.init(b[0], b[1], nullptr, nullptr, nullptr), err_inval)
            << "nr_objs " << b[0] << " object_size " << b[1];
    }
    EXPECT_EQ(E::total_allocs, 0) << "a rejected init allocated memory";
    EXPECT_FALSE(p.allocated());
}

TYPED_TEST(ObjpoolContract, InitAcceptsTheEdgesOfTheLimits) {
    E::cpu_scope cpu(0);
    for (int size : {1, 8, 1 << 16}) {
        typename TestFixture::pool_t p;
        ASSERT_EQ(this->init(p, 1, size), 0) << "object_size " << size;
        EXPECT_EQ(p.nr_objs(), 1);
        EXPECT_EQ(p.fini(), 0);
        EXPECT_EQ(g_release.calls, 1);
        g_release = {};
    }
}

TYPED_TEST(ObjpoolContract, ObjectSizeIsRoundedUpToLongAndObjectsAreThatFarApart) {
    E::cpu_scope cpu(0);
    machine_scope m(cpumask(0b1));
    const std::pair<int, std::size_t> cases[] = {
        {1, sizeof(long)}, {7, 8}, {8, 8}, {9, 16}, {17, 24}, {(1 << 16) - 1, 1 << 16}};
    for (const auto& c : cases) {
        typename TestFixture::pool_t p;
        ASSERT_EQ(this->init(p, 3, c.first), 0);
        EXPECT_EQ(p.obj_size(), c.second) << "object_size " << c.first;
        const auto objs = this->pop_all(p);
        ASSERT_EQ(objs.size(), 3u);
        for (std::size_t i = 1; i < objs.size(); i++) {
            EXPECT_EQ(static_cast<char*>(objs[i]) - static_cast<char*>(objs[i - 1]),
                      static_cast<std::ptrdiff_t>(c.second));
            EXPECT_EQ(reinterpret_cast<std::uintptr_t>(objs[i]) % alignof(long), 0u);
        }
        for (void* o : objs) p.push(o);
        p.fini();
    }
}

TYPED_TEST(ObjpoolContract, CapacityIsTheNextPowerOfTwo) {
    E::cpu_scope cpu(0);
    const std::pair<int, std::uint32_t> cases[] = {{1, 1},       {2, 2},      {3, 4},  {4, 4},
                                                   {5, 8},       {8, 8},      {9, 16}, {1000, 1024},
                                                   {1024, 1024}, {1025, 2048}};
    for (const auto& c : cases) {
        typename TestFixture::pool_t p;
        ASSERT_EQ(this->init(p, c.first), 0);
        EXPECT_EQ(p.capacity(), c.second) << "nr_objs " << c.first;
        p.fini();
    }
}

TYPED_TEST(ObjpoolContract, ObjectsAreSpreadOverPossibleCpusSkippingHoles) {
    struct layout {
        std::uint64_t mask;
        int nr;
        std::vector<std::pair<unsigned, unsigned>> per_cpu;  // (cpu, objects), hand-computed
    };
    const layout cases[] = {
        {0b1101, 7, {{0, 3}, {1, 0}, {2, 2}, {3, 2}}}, {0b1101, 2, {{0, 1}, {2, 1}, {3, 0}}},
        {0b0010, 7, {{0, 0}, {1, 7}, {2, 0}}},         {0xff, 7, {{0, 1}, {3, 1}, {6, 1}, {7, 0}}},
        {0xff, 17, {{0, 3}, {1, 2}, {7, 2}}},          {0b1010'0000, 3, {{5, 2}, {6, 0}, {7, 1}}},
    };
    for (const auto& c : cases) {
        machine_scope m{cpumask(c.mask)};
        E::cpu_scope cpu(cpumask(c.mask).next(-1));
        typename TestFixture::pool_t p;
        ASSERT_EQ(this->init(p, c.nr), 0);
        EXPECT_EQ(p.nr_objs(), c.nr);
        EXPECT_EQ(p.nr_possible_cpus(), cpumask(c.mask).weight());
        for (const auto& [cpu_id, n] : c.per_cpu) {
            SCOPED_TRACE(::testing::Message()
                         << "mask " << c.mask << " nr " << c.nr << " cpu " << cpu_id);
            const bool possible = cpumask(c.mask).test(cpu_id);
            EXPECT_EQ(p.has_slot(cpu_id), possible);
            if (!possible) continue;
            EXPECT_EQ(this->published(p, cpu_id), n);
            EXPECT_EQ(p.objects_in_slot(cpu_id), n);
            const auto s = p.slot_state(cpu_id);
            EXPECT_EQ(s.head, 0u);
            EXPECT_EQ(s.tail, n);
            // A slot's own objects, in order, behind its entries.
            for (unsigned i = 0; i < n; i++)
                EXPECT_EQ(p.entry_at(cpu_id, i), p.object_at(cpu_id, i));
        }
        p.fini();
        EXPECT_EQ(g_release.calls, 1);
        g_release = {};
    }
}

int g_init_calls = 0;
std::vector<void*>* g_init_seen = nullptr;
int init_zeroed_and_tagged(void* obj, void* context) {
    const auto* bytes = static_cast<const unsigned char*>(obj);
    for (int i = 0; i < 24; i++)
        if (bytes[i] != 0) return -100;  // objects must start zeroed
    *static_cast<int*>(obj) = ++g_init_calls;
    if (context != &g_init_calls) return -101;
    g_init_seen->push_back(obj);
    return 0;
}

TYPED_TEST(ObjpoolContract, ObjinitBuildsEveryObjectOnceWithTheContext) {
    machine_scope m(cpumask(0b1101));
    E::cpu_scope cpu(2);
    std::vector<void*> seen;
    g_init_seen = &seen;
    g_init_calls = 0;
    typename TestFixture::pool_t p;
    ASSERT_EQ(p.init(10, 24, init_zeroed_and_tagged, &g_init_calls, nullptr), 0);
    EXPECT_EQ(g_init_calls, 10);
    EXPECT_EQ(std::set<void*>(seen.begin(), seen.end()).size(), 10u);
    auto objs = this->pop_all(p);
    ASSERT_EQ(objs.size(), 10u);
    std::set<int> tags;
    for (void* o : objs) {
        EXPECT_TRUE(p.is_pool_object(o));
        EXPECT_TRUE(std::find(seen.begin(), seen.end(), o) != seen.end());
        tags.insert(*static_cast<int*>(o));
    }
    EXPECT_EQ(tags.size(), 10u) << "objinit's writes are not what pop hands out";
    for (void* o : objs) p.push(o);
    p.fini();
    g_init_seen = nullptr;
}

int g_fail_at = 0;
int init_failing_at(void*, void*) { return ++g_init_calls == g_fail_at ? -42 : 0; }

TYPED_TEST(ObjpoolContract, ObjinitFailureAbortsInitAndFreesEverything) {
    machine_scope m(cpumask(0b1101));
    for (int fail_at = 1; fail_at <= 7; fail_at++) {
        g_init_calls = 0;
        g_fail_at = fail_at;
        typename TestFixture::pool_t p;
        EXPECT_EQ(
            p.init(7, 8, init_failing_at, nullptr, record_release<typename TestFixture::pool_t>),
            -42)
            << "objinit failing at call " << fail_at;
        EXPECT_EQ(g_init_calls, fail_at) << "init went on after objinit failed";
        EXPECT_EQ(E::live_allocs, 0) << "fail at " << fail_at;
        EXPECT_FALSE(p.allocated());
    }
    EXPECT_EQ(g_release.calls, 0) << "release ran for a pool that never existed";
}

TYPED_TEST(ObjpoolContract, AllocationFailureAtEachStepGivesNomemAndFreesEverything) {
    for (const std::uint64_t mask :
         {std::uint64_t{0b1101}, std::uint64_t{0b1}, std::uint64_t{0xff}}) {
        machine_scope m{cpumask(mask)};
        g_release = {};
        const long needed = 1 + cpumask(mask).weight();  // slot array + one per possible CPU
        for (long n = 0; n <= needed; n++) {
            E::reset();
            E::fail_kmalloc_after(n);
            typename TestFixture::pool_t p;
            const int rc = this->init(p, 9);
            E::fail_kmalloc_after(-1);
            if (n < needed) {
                EXPECT_EQ(rc, err_nomem) << "mask " << mask << ": kmalloc " << n << " failed";
                EXPECT_EQ(E::total_allocs, n) << "init went on after a failed kmalloc";
                EXPECT_EQ(E::live_allocs, 0) << "mask " << mask << " fail after " << n;
                EXPECT_FALSE(p.allocated());
            } else {
                ASSERT_EQ(rc, 0) << "init needs more than " << needed << " allocations";
                E::cpu_scope cpu(0);
                p.fini();
                EXPECT_EQ(E::live_allocs, 0);
            }
        }
        EXPECT_EQ(g_release.calls, 1) << "release must run only for the pool that was created";
    }
}

TYPED_TEST(ObjpoolContract, EachSlotIsFifo) {
    machine_scope m(cpumask(0b1));
    E::cpu_scope cpu(0);
    typename TestFixture::pool_t p;
    ASSERT_EQ(this->init(p, 5), 0);
    auto objs = this->pop_all(p);
    ASSERT_EQ(objs.size(), 5u);
    for (unsigned i = 0; i < 5; i++) EXPECT_EQ(objs[i], p.object_at(0, i)) << "init order";
    const std::vector<void*> order = {objs[3], objs[0], objs[4], objs[2], objs[1]};
    for (void* o : order) EXPECT_EQ(p.push(o), 0);
    EXPECT_EQ(this->pop_all(p), order);
    for (void* o : order) p.push(o);
    this->expect_slot_consistent(p, 0);
    p.fini();
}

TYPED_TEST(ObjpoolContract, PopStartsAtThisCpuAndWalksThePossibleCpusCyclically) {
    machine_scope m(cpumask(0b1101));  // CPUs 0, 2, 3
    typename TestFixture::pool_t p;
    {
        E::cpu_scope cpu(0);
        ASSERT_EQ(this->init(p, 3), 0);  // one object per possible CPU
    }
    const void* in_slot[4] = {p.object_at(0, 0), nullptr, p.object_at(2, 0), p.object_at(3, 0)};
    const unsigned expected_walk[][3] = {{0, 2, 3}, {2, 3, 0}, {3, 0, 2}};
    for (const auto& walk : expected_walk) {
        {
            E::cpu_scope cpu(walk[0]);
            std::vector<void*> got;
            for (int i = 0; i < 3; i++) got.push_back(p.pop());
            EXPECT_EQ(p.pop(), nullptr) << "pop invented an object";
            for (int i = 0; i < 3; i++)
                EXPECT_EQ(got[i], in_slot[walk[i]]) << "from CPU " << walk[0] << ", visit " << i;
        }
        // Put each object back into its own slot, pushed by a thread on that CPU.
        for (unsigned c : {0u, 2u, 3u}) {
            std::thread t([&] {
                E::cpu_scope owner(c);
                p.push(const_cast<void*>(in_slot[c]));
            });
            t.join();
        }
    }
    E::cpu_scope cpu(0);
    p.fini();
    EXPECT_EQ(g_release.calls, 1);
}

TYPED_TEST(ObjpoolContract, PushGoesIntoThisCpusSlotOnly) {
    machine_scope m(cpumask(0b1101));
    E::cpu_scope cpu(3);
    typename TestFixture::pool_t p;
    ASSERT_EQ(this->init(p, 6), 0);
    auto objs = this->pop_all(p);
    ASSERT_EQ(objs.size(), 6u);
    for (unsigned c : {0u, 2u, 3u}) EXPECT_EQ(this->published(p, c), 0u);
    for (void* o : objs) p.push(o);
    EXPECT_EQ(this->published(p, 0), 0u);
    EXPECT_EQ(this->published(p, 2), 0u);
    EXPECT_EQ(this->published(p, 3), 6u) << "every object fits into one slot";
    for (unsigned c : {0u, 2u, 3u}) this->expect_slot_consistent(p, c);
    // They come back in push order from this CPU's slot.
    EXPECT_EQ(this->pop_all(p), objs);
    for (void* o : objs) p.push(o);
    p.fini();
}

TYPED_TEST(ObjpoolContract, QuiescentPopIsNullExactlyWhenEverySlotIsEmpty) {
    machine_scope m(cpumask(0b1101));
    typename TestFixture::pool_t p;
    void* last_obj = nullptr;
    {
        E::cpu_scope cpu(0);
        ASSERT_EQ(this->init(p, 4), 0);
        for (int i = 0; i < 4; i++) ASSERT_NE(last_obj = p.pop(), nullptr) << i;
        EXPECT_EQ(p.pop(), nullptr);
    }
    // One object in a slot that is neither the popper's nor its next neighbour.
    std::thread t([&] {
        E::cpu_scope owner(2);
        p.push(last_obj);
    });
    t.join();
    E::cpu_scope cpu(3);
    EXPECT_EQ(p.pop(), last_obj) << "pop missed an object in CPU 2's slot";
    EXPECT_EQ(p.pop(), nullptr);
    // Return the three others (popped on CPU 0 above; they are the remaining pool objects).
    int returned = 0;
    for (unsigned c : {0u, 2u, 3u}) {
        for (unsigned i = 0; i < p.objects_in_slot(c); i++) {
            if (p.object_at(c, i) == last_obj) continue;
            p.push(p.object_at(c, i));
            returned++;
        }
    }
    EXPECT_EQ(returned, 3);
    p.push(last_obj);
    p.fini();
}

TYPED_TEST(ObjpoolContract, IsPoolObjectAcceptsExactlyTheObjects) {
    machine_scope m(cpumask(0b1101));
    E::cpu_scope cpu(0);
    typename TestFixture::pool_t p;
    ASSERT_EQ(this->init(p, 5, 12), 0);
    int local = 0;
    EXPECT_FALSE(p.is_pool_object(&local));
    EXPECT_FALSE(p.is_pool_object(nullptr));
    unsigned count = 0;
    for (unsigned c : {0u, 2u, 3u}) {
        const unsigned n = p.objects_in_slot(c);
        for (unsigned i = 0; i < n; i++, count++) {
            char* o = static_cast<char*>(p.object_at(c, i));
            EXPECT_TRUE(p.is_pool_object(o));
            EXPECT_FALSE(p.is_pool_object(o + 1));
            EXPECT_FALSE(p.is_pool_object(o - 1));
        }
        // One past the slot's last object is not an object.
        EXPECT_FALSE(p.is_pool_object(static_cast<char*>(p.object_at(c, n))));
    }
    EXPECT_EQ(count, 5u);
    p.fini();
    EXPECT_FALSE(p.is_pool_object(&local));
}

TYPED_TEST(ObjpoolContract, FiniReleasesOnceWhenEveryObjectIsBack) {
    E::cpu_scope cpu(1);
    typename TestFixture::pool_t p;
    ASSERT_EQ(this->init(p, 6), 0);
    EXPECT_EQ(p.refcount(), 7) << "nr_objs + 1";
    EXPECT_EQ(p.fini(), 0);
    EXPECT_EQ(g_release.calls, 1);
    EXPECT_EQ(g_release.pool, &p);
    EXPECT_EQ(g_release.context, &g_release);
    EXPECT_FALSE(p.allocated());
    EXPECT_EQ(E::live_allocs, 0);
}

TYPED_TEST(ObjpoolContract, HeldObjectsKeepThePoolUntilTheLastDrop) {
    E::cpu_scope cpu(2);
    typename TestFixture::pool_t p;
    ASSERT_EQ(this->init(p, 5), 0);
    void* a = p.pop();
    void* b = p.pop();
    ASSERT_NE(a, nullptr);
    ASSERT_NE(b, nullptr);
    EXPECT_EQ(p.fini(), 0);
    EXPECT_EQ(g_release.calls, 0) << "freed while objects were still held";
    EXPECT_TRUE(p.allocated());
    EXPECT_EQ(p.refcount(), 2);
    EXPECT_EQ(p.drop(a), err_again);
    EXPECT_EQ(g_release.calls, 0);
    EXPECT_EQ(p.drop(b), 0) << "the last drop frees";
    EXPECT_EQ(g_release.calls, 1);
    EXPECT_FALSE(p.allocated());
}

TYPED_TEST(ObjpoolContract, DroppingEveryObjectLeavesThePoolToFini) {
    E::cpu_scope cpu(0);
    typename TestFixture::pool_t p;
    ASSERT_EQ(this->init(p, 4), 0);
    for (int i = 0; i < 4; i++) {
        void* o = p.pop();
        ASSERT_NE(o, nullptr);
        EXPECT_EQ(p.drop(o), err_again) << "the pool's own reference must keep it alive";
    }
    EXPECT_EQ(p.refcount(), 1);
    EXPECT_EQ(g_release.calls, 0);
    EXPECT_EQ(p.fini(), 0);
    EXPECT_EQ(g_release.calls, 1);
}

TYPED_TEST(ObjpoolContract, DropOfNullIsInvalidAndChangesNothing) {
    E::cpu_scope cpu(0);
    typename TestFixture::pool_t p;
    ASSERT_EQ(this->init(p, 2), 0);
    EXPECT_EQ(p.drop(nullptr), err_inval);
    EXPECT_EQ(p.refcount(), 3);
    p.fini();
    EXPECT_EQ(g_release.calls, 1);
}

TYPED_TEST(ObjpoolContract, ReleaseIsOptionalAndThePoolCanBeInitialisedAgain) {
    E::cpu_scope cpu(0);
    typename TestFixture::pool_t p;
    ASSERT_EQ(p.init(3, 8, nullptr, nullptr, nullptr), 0);
    EXPECT_EQ(p.fini(), 0);
    EXPECT_FALSE(p.allocated());
    ASSERT_EQ(this->init(p, 9), 0);
    EXPECT_EQ(p.nr_objs(), 9);
    EXPECT_EQ(p.capacity(), 16u);
    EXPECT_EQ(this->pop_all(p).size(), 9u);  // fresh objects, all of them
    p.free();                                // the forced free (kernel objpool_free) also releases
    EXPECT_EQ(g_release.calls, 1);
    p.free();
    EXPECT_EQ(g_release.calls, 1) << "a second free must do nothing";
}

TYPED_TEST(ObjpoolContract, SequenceNumbersWrapAround32Bits) {
    machine_scope m(cpumask(0b101));
    E::cpu_scope cpu(0);
    typename TestFixture::pool_t p;
    ASSERT_EQ(this->init(p, 5), 0);  // CPU 0 gets 3 objects, CPU 2 gets 2; capacity 8
    const std::vector<void*> slot0 = {p.object_at(0, 0), p.object_at(0, 1), p.object_at(0, 2)};
    const std::uint32_t base = 0xffff'fffeu;
    ASSERT_EQ(p.rebase_for_test(base), 0);
    const auto s = p.slot_state(0);
    ASSERT_EQ(s.head, base);
    ASSERT_EQ(s.last, base + 3);
    ASSERT_LT(s.last, s.head) << "the test must start across the wrap";
    EXPECT_EQ(p.pop(), slot0[0]);
    EXPECT_EQ(p.pop(), slot0[1]);
    EXPECT_EQ(p.pop(), slot0[2]) << "the entry at sequence 2^32 (index 0)";
    // Cycle every object through CPU 0's slot several times across the wrap, FIFO each time.
    std::vector<void*> objs = slot0;
    objs.push_back(p.pop());
    objs.push_back(p.pop());
    ASSERT_EQ(p.pop(), nullptr);
    for (int round = 0; round < 5; round++) {
        for (void* o : objs) p.push(o);
        EXPECT_EQ(this->published(p, 0), 5u);
        EXPECT_EQ(this->pop_all(p), objs) << "round " << round;
        std::rotate(objs.begin(), objs.begin() + 2, objs.end());
    }
    const auto e = p.slot_state(0);
    EXPECT_EQ(e.head, base + 3 + 25);
    EXPECT_EQ(e.head, e.last);
    for (void* o : objs) p.push(o);
    this->expect_slot_consistent(p, 0);
    p.fini();
    EXPECT_EQ(g_release.calls, 1);
}

TYPED_TEST(ObjpoolContract, RangeCheckHoldsAtTheWrapEdges) {
    // A full slot right at the wrap: last - head == nr_objs with last < head numerically.
    machine_scope m(cpumask(0b1));
    E::cpu_scope cpu(0);
    for (const std::uint32_t base : {0xffff'fffcu, 0xffff'ffffu, 0u, 0x7fff'ffffu}) {
        typename TestFixture::pool_t p;
        ASSERT_EQ(this->init(p, 4), 0);
        ASSERT_EQ(p.rebase_for_test(base), 0);
        EXPECT_EQ(this->pop_all(p).size(), 4u) << "base " << base;
        for (unsigned i = 0; i < 4; i++) p.push(p.object_at(0, i));
        p.fini();
        EXPECT_EQ(g_release.calls, 1);
        g_release = {};
    }
}

bool under_sanitizer() {
#if defined(KVERIFY_TSAN) || defined(__SANITIZE_ADDRESS__)
    return true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
    return true;
#else
    return false;
#endif
#else
    return false;
#endif
}

// The largest legal pool, on one CPU so that it stays at ~256 MiB (2^24 entries and objects).
// Sequential and slow under sanitizers (which add nothing here), so only the plain build runs it.
TEST(ObjpoolLimits, LargestPoolHoldsTwoToThe24Objects) {
    if (under_sanitizer()) GTEST_SKIP() << "2^24 objects: plain build only";
    E::reset();
    machine_scope m(cpumask(0b1));
    E::cpu_scope cpu(0);
    objpool<E, objpool_v6_15> p;
    ASSERT_EQ(p.init(1 << 24, 1, nullptr, nullptr, nullptr), 0);
    EXPECT_EQ(p.capacity(), 1u << 24);
    EXPECT_EQ(p.nr_objs(), 1 << 24);
    EXPECT_EQ(p.slot_state(0).last, 1u << 24);
    void* first = p.pop();
    EXPECT_EQ(first, p.object_at(0, 0));
    p.push(first);  // sequence 2^24 lands in entry 0 again: the ring is exactly full
    EXPECT_EQ(p.slot_state(0).tail, (1u << 24) + 1);
    EXPECT_EQ(p.entry_at(0, 1u << 24), first);
    EXPECT_EQ(p.pop(), p.object_at(0, 1)) << "FIFO across the full ring";
    p.free();  // fini would pop 2^24 objects one by one: the lifecycle tests cover it
    EXPECT_EQ(E::live_allocs, 0);
    EXPECT_EQ(E::stats().warnings, 0u);
}

// ----- deterministic interrupt nesting on one thread -----

template <class Pool>
struct nest_ctx {
    Pool* pool = nullptr;
    void* push_obj = nullptr;  // what the interrupt pushes, if anything
    bool pop_first = false;    // pop, then push what it popped
    void* popped = nullptr;
    int runs = 0;
};

template <class Pool>
void nested_handler(unsigned, void* arg) {
    auto* c = static_cast<nest_ctx<Pool>*>(arg);
    c->runs++;
    if (c->pop_first) {
        c->popped = c->pool->pop();
        if (c->popped != nullptr) c->pool->push(c->popped);
        return;
    }
    if (c->push_obj != nullptr) c->pool->push(c->push_obj);
    c->popped = c->pool->pop();
}

void nmi_on_cpu0() { E::raise_nmi(0); }
void irq_on_cpu0() { E::raise_irq(0); }

class handlers_scope {
public:
    ~handlers_scope() {
        E::set_irq_handler(0, nullptr, nullptr);
        E::set_nmi_handler(0, nullptr, nullptr);
        E::reset();
    }
};

// The scenario: one CPU, two objects o0 and o1, both popped (head == last == tail == 2). The
// outer push of o1 reserves sequence 2; an interrupt lands before it writes the entry, pushes
// o0 (sequence 3, last = 4) and pops. Result reported for the checks.
struct nested_push_result {
    void* o0;
    void* o1;
    void* interrupt_popped;
    int interrupt_runs;
    objpool<E, objpool_v6_15>::slot_snapshot after;
};

template <class V>
nested_push_result run_nested_push(void (*raise)(), bool as_nmi, objpool<E, V>& p) {
    using pool_t = objpool<E, V>;
    nest_ctx<pool_t> ctx;
    ctx.pool = &p;
    if (as_nmi)
        E::set_nmi_handler(0, nested_handler<pool_t>, &ctx);
    else
        E::set_irq_handler(0, nested_handler<pool_t>, &ctx);
    void* o0 = p.pop();
    void* o1 = p.pop();
    ctx.push_obj = o0;
    E::arm(E::hook_point::entry_write, raise);
    p.push(o1);
    const auto s = p.slot_state(0);
    return {o0, o1, ctx.popped, ctx.runs, {s.head, s.tail, s.last}};
}

// The good variants that keep the kernel's commit (every kernel version, fix-acquire-last):
// the ones F2 and F4 apply to. fix-nested-push has tests of its own below.
template <class V>
struct keeps_kernel_commit
    : std::bool_constant<V::push_commit == objpool_commit::reservation && !V::push_warn_reserved> {
};
using kernel_commit_variants = variant_filter_t<keeps_kernel_commit, objpool_good_variants>;
static_assert(kernel_commit_variants::size + 1 == objpool_good_variants::size,
              "only fix-nested-push changes the commit");

template <class V>
class ObjpoolFinding : public ::testing::Test {};
TYPED_TEST_SUITE(ObjpoolFinding, kernel_commit_variants::apply<::testing::Types>, name_of_variant);

// FINDING (every kernel version, and our fix-acquire-last): push commits with
// store_release(last, tail + 1), which assumes pushes on one CPU complete in reservation order.
// An NMI push nested between an outer push's reservation and its entry write breaks that: the
// NMI's commit publishes the outer's unwritten entry (a popper gets a stale object that is also
// in the ring: a duplicate), and the outer commit then moves `last` backwards below `tail`
// (the NMI's object is hidden and a published position is skipped: a lost object). This test
// pins the observed behaviour; it fails once push tolerates nested commits.
TYPED_TEST(ObjpoolFinding, NmiPushNestedInPushDuplicatesAndLosesObjects) {
    handlers_scope h;
    E::reset();
    machine_scope m(cpumask(0b1));
    E::cpu_scope cpu(0);
    objpool<E, TypeParam> p;
    ASSERT_EQ(p.init(2, 8, nullptr, nullptr, nullptr), 0);
    const auto r = run_nested_push(nmi_on_cpu0, true, p);
    ASSERT_EQ(r.interrupt_runs, 1) << "the NMI did not land inside the push";
    // The NMI popped sequence 2, whose entry the outer push had not written: the stale o0 from
    // init, which the NMI itself had just published at sequence 3.
    EXPECT_EQ(r.interrupt_popped, r.o0);
    EXPECT_EQ(r.after.head, 3u);
    EXPECT_EQ(r.after.tail, 4u);
    EXPECT_EQ(r.after.last, 3u) << "last moved backwards from 4 to 3";
    // o1 was pushed and never popped, yet the pool looks empty.
    EXPECT_EQ(p.pop(), nullptr);
    // The NMI's holder returns o0: now o0 is published twice and o1 is gone for good.
    p.push(r.o0);
    EXPECT_EQ(p.pop(), r.o0);
    EXPECT_EQ(p.pop(), r.o0) << "o0 handed out twice";
    EXPECT_EQ(p.pop(), nullptr);
    p.free();
}

// The IRQ twin is harmless for every good variant: push runs with irqs off, so the IRQ is
// deferred to the irq_restore at the end of the push and its push/pop run after the commit.
TYPED_TEST(ObjpoolFinding, IrqInsidePushIsDeferredSoNothingBreaks) {
    handlers_scope h;
    E::reset();
    machine_scope m(cpumask(0b1));
    E::cpu_scope cpu(0);
    objpool<E, TypeParam> p;
    ASSERT_EQ(p.init(2, 8, nullptr, nullptr, nullptr), 0);
    const auto r = run_nested_push(irq_on_cpu0, false, p);
    ASSERT_EQ(r.interrupt_runs, 1);
    EXPECT_EQ(r.interrupt_popped, r.o1) << "the IRQ ran after the commit and got the oldest entry";
    EXPECT_EQ(r.after.head, 3u);
    EXPECT_EQ(r.after.tail, 4u);
    EXPECT_EQ(r.after.last, 4u);
    EXPECT_EQ(p.pop(), r.o0);
    EXPECT_EQ(p.pop(), nullptr);
    p.push(r.o0);
    p.push(r.o1);
    p.fini();
    EXPECT_EQ(E::live_allocs, 0);
}

// FINDING F4 (every kernel version): push reads tail once before its reservation loop and
// checks tail - head > nr_objs against each head it reads. An NMI push between the read of tail
// and the read of head, then a pop on another CPU, put head past that stale tail: the unsigned
// difference wraps and the warning fires in a sound pool (a panic under panic_on_warn). Here:
// CPU 0 pops o0 and pushes it back; at push's read of head an NMI on CPU 0 pops o1 from CPU 1's
// slot and pushes it into CPU 0's, and then CPU 1 pops it from there.
template <class V>
struct f4_ctx {
    static inline objpool<E, V>* pool = nullptr;
    static inline void* remote_popped = nullptr;
    static void nmi(unsigned, void*) {
        void* o = pool->pop();
        if (o != nullptr) pool->push(o);
    }
    static void nmi_then_remote_pop() {
        E::raise_nmi(0);  // delivered to this thread before raise_nmi returns
        std::thread cpu1([] {
            E::cpu_scope c(1);
            remote_popped = pool->pop();
        });
        cpu1.join();
    }
};

template <class V>
std::uint64_t warnings_with_nmi_push_at(E::hook_point where, int skip_seq_reads,
                                        void** remote_popped) {
    using ctx = f4_ctx<V>;
    E::reset_stats();
    objpool<E, V> p;
    EXPECT_EQ(p.init(2, 8, nullptr, nullptr, nullptr), 0);
    ctx::pool = &p;
    ctx::remote_popped = nullptr;
    E::set_nmi_handler(0, ctx::nmi, nullptr);
    void* o0 = p.pop();
    EXPECT_EQ(o0, p.object_at(0, 0));
    E::arm(where, ctx::nmi_then_remote_pop, skip_seq_reads);
    p.push(o0);
    EXPECT_EQ(E::armed, E::hook_point::none) << "the NMI was not raised inside the push";
    E::set_nmi_handler(0, nullptr, nullptr);
    *remote_popped = ctx::remote_popped;
    const std::uint64_t warnings = E::stats().warnings;
    // Every object is accounted for: one held by the test (if CPU 1 got it), the rest pooled.
    int pooled = 0;
    while (void* o = p.pop()) {
        EXPECT_NE(o, *remote_popped);
        ++pooled;
    }
    EXPECT_EQ(pooled + (*remote_popped != nullptr ? 1 : 0), 2) << "an object was lost";
    p.free();
    E::reset_stats();
    return warnings;
}

TYPED_TEST(ObjpoolFinding, NmiPushBeforeTheHeadReadFiresTheWarning) {
    handlers_scope h;
    E::reset();
    machine_scope m(cpumask(0b11));
    E::cpu_scope cpu(0);
    void* remote = nullptr;
    // Sequence reads in push: tail, then head (the hook fires just before reading head).
    EXPECT_EQ(warnings_with_nmi_push_at<TypeParam>(E::hook_point::seq_read, 1, &remote), 1u)
        << "expected the spurious warning";
    EXPECT_NE(remote, nullptr) << "CPU 1 should have popped the NMI's object from CPU 0's slot";
}

// ----- fix-nested-push: our repair of F2 and F4, and its known-bad twins -----

// One CPU (this thread), handlers and hooks reset at the end.
class ObjpoolNestedPush : public ::testing::Test {
protected:
    ObjpoolNestedPush() {
        E::reset();
        E::reset_stats();
    }
    handlers_scope handlers_;
    machine_scope machine_{cpumask(0b1)};
    E::cpu_scope cpu_{0};
};

// The F2 scenario of run_nested_push: the NMI lands before the outer push writes its entry.
// The NMI's push finds an older open reservation (last != its sequence) and does not commit;
// the outer push, the oldest, publishes both entries.
TEST_F(ObjpoolNestedPush, RepairPublishesANestedPushWithTheOuterOne) {
    objpool<E, objpool_fix_nested_push> p;
    ASSERT_EQ(p.init(2, 8, nullptr, nullptr, nullptr), 0);
    const auto r = run_nested_push(nmi_on_cpu0, true, p);
    ASSERT_EQ(r.interrupt_runs, 1) << "the NMI did not land inside the push";
    EXPECT_EQ(r.interrupt_popped, nullptr) << "nothing was published while the NMI ran";
    EXPECT_EQ(r.after.head, 2u);
    EXPECT_EQ(r.after.tail, 4u);
    EXPECT_EQ(r.after.last, 4u) << "the outer push publishes the NMI's entry too";
    EXPECT_EQ(p.pop(), r.o1);
    EXPECT_EQ(p.pop(), r.o0);
    EXPECT_EQ(p.pop(), nullptr);
    p.push(r.o0);
    p.push(r.o1);
    p.fini();
    EXPECT_EQ(E::live_allocs, 0);
    EXPECT_EQ(E::stats().warnings, 0u);
}

// Twin: without the outermost test, the NMI's commit publishes the outer push's unwritten entry
// and the NMI pops the stale o0 that the ring still holds there: o0 is out twice.
TEST_F(ObjpoolNestedPush, NotOutermostTwinPublishesTheUnwrittenEntry) {
    objpool<E, objpool_mut_nested_not_outermost> bad;
    ASSERT_EQ(bad.init(2, 8, nullptr, nullptr, nullptr), 0);
    const auto r = run_nested_push(nmi_on_cpu0, true, bad);
    ASSERT_EQ(r.interrupt_runs, 1);
    EXPECT_EQ(r.interrupt_popped, r.o0) << "mutant not caught: the NMI should pop a stale o0";
    EXPECT_EQ(bad.pop(), r.o0) << "o0 handed out twice";
    bad.free();
    E::reset_stats();
}

// Twin: without the re-read of tail, the outer push publishes only its own entry; the NMI's
// stays in [last, tail) and o0 is lost.
TEST_F(ObjpoolNestedPush, NoRecheckTwinLeavesTheNestedEntryUnpublished) {
    objpool<E, objpool_mut_nested_no_recheck> bad;
    ASSERT_EQ(bad.init(2, 8, nullptr, nullptr, nullptr), 0);
    const auto r = run_nested_push(nmi_on_cpu0, true, bad);
    ASSERT_EQ(r.interrupt_runs, 1);
    EXPECT_EQ(r.after.last, 3u);
    EXPECT_EQ(r.after.tail, 4u) << "mutant not caught: the NMI's entry should stay unpublished";
    EXPECT_EQ(bad.pop(), r.o1);
    EXPECT_EQ(bad.pop(), nullptr) << "o0 should be lost";
    bad.free();
    E::reset_stats();
}

// An NMI push during the outer push's commit loop, just after it stored `last`: `last` equals
// the NMI's sequence, so the NMI commits itself; the outer push then finds tail moved and stores
// the same value again. `last` never moves backwards.
TEST_F(ObjpoolNestedPush, RepairLetsAnNmiAfterTheOuterCommitCommitItself) {
    using pool_t = objpool<E, objpool_fix_nested_push>;
    pool_t p;
    ASSERT_EQ(p.init(2, 8, nullptr, nullptr, nullptr), 0);
    nest_ctx<pool_t> ctx;
    ctx.pool = &p;
    E::set_nmi_handler(0, nested_handler<pool_t>, &ctx);
    void* o0 = p.pop();
    void* o1 = p.pop();
    ctx.push_obj = o0;
    E::arm(E::hook_point::after_commit, nmi_on_cpu0);
    p.push(o1);  // commits last = 3; the NMI pushes o0 (last = 4) and pops o1
    ASSERT_EQ(ctx.runs, 1);
    EXPECT_EQ(ctx.popped, o1) << "the outer push had published o1 before the NMI";
    const auto s = p.slot_state(0);
    EXPECT_EQ(s.head, 3u);
    EXPECT_EQ(s.last, 4u);
    EXPECT_EQ(s.tail, 4u);
    EXPECT_EQ(p.pop(), o0);
    EXPECT_EQ(p.pop(), nullptr);
    p.push(o0);
    p.push(o1);
    p.fini();
    EXPECT_EQ(E::stats().warnings, 0u);
}

// F4 with the repair: an NMI push and a remote pop just before the reservation, or just after
// it (before the head read), never fire the warning, and nothing is lost.
TEST(ObjpoolNestedPushWarning, RepairChecksTheWarningOnlyOnceReserved) {
    handlers_scope h;
    E::reset();
    machine_scope m(cpumask(0b11));
    E::cpu_scope cpu(0);
    void* remote = nullptr;
    EXPECT_EQ(
        warnings_with_nmi_push_at<objpool_fix_nested_push>(E::hook_point::reserve, 0, &remote), 0u);
    EXPECT_NE(remote, nullptr) << "the NMI's object should have been published and popped";
    EXPECT_EQ(
        warnings_with_nmi_push_at<objpool_fix_nested_push>(E::hook_point::seq_read, 1, &remote),
        0u);
    EXPECT_EQ(remote, nullptr) << "the NMI's push nested in the reservation: not yet published";
    // Its twin keeps the kernel's warning and fires like the kernel versions.
    EXPECT_EQ(warnings_with_nmi_push_at<objpool_mut_nested_warn_in_loop>(E::hook_point::seq_read, 1,
                                                                         &remote),
              1u)
        << "mutant not caught";
}

// ----- mutants a single thread with interrupts can catch, each with its good twin -----

TEST(ObjpoolMutantTwin, PushWithIrqsOnNestsAnIrqPushAndBreaksTheSlot) {
    handlers_scope h;
    machine_scope m(cpumask(0b1));
    E::cpu_scope cpu(0);
    objpool<E, objpool_mut_push_irqs_on> bad;
    ASSERT_EQ(bad.init(2, 8, nullptr, nullptr, nullptr), 0);
    const auto r = run_nested_push(irq_on_cpu0, false, bad);
    ASSERT_EQ(r.interrupt_runs, 1);
    EXPECT_EQ(r.interrupt_popped, r.o0) << "mutant not caught: the IRQ saw a consistent slot";
    EXPECT_EQ(r.after.last, 3u);
    EXPECT_LT(r.after.last, r.after.tail);
    bad.free();
    // The twin (v6.15) is the IrqInsidePushIsDeferredSoNothingBreaks test above.
}

template <class V>
void* nmi_pop_inside_push(objpool<E, V>& p, void** held) {
    using pool_t = objpool<E, V>;
    nest_ctx<pool_t> ctx;
    ctx.pool = &p;
    E::set_nmi_handler(0, nested_handler<pool_t>, &ctx);
    held[0] = p.pop();
    held[1] = p.pop();
    E::arm(E::hook_point::entry_write, nmi_on_cpu0);
    p.push(held[1]);  // the NMI pops while this push is between its commit and entry write
    E::set_nmi_handler(0, nullptr, nullptr);
    return ctx.popped;
}

TEST(ObjpoolMutantTwin, PublishBeforeEntryHandsOutAStaleEntry) {
    handlers_scope h;
    machine_scope m(cpumask(0b1));
    E::cpu_scope cpu(0);
    void* held[2];
    {
        objpool<E, objpool_v6_15> good;
        ASSERT_EQ(good.init(2, 8, nullptr, nullptr, nullptr), 0);
        EXPECT_EQ(nmi_pop_inside_push(good, held), nullptr)
            << "v6.15 published the entry before writing it";
        good.push(held[0]);
        good.fini();
    }
    objpool<E, objpool_mut_publish_before_entry> bad;
    ASSERT_EQ(bad.init(2, 8, nullptr, nullptr, nullptr), 0);
    void* got = nmi_pop_inside_push(bad, held);
    EXPECT_EQ(got, held[0]) << "mutant not caught: the NMI should get o0, which the test holds";
    bad.free();
}

template <class V>
std::pair<void*, void*> pop_with_nmi_refill(objpool<E, V>& p) {
    using pool_t = objpool<E, V>;
    nest_ctx<pool_t> ctx;
    ctx.pool = &p;
    ctx.pop_first = true;  // the NMI pops one object and pushes it back (a kretprobe in NMI)
    E::set_nmi_handler(0, nested_handler<pool_t>, &ctx);
    E::arm(E::hook_point::entry_read, nmi_on_cpu0);
    void* first = p.pop();
    E::set_nmi_handler(0, nullptr, nullptr);
    return {first, p.pop()};
}

TEST(ObjpoolMutantTwin, EntryReadAfterHeadMovesReturnsARefilledEntry) {
    handlers_scope h;
    machine_scope m(cpumask(0b1));
    E::cpu_scope cpu(0);
    {
        objpool<E, objpool_v6_15> good;
        ASSERT_EQ(good.init(2, 8, nullptr, nullptr, nullptr), 0);
        const auto [a, b] = pop_with_nmi_refill(good);
        EXPECT_NE(a, b) << "v6.15 handed out one object twice";
        EXPECT_EQ(a, good.object_at(0, 1));
        EXPECT_EQ(b, good.object_at(0, 0));
        good.push(a);
        good.push(b);
        good.fini();
    }
    objpool<E, objpool_mut_pop_entry_after_head> bad;
    ASSERT_EQ(bad.init(2, 8, nullptr, nullptr, nullptr), 0);
    const auto [a, b] = pop_with_nmi_refill(bad);
    EXPECT_EQ(a, b) << "mutant not caught: its pop should return the object the NMI refilled";
    bad.free();
}

template <class V>
std::set<void*> drift_everything_to_cpu0(objpool<E, V>& p) {
    std::vector<void*> objs;
    while (void* o = p.pop()) objs.push_back(o);
    for (void* o : objs) p.push(o);
    std::set<void*> back;
    for (std::size_t i = 0; i < objs.size(); i++) back.insert(p.pop());
    return back;
}

TEST(ObjpoolMutantTwin, SmallCapacityOverflowsWhenObjectsDrift) {
    E::reset();
    machine_scope m(cpumask(0b11));
    E::cpu_scope cpu(0);
    {
        objpool<E, objpool_v6_15> good;
        ASSERT_EQ(good.init(4, 8, nullptr, nullptr, nullptr), 0);
        const auto back = drift_everything_to_cpu0(good);
        EXPECT_EQ(back.size(), 4u);
        EXPECT_EQ(back.count(nullptr), 0u);
        for (void* o : back) good.push(o);
        good.fini();
    }
    objpool<E, objpool_mut_small_capacity> bad;
    ASSERT_EQ(bad.init(4, 8, nullptr, nullptr, nullptr), 0);
    EXPECT_EQ(bad.capacity(), 2u);
    EXPECT_LT(drift_everything_to_cpu0(bad).size(), 4u)
        << "mutant not caught: four objects came back from a ring of two";
    bad.free();
    EXPECT_EQ(E::live_allocs, 0);
    E::reset_stats();  // the mutant warns about tail - head; that is expected here
}

template <class V>
std::pair<unsigned, unsigned> push_lands_where(objpool<E, V>& p) {
    void* o = p.pop();  // from CPU 0's own slot
    const auto before0 = p.slot_state(0), before1 = p.slot_state(1);
    p.push(o);
    const auto after0 = p.slot_state(0), after1 = p.slot_state(1);
    return {after0.last - before0.last, after1.last - before1.last};
}

TEST(ObjpoolMutantTwin, PushRemoteWritesAnotherCpusSlot) {
    E::reset();
    machine_scope m(cpumask(0b11));
    E::cpu_scope cpu(0);
    {
        objpool<E, objpool_local_cas> good;
        ASSERT_EQ(good.init(4, 8, nullptr, nullptr, nullptr), 0);
        EXPECT_EQ(push_lands_where(good), std::make_pair(1u, 0u));
        good.fini();
    }
    objpool<E, objpool_mut_push_remote> bad;
    ASSERT_EQ(bad.init(4, 8, nullptr, nullptr, nullptr), 0);
    EXPECT_EQ(push_lands_where(bad), std::make_pair(0u, 1u))
        << "mutant not caught: CPU 0's push should land in CPU 1's slot";
    bad.fini();
    EXPECT_EQ(E::live_allocs, 0);
}

TEST(ObjpoolVariants, ListsAreCompleteAndNamed) {
    std::vector<std::string> names;
    int bad = 0;
    for_each_objpool_variant([&](auto tag) {
        using V = typename decltype(tag)::type;
        names.push_back(V::name);
        bad += V::known_bad ? 1 : 0;
    });
    EXPECT_EQ(names.size(), objpool_all_variants::size);
    EXPECT_EQ(bad, static_cast<int>(objpool_bad_variants::size));
    for (const char* n : {"v6.7-rc1", "v6.7", "v6.10", "v6.15", "local-cas", "fix-acquire-last",
                          "fix-nested-push", "mut-publish-before-entry", "mut-push-remote"})
        EXPECT_NE(std::find(names.begin(), names.end(), n), names.end()) << n;
}

}  // namespace
}  // namespace kverify
