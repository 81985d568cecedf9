// SPDX-License-Identifier: GPL-2.0-only
// objpool on real_env (issue 9, measurements 1-3):
// - objpool_pop_push: one thread, pop+push pairs (the kretprobe fast path), every sound variant
//   against v6.15, against the same protocol written by hand on std::atomic (the Env layer's
//   cost), and local-cas rebuilt on v6.15, which tells the reservation from the walk;
// - objpool_contention: 1..4 threads, one object per thread; each round pops two and pushes
//   them back, so the second pop walks the other slots (stealing, or finding them all empty) and
//   objects drift between CPUs; against a mutex-protected free list and Boost.Lockfree's stack;
// - objpool_empty_walk: pop on an empty pool, every possible CPU visited, possible masks with
//   holes: the cost the cached CPU count (v6.10) saves over the popcount per step (v6.7).
// Variants come from impl/objpool.hpp's list of sound variants, so new ones appear here.
#include <boost/lockfree/stack.hpp>

#include <mutex>
#include <string>

#include "impl/objpool.hpp"
#include "impl/real_env.hpp"
#include "tests/bench/bench.hpp"
#include "tests/bench/real/objpool_handwritten.hpp"

namespace kverify::bench {
namespace {

using E = real_env;

// local-cas's reservation on v6.15's walk: local-cas derives from v6.7, so comparing it with
// v6.15 mixes two changes; this twin isolates the reservation. Benchmark only.
struct objpool_local_cas_on_v6_15 : objpool_v6_15 {
    static constexpr const char* name = "local-cas-on-v6.15";
    static constexpr bool known_bad = false;
    static constexpr objpool_reserve push_reserve = objpool_reserve::cas_local;
};

// ----- one thread: pop+push pairs -----

template <class V>
void bm_pop_push(benchmark::State& state) {
    E::configure(cpumask::first_n(4));
    objpool<E, V> pool;
    if (pool.init(64, 64, nullptr, nullptr, nullptr) != 0) return state.SkipWithError("init");
    E::cpu_scope cpu(0);
    cpu_meter meter(state);
    for (auto _ : state) {
        void* obj = pool.pop();
        benchmark::DoNotOptimize(obj);
        pool.push(obj);  // never null: 64 objects, one thread
    }
    meter.done(state.iterations());
    pool.fini();
}

template <bool LocalCas>
void bm_pop_push_handwritten(benchmark::State& state) {
    handwritten_objpool<LocalCas> pool(cpumask::first_n(4), 64);
    handwritten_objpool<LocalCas>::this_cpu = 0;
    cpu_meter meter(state);
    for (auto _ : state) {
        void* obj = pool.pop();
        benchmark::DoNotOptimize(obj);
        pool.push(obj);
    }
    meter.done(state.iterations());
}

// ----- contention: one object per thread, two pops per round -----

// What each thread does in a round, for any pool with pop() and push(). `shared` is set up by
// thread 0 before Google Benchmark's start barrier: read it only once the loop has started.
template <class Pool>
void contention_rounds(benchmark::State& state, Pool* const& shared) {
    cpu_meter meter(state);
    Pool* pool = nullptr;
    for (auto _ : state) {
        if (pool == nullptr) pool = shared;
        void* a = pool->pop();
        void* b = pool->pop();  // own slot now empty: walks, steals or finds nothing
        benchmark::DoNotOptimize(b);
        if (a != nullptr) pool->push(a);
        if (b != nullptr) pool->push(b);
    }
    meter.done(state.iterations());
}

template <class V>
void bm_contention(benchmark::State& state) {
    static objpool<E, V>* pool = nullptr;
    const int threads = state.threads();
    if (state.thread_index() == 0) {
        E::configure(cpumask::first_n(4));
        pool = new objpool<E, V>();
        // one object per thread, spread over the 4 possible CPUs from cpu0 up
        if (pool->init(threads, 64, nullptr, nullptr, nullptr) != 0) state.SkipWithError("init");
    }
    E::cpu_scope cpu(static_cast<unsigned>(state.thread_index()));
    contention_rounds(state, pool);
    if (state.thread_index() == 0) {  // after its end barrier: no thread touches the pool
        pool->fini();
        delete pool;
        pool = nullptr;
    }
}

// What a user might pick instead: a free list under a mutex.
class mutex_free_list {
public:
    explicit mutex_free_list(int n) {
        for (int i = 0; i < n; ++i) items_[count_++] = &objects_[i];
    }
    void* pop() {
        std::lock_guard<std::mutex> g(lock_);
        return count_ == 0 ? nullptr : items_[--count_];
    }
    void push(void* p) {
        std::lock_guard<std::mutex> g(lock_);
        items_[count_++] = p;
    }

private:
    std::mutex lock_;
    int count_ = 0;
    void* items_[64] = {};
    long objects_[64] = {};
};

// ... and Boost.Lockfree's stack with a fixed capacity (no allocation after construction).
class boost_stack {
public:
    explicit boost_stack(int n) {
        for (int i = 0; i < n; ++i) stack_.bounded_push(&objects_[i]);
    }
    void* pop() {
        void* p = nullptr;
        return stack_.pop(p) ? p : nullptr;
    }
    void push(void* p) { stack_.bounded_push(p); }

private:
    boost::lockfree::stack<void*, boost::lockfree::capacity<64>> stack_;
    long objects_[64] = {};
};

template <class Pool>
void bm_contention_peer(benchmark::State& state) {
    static Pool* pool = nullptr;
    if (state.thread_index() == 0) pool = new Pool(state.threads());
    contention_rounds(state, pool);
    if (state.thread_index() == 0) {
        delete pool;
        pool = nullptr;
    }
}

// ----- pop on an empty pool: the whole walk -----

// Possible masks with holes: every fourth CPU impossible, over 16, 32 and 64 ids; and 64 ids
// with a single hole.
cpumask every_fourth_missing(unsigned span) {
    cpumask m = cpumask::first_n(span);
    for (unsigned c = 3; c < span; c += 4) m.clear(c);
    return m;
}
cpumask walk_masks(int i) {
    switch (i) {
        case 0:
            return every_fourth_missing(16);
        case 1:
            return every_fourth_missing(32);
        case 2:
            return every_fourth_missing(64);
        default: {
            cpumask m = cpumask::first_n(64);
            m.clear(5);
            return m;
        }
    }
}

template <class V>
void bm_empty_walk(benchmark::State& state, cpumask possible) {
    E::configure(possible);
    objpool<E, V> pool;
    const int n = static_cast<int>(possible.weight());
    if (pool.init(n, 64, nullptr, nullptr, nullptr) != 0) return state.SkipWithError("init");
    E::cpu_scope cpu(0);
    void* held[cpumask::max_cpus];
    int nheld = 0;
    while (void* o = pool.pop()) held[nheld++] = o;  // empty every slot
    cpu_meter meter(state);
    for (auto _ : state) benchmark::DoNotOptimize(pool.pop());
    meter.done(state.iterations());
    for (int i = 0; i < nheld; ++i) pool.push(held[i]);
    pool.fini();
}

const int registered = [] {
    add_group({"objpool_pop_push", "objpool pop+push, one thread, 64 objects, 4 possible CPUs",
               "v6.15", "threads"});
    add_group({"objpool_contention",
               "objpool under contention: one object per thread, each round pops two and pushes "
               "them back (steals, empty-slot walks, objects drifting between CPUs)",
               "v6.15", "threads", true});
    add_group({"objpool_empty_walk",
               "pop on an empty pool (every possible CPU visited), possible masks with holes",
               "v6.7", "possible CPUs", true});

    objpool_good_variants::for_each([](auto tag) {
        using V = typename decltype(tag)::type;
        add("objpool_pop_push", V::name, 1, 1, bm_pop_push<V>);
        for (int t = 1; t <= 4; ++t) add("objpool_contention", V::name, t, t, bm_contention<V>);
        for (int i = 0; i < 4; ++i) {
            const cpumask m = walk_masks(i);
            add("objpool_empty_walk", V::name, static_cast<int>(m.weight()), 1,
                [m](benchmark::State& s) { bm_empty_walk<V>(s, m); });
        }
    });
    add("objpool_pop_push", objpool_local_cas_on_v6_15::name, 1, 1,
        bm_pop_push<objpool_local_cas_on_v6_15>);
    add("objpool_pop_push", "handwritten-v6.15", 1, 1, bm_pop_push_handwritten<false>);
    add("objpool_pop_push", "handwritten-local-cas-on-v6.15", 1, 1, bm_pop_push_handwritten<true>);
    for (int t = 1; t <= 4; ++t) {
        add("objpool_contention", "mutex-free-list", t, t, bm_contention_peer<mutex_free_list>);
        add("objpool_contention", "boost-lockfree-stack", t, t, bm_contention_peer<boost_stack>);
    }

    add_claim({"objpool_pop_push", "v6.15", 1, "handwritten-v6.15",
               "Issue 9: the Env layer costs at most 10% (v6.15 on real_env against the same "
               "protocol written by hand on std::atomic: ratio <= 1.10)"});
    add_claim({"objpool_pop_push", "local-cas-on-v6.15", 1, "handwritten-local-cas-on-v6.15",
               "Issue 9, for the first seed's reservation: real_env's local-cas (on v6.15's walk) "
               "against the same protocol by hand (measured earlier: 1.28x to 1.32x)"});
    add_claim({"objpool_pop_push", "local-cas", 1, "v6.7",
               "Seed 1 (CPU-local cmpxchg reservation in push, on v6.7): 1.019x kernel "
               "throughput, and 16.46 vs 15.63 cycles by static analysis: expected ratio ~0.95 "
               "to ~0.98 against v6.7, the version it was written on"});
    add_claim({"objpool_pop_push", "local-cas-on-v6.15", 1, "v6.15",
               "Seed 1's reservation alone, on v6.15's walk: the same direction, below 1"});
    add_claim({"objpool_empty_walk", "v6.10", 48, "v6.7",
               "Seed 3 (cached possible-CPU count, v6.10): +1.7% on a kretprobe benchmark; here "
               "pop's whole walk over 48 possible CPUs of 64 ids against v6.7's count per step. "
               "Our count is one POPCNT of a 64-bit mask; the kernel's counts every word of "
               "its cpumask, up to NR_CPUS bits, so this can only show a lower bound"});
    return 0;
}();

}  // namespace
}  // namespace kverify::bench
