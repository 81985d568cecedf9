// SPDX-License-Identifier: GPL-2.0-only
// pop+push pairs per objpool variant on real_env (the kretprobe fast path), as ratios to v6.15
// in the same run: what the local-cas seed saves on the reservation, what the per-pop popcount
// of v6.7 costs, what the proposed acquire of `last` costs.
#include <benchmark/benchmark.h>

#include "impl/objpool.hpp"
#include "impl/real_env.hpp"

namespace kverify {
namespace {

using E = real_env;

template <class V>
void bm_pop_push(benchmark::State& state) {
    static objpool<E, V>* pool = nullptr;
    if (state.thread_index() == 0) {
        E::configure(cpumask::first_n(4));
        pool = new objpool<E, V>();
        if (pool->init(64, 64, nullptr, nullptr, nullptr) != 0) state.SkipWithError("init");
    }
    E::cpu_scope cpu(static_cast<unsigned>(state.thread_index()));
    for (auto _ : state) {
        void* obj = pool->pop();
        if (obj != nullptr) pool->push(obj);
        benchmark::DoNotOptimize(obj);
    }
    state.SetItemsProcessed(state.iterations());
    if (state.thread_index() == 0) {
        pool->fini();
        delete pool;
        pool = nullptr;
    }
}

template <class V>
void register_variant(const char* group, int threads) {
    benchmark::RegisterBenchmark((std::string(group) + "/" + V::name).c_str(), bm_pop_push<V>)
        ->Threads(threads)
        ->UseRealTime();
}

const int registered = [] {
    register_variant<objpool_v6_15>("objpool_pop_push", 1);
    register_variant<objpool_v6_7>("objpool_pop_push", 1);
    register_variant<objpool_v6_10>("objpool_pop_push", 1);
    register_variant<objpool_local_cas>("objpool_pop_push", 1);
    register_variant<objpool_fix_acquire_last>("objpool_pop_push", 1);
    register_variant<objpool_v6_15>("objpool_pop_push_2cpu", 2);
    register_variant<objpool_local_cas>("objpool_pop_push_2cpu", 2);
    register_variant<objpool_fix_acquire_last>("objpool_pop_push_2cpu", 2);
    return 0;
}();

}  // namespace
}  // namespace kverify
