// SPDX-License-Identifier: GPL-2.0-only
// percpu_counter on real_env (issue 9, measurements 3 and 4):
// - pcc_add: add_batch in a tight loop, one thread, every sound variant against irqsave (the
//   second seed's claim: local-cas takes about half the time);
// - pcc_add_threads: 1..4 threads adding, against one shared atomic counter (LOCK xadd);
// - pcc_sum: sum() against the number of possible CPUs;
// - this_cpu: the per-CPU tiers and the irq save/restore the variants are built from.
// real_env's irq save reads the flags register and its restore writes it back (pushf, popf), the
// user-mode part of the kernel's x86 sequence; the kernel's cli and sti are not run (privileged),
// so irqsave is still cheaper here than in the kernel. Variants come from
// impl/percpu_counter.hpp's list of sound variants, so new ones appear here.
#include <atomic>
#include <cstdint>

#include "impl/percpu_counter.hpp"
#include "impl/real_env.hpp"
#include "tests/bench/bench.hpp"

namespace kverify::bench {
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
    cpu_meter meter(state);  // Google Benchmark's start barrier orders init before any add
    for (auto _ : state) counter->add_batch(amount_for(i++), 32);
    meter.done(state.iterations());
    if (state.thread_index() == 0) {  // after the end barrier: nobody adds any more
        benchmark::DoNotOptimize(counter->sum());
        delete counter;
        counter = nullptr;
    }
}

// What a user might pick instead: one shared counter, every add a LOCK xadd.
void bm_add_shared_atomic(benchmark::State& state) {
    static std::atomic<std::int64_t> counter{0};
    std::uint64_t i = 0;
    cpu_meter meter(state);
    for (auto _ : state)
        counter.fetch_add(amount_for(i++), std::memory_order_relaxed);  // a count, orders nothing
    meter.done(state.iterations());
}

void bm_sum(benchmark::State& state, unsigned cpus) {
    E::configure(cpumask::first_n(cpus));
    percpu_counter<E, pcc_local_cas> counter;
    counter.init(0);
    E::cpu_scope cpu(0);
    cpu_meter meter(state);
    for (auto _ : state) benchmark::DoNotOptimize(counter.sum());
    meter.done(state.iterations());
}

// ----- the per-CPU tiers -----

void bm_this_cpu_add(benchmark::State& state) {
    static E::percpu<std::int32_t> p;
    E::cpu_scope cpu(0);
    cpu_meter meter(state);
    for (auto _ : state) E::this_cpu_add(p, 1);
    meter.done(state.iterations());
}
void bm_this_cpu_cmpxchg(benchmark::State& state) {
    static E::percpu<std::int32_t> p;
    E::cpu_scope cpu(0);
    std::int32_t old = E::this_cpu_read(p);
    cpu_meter meter(state);
    for (auto _ : state)
        while (!E::this_cpu_try_cmpxchg(p, old, old + 1)) {
        }
    meter.done(state.iterations());
}
void bm_irqsave_add(benchmark::State& state) {
    static E::percpu<std::int32_t> p;
    E::cpu_scope cpu(0);
    cpu_meter meter(state);
    for (auto _ : state) {
        irq_save_guard<E> g;
        E::this_cpu_add_nocheck(p, 1);
    }
    meter.done(state.iterations());
}
void bm_irq_save_restore(benchmark::State& state) {
    E::cpu_scope cpu(0);
    cpu_meter meter(state);
    for (auto _ : state) {
        const E::irq_flags f = E::local_irq_save();
        E::local_irq_restore(f);
    }
    meter.done(state.iterations());
}
void bm_smp_cas(benchmark::State& state) {
    static E::atomic<std::int32_t> a{0};
    std::int32_t old = E::read_once(a);
    cpu_meter meter(state);
    for (auto _ : state)
        while (!E::try_cmpxchg(a, old, old + 1)) {
        }
    meter.done(state.iterations());
}

const int registered = [] {
    add_group({"pcc_add", "percpu_counter add_batch in a tight loop, one thread, batch 32",
               "irqsave", "threads"});
    add_group({"pcc_add_threads",
               "percpu_counter add_batch, 1..4 threads each on its own CPU, against one shared "
               "atomic counter",
               "irqsave", "threads", true});
    add_group({"pcc_sum", "percpu_counter sum() (lock, irqs off, every CPU's delta)", "",
               "possible CPUs", true});
    add_group({"this_cpu", "per-CPU tiers and irq save/restore on real_env, one thread",
               "irqsave+__this_cpu_add", "threads"});

    pcc_sound_variants::for_each([](auto tag) {
        using V = typename decltype(tag)::type;
        add("pcc_add", V::name, 1, 1, bm_add<V>);
    });
    for (int t = 1; t <= 4; ++t) {
        add("pcc_add_threads", pcc_irqsave::name, t, t, bm_add<pcc_irqsave>);
        add("pcc_add_threads", pcc_local_cas::name, t, t, bm_add<pcc_local_cas>);
        add("pcc_add_threads", "shared-atomic", t, t, bm_add_shared_atomic);
    }
    for (unsigned cpus : {4u, 8u, 16u, 32u, 64u})
        add("pcc_sum", "sum", static_cast<int>(cpus), 1,
            [cpus](benchmark::State& s) { bm_sum(s, cpus); });
    add("this_cpu", "this_cpu_add", 1, 1, bm_this_cpu_add);
    add("this_cpu", "this_cpu_try_cmpxchg", 1, 1, bm_this_cpu_cmpxchg);
    add("this_cpu", "irqsave+__this_cpu_add", 1, 1, bm_irqsave_add);
    add("this_cpu", "irq_save+irq_restore", 1, 1, bm_irq_save_restore);
    add("this_cpu", "try_cmpxchg(LOCK)", 1, 1, bm_smp_cas);

    add_claim({"pcc_add", "local-cas", 1, "",
               "Seed 2 (add_batch by this_cpu_cmpxchg instead of irq save): about 1% on a "
               "syscall benchmark (not measured here) and about half the time in a tight loop: "
               "expected ratio ~0.5 against irqsave"});
    return 0;
}();

}  // namespace
}  // namespace kverify::bench
