// SPDX-License-Identifier: GPL-2.0-only
// add_batch cost per variant on real_env: the claim behind "replace local_irq_save with
// this_cpu_cmpxchg" is a speed claim; it is measured here against irqsave in the same run.
// Also the raw per-CPU tiers the variants are built from.
#include <benchmark/benchmark.h>

#include "impl/percpu_counter.hpp"
#include "impl/real_env.hpp"

namespace kverify {
namespace {

using E = real_env;

// Small amounts with a mix of signs, folding now and then (batch 32).
constexpr std::int64_t amount_for(std::uint64_t i) { return (i % 7 == 0) ? -3 : 1; }

template <class V>
void bm_add(benchmark::State& state) {
    static percpu_counter<E, V>* counter = nullptr;
    if (state.thread_index() == 0) {
        E::configure(cpumask::first_n(4));
        counter = new percpu_counter<E, V>();
        counter->init(0);
    }
    E::cpu_scope cpu(static_cast<unsigned>(state.thread_index()));
    std::uint64_t i = 0;
    for (auto _ : state) counter->add_batch(amount_for(i++), 32);
    state.SetItemsProcessed(state.iterations());
    if (state.thread_index() == 0) {
        // Every thread has left the loop (benchmark's barrier) and no longer touches counter.
        benchmark::DoNotOptimize(counter->sum());
        delete counter;
        counter = nullptr;
    }
}

template <class V>
void register_add(const char* group, int threads) {
    auto* b = benchmark::RegisterBenchmark((std::string(group) + "/" + V::name).c_str(), bm_add<V>);
    b->Threads(threads)->UseRealTime();
}

void bm_this_cpu_add(benchmark::State& state) {
    static E::percpu<std::int32_t> p;
    E::cpu_scope cpu(0);
    for (auto _ : state) E::this_cpu_add(p, 1);
    benchmark::DoNotOptimize(E::per_cpu_read(p, 0));
}
void bm_this_cpu_cmpxchg(benchmark::State& state) {
    static E::percpu<std::int32_t> p;
    E::cpu_scope cpu(0);
    std::int32_t old = E::this_cpu_read(p);
    for (auto _ : state)
        while (!E::this_cpu_try_cmpxchg(p, old, old + 1)) {}
    benchmark::DoNotOptimize(E::per_cpu_read(p, 0));
}
void bm_irqsave_add(benchmark::State& state) {
    static E::percpu<std::int32_t> p;
    E::cpu_scope cpu(0);
    for (auto _ : state) {
        irq_save_guard<E> g;
        E::this_cpu_add_nocheck(p, 1);
    }
    benchmark::DoNotOptimize(E::per_cpu_read(p, 0));
}
void bm_smp_cas(benchmark::State& state) {
    static E::atomic<std::int32_t> a{0};
    std::int32_t old = E::read_once(a);
    for (auto _ : state)
        while (!E::try_cmpxchg(a, old, old + 1)) {}
    benchmark::DoNotOptimize(E::peek(a));
}

const int registered = [] {
    benchmark::RegisterBenchmark("this_cpu/this_cpu_add", bm_this_cpu_add);
    benchmark::RegisterBenchmark("this_cpu/this_cpu_try_cmpxchg", bm_this_cpu_cmpxchg);
    benchmark::RegisterBenchmark("this_cpu/irqsave+__this_cpu_add", bm_irqsave_add);
    benchmark::RegisterBenchmark("this_cpu/try_cmpxchg(LOCK)", bm_smp_cas);
    register_add<pcc_irqsave>("pcc_add", 1);
    register_add<pcc_local_cas>("pcc_add", 1);
    register_add<pcc_preempt_only>("pcc_add", 1);
    register_add<pcc_rfc>("pcc_add", 1);
    register_add<pcc_irqsave>("pcc_add_2cpu", 2);
    register_add<pcc_local_cas>("pcc_add_2cpu", 2);
    return 0;
}();

}  // namespace
}  // namespace kverify
