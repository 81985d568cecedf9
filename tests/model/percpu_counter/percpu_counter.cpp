// SPDX-License-Identifier: GPL-2.0-only
// Model checks of impl/percpu_counter.hpp add_batch, every variant: the batch bound, the exact
// sum, 0-or-1 counting in sum(), compare()/read() against sum() and s32 safety, with an IRQ
// adding on the same CPU, a migration between the read and the cmpxchg, and two CPUs folding
// while a third reads. Hotplug and limited_add are in percpu_counter_hotplug.cpp and
// percpu_counter_limited.cpp; the scenario is percpu_counter_scenario.hpp; expected verdicts are
// rows of proofs/expected/verdicts.tsv; the argument is proofs/percpu_counter.md.
#include "tests/model/percpu_counter/percpu_counter_scenario.hpp"

namespace kverify {

// Two more single-line mutants, test-only (the knobs of impl/percpu_counter.hpp are enough to
// build them here). Each is kept to prove the checker finds a named bug; never for use.

// The fold test off by one (`>` for `>=`): an add may leave the delta at exactly the batch.
struct pcc_mut_fold_gt : pcc_local_cas {
    static constexpr const char* name = "mut-fold-gt";
    static constexpr bool known_bad = true;
    static constexpr pcc_exposure exposure = pcc_exposure::sequential;
    static constexpr const char* bug = "batch bound: the delta reaches the batch";
    static constexpr bool must_fold(std::int64_t local_plus_amount, std::int32_t batch) noexcept {
        return detail::pcc_abs(local_plus_amount) > batch;
    }
};

// The RFC's non-irq-safe __this_cpu_cmpxchg without the RFC's preempt_disable: the kernel's
// debug-preempt check fires on the first add, before anything is lost.
struct pcc_mut_nocheck_preemptible : pcc_rfc {
    static constexpr const char* name = "mut-nocheck-preemptible";
    static constexpr const char* bug = "debug-preempt: __this_cpu_cmpxchg in preemptible code";
    static constexpr bool preempt_off = false;
};

}  // namespace kverify

namespace kverify::model {
inline namespace KVERIFY_ENGINE_NS {
namespace pcc {
namespace {

kernel_config cpus(unsigned n) {
    kernel_config k;
    k.possible = k.online = cpumask::first_n(n);
    return k;
}

template <class V, unsigned T>
void reg(const char* config, const std::string& what, const params& p) {
    register_variant_check<V, T>(config, what, p);
}

// The variants that every add_batch configuration runs on, and the two test-only mutants.
template <unsigned T, class F>
void for_all_variants(F&& f) {
    pcc_all_variants::for_each([&](auto tag) { f(tag); });
    f(pcc_tag<pcc_mut_fold_gt>{});
    f(pcc_tag<pcc_mut_nocheck_preemptible>{});
}

constexpr s32 max_b = pcc_max_batch;

void register_checks() {
    // seq: one CPU, nothing else: the sequential mutants fail, every other variant passes.
    {
        params p;
        p.kernel = cpus(1);
        p.task[0] = {add(3), add(1), add(2), add(-3), add(-3)};
        for_all_variants<1>([&](auto tag) {
            using V = typename decltype(tag)::type;
            reg<V, 1>("seq", "1 cpu, batch 4, adds +3 +1 +2 -3 -3, no IRQ", p);
        });
    }
    // seq-quiescent: +3 +1 +2 with the probe off: the quiescent checks alone still see a
    // delta that never folds (6: read() too far from sum()).
    {
        params p;
        p.kernel = cpus(1);
        p.task[0] = {add(3), add(1), add(2)};
        p.probe = false;
        p.check_compare = false;
        const char* what = "1 cpu, batch 4, adds +3 +1 +2, only quiescent checks";
        reg<pcc_local_cas, 1>("seq-quiescent", what, p);
        reg<pcc_mut_misplaced_paren, 1>("seq-quiescent", what, p);
    }
    // irq: an IRQ on the adding CPU adds +3 at any point of the task's adds.
    {
        params p;
        p.kernel = cpus(1);
        p.kernel.irq_budget[0] = 1;
        p.task[0] = {add(3), add(1), add(-2)};
        p.irq[0] = {add(3)};
        for_all_variants<1>([&](auto tag) {
            using V = typename decltype(tag)::type;
            reg<V, 1>("irq", "1 cpu, batch 4, adds +3 +1 -2, 1 IRQ adding +3", p);
        });
    }
    // irq-opposite: the IRQ adds -5, opposite in sign to the delta and beyond the batch, which
    // stays on its fast path only when the delta it meets is positive.
    {
        params p;
        p.kernel = cpus(1);
        p.kernel.irq_budget[0] = 1;
        p.task[0] = {add(3), add(1)};
        p.irq[0] = {add(-5)};
        const char* what = "1 cpu, batch 4, adds +3 +1, 1 IRQ adding -5";
        reg<pcc_preempt_only, 1>("irq-opposite", what, p);
        reg<pcc_irqsave, 1>("irq-opposite", what, p);
        reg<pcc_local_cas, 1>("irq-opposite", what, p);
        reg<pcc_local_cas_preempt_off, 1>("irq-opposite", what, p);
        reg<pcc_mut_stale_local, 1>("irq-opposite", what, p);
    }
    // irq-compare: the bound unchecked, so the quiescent compare() meets preempt-only's
    // oversized delta.
    {
        params p;
        p.kernel = cpus(1);
        p.kernel.irq_budget[0] = 1;
        p.task[0] = {add(3)};
        p.irq[0] = {add(3)};
        p.delta_bound = bound::none;
        const char* what = "1 cpu, batch 4, add +3, 1 IRQ adding +3, compare() at quiescence";
        reg<pcc_preempt_only, 1>("irq-compare", what, p);
        reg<pcc_local_cas, 1>("irq-compare", what, p);
    }
    // irq-weak-bound: preempt-only keeps |delta| < 3 x batch and the exact sum with one IRQ,
    // here at the worst case (-3, then +6 with +6 arriving in the window: 9 = 3 x 4 - 3)...
    {
        params p;
        p.kernel = cpus(1);
        p.kernel.irq_budget[0] = 1;
        p.task[0] = {add(-3), add(6)};
        p.irq[0] = {add(6)};
        p.delta_bound = bound::triple;
        p.check_compare = false;
        reg<pcc_preempt_only, 1>("irq-weak-bound",
                                 "1 cpu, batch 4, adds -3 +6, 1 IRQ adding +6, |delta| < 12", p);
    }
    // ...irq2-weak-bound: but not with a second IRQ in a later add's window: a fold subtracts
    // the 9 it read after the IRQ replaced it by -3, leaving -12.
    {
        params p;
        p.kernel = cpus(1);
        p.kernel.irq_budget[0] = 2;
        p.task[0] = {add(-3), add(6), add(1)};
        p.irq[0] = {add(6), add(-12)};
        p.delta_bound = bound::triple;
        p.check_compare = false;
        const char* what = "1 cpu, batch 4, adds -3 +6 +1, 2 IRQs adding +6 then -12";
        reg<pcc_preempt_only, 1>("irq2-weak-bound", what, p);
        params q = p;
        q.delta_bound = bound::strict;
        q.check_compare = true;
        reg<pcc_irqsave, 1>("irq2", what, q);
        reg<pcc_local_cas, 1>("irq2", what, q);
        // The grown delta still holds every add exactly: preempt-only loses nothing.
        params r = p;
        r.delta_bound = bound::none;
        reg<pcc_preempt_only, 1>("irq2-exact-sum", what, r);
    }
    // mig: a preemptible local-cas add may migrate once, anywhere; CPU 1 holds -3 meanwhile.
    {
        params p;
        p.kernel = cpus(2);
        p.kernel.migration_budget = 1;
        p.task[0] = {add(3), add(1)};
        p.task[1] = {add(-3)};
        const char* what = "2 cpus, batch 4, cpu0 adds +3 +1, cpu1 adds -3, 1 migration";
        reg<pcc_local_cas, 2>("mig", what, p);
        reg<pcc_local_cas_preempt_off, 2>("mig", what, p);
        reg<pcc_mut_stale_local, 2>("mig", what, p);
        reg<pcc_mut_write_back, 2>("mig", what, p);
    }
    // smp: both CPUs fold at about the same time; CPU 1 then sums while CPU 0 may still fold.
    {
        params p;
        p.kernel = cpus(2);
        p.task[0] = {add(3), add(1)};
        p.task[1] = {add(-3), add(-1), sum()};
        const char* what = "2 cpus, batch 4, cpu0 adds +3 +1, cpu1 adds -3 -1 then sum()";
        reg<pcc_local_cas, 2>("smp", what, p);
        reg<pcc_irqsave, 2>("smp", what, p);
        reg<pcc_preempt_only, 2>("smp", what, p);
        reg<pcc_mut_unlocked_fold, 2>("smp", what, p);
    }
    // smp-folds: the two folds alone; the quiescent sum sees a lost one.
    {
        params p;
        p.kernel = cpus(2);
        p.task[0] = {add(3), add(1)};
        p.task[1] = {add(-3), add(-1)};
        const char* what = "2 cpus, batch 4, cpu0 adds +3 +1, cpu1 adds -3 -1";
        reg<pcc_local_cas, 2>("smp-folds", what, p);
        reg<pcc_mut_unlocked_fold, 2>("smp-folds", what, p);
    }
    // smp3-irq (too big to search exhaustively: bounded and sampled rows): three CPUs adding and
    // folding, one also summing, an IRQ adding +2 on each.
    {
        params p;
        p.kernel = cpus(3);
        for (unsigned c = 0; c < 3; ++c) {
            p.kernel.irq_budget[c] = 1;
            p.irq[c] = {add(2)};
        }
        p.task[0] = {add(3), add(1)};
        p.task[1] = {add(-3), add(-1)};
        p.task[2] = {add(1), sum()};
        const char* what =
            "3 cpus, batch 4, adds +3 +1 | -3 -1 | +1 sum(), 1 IRQ adding +2 per cpu";
        reg<pcc_local_cas, 3>("smp3-irq", what, p);
        reg<pcc_irqsave, 3>("smp3-irq", what, p);
        reg<pcc_local_cas_preempt_off, 3>("smp3-irq", what, p);
        reg<pcc_preempt_only, 3>("smp3-irq", what, p);
        reg<pcc_rfc, 3>("smp3-irq", what, p);
        reg<pcc_mut_write_back, 3>("smp3-irq", what, p);
        reg<pcc_mut_unlocked_fold, 3>("smp3-irq", what, p);
    }
    // mig2-irq (bounded and sampled rows): two migrations and an IRQ adding +2 on each CPU.
    {
        params p;
        p.kernel = cpus(2);
        p.kernel.migration_budget = 2;
        for (unsigned c = 0; c < 2; ++c) {
            p.kernel.irq_budget[c] = 1;
            p.irq[c] = {add(2)};
        }
        p.task[0] = {add(3), add(1)};
        p.task[1] = {add(-3), add(-1)};
        const char* what =
            "2 cpus, batch 4, adds +3 +1 | -3 -1, 2 migrations, 1 IRQ adding +2 per cpu";
        reg<pcc_local_cas, 2>("mig2-irq", what, p);
        reg<pcc_local_cas_preempt_off, 2>("mig2-irq", what, p);
        reg<pcc_mut_stale_local, 2>("mig2-irq", what, p);
        reg<pcc_mut_write_back, 2>("mig2-irq", what, p);
    }
    // smp-reader: a reader's sum() against a fold in flight on another CPU, nothing else.
    {
        params p;
        p.kernel = cpus(2);
        p.task[0] = {add(3), add(1)};
        p.task[1] = {sum()};
        const char* what = "2 cpus, batch 4, cpu0 adds +3 +1, cpu1 sum()";
        reg<pcc_local_cas, 2>("smp-reader", what, p);
        reg<pcc_mut_unlocked_fold, 2>("smp-reader", what, p);
    }
    // s32: the largest batch the precondition allows. With one IRQ the worst delta of
    // preempt-only is 3 x batch - 3 = INT32_MAX - 4; sound variants keep it below the batch.
    {
        params p;
        p.kernel = cpus(1);
        p.kernel.irq_budget[0] = 1;
        p.batch = max_b;
        p.task[0] = {add(-(max_b - 1)), add(2 * s64{max_b} - 2)};
        p.irq[0] = {add(2 * s64{max_b} - 2)};
        const char* what = "1 cpu, batch INT32_MAX/3, adds -(b-1) +(2b-2), 1 IRQ adding 2b-2";
        reg<pcc_local_cas, 1>("s32-max-batch-irq", what, p);
        reg<pcc_irqsave, 1>("s32-max-batch-irq", what, p);
        params q = p;
        q.delta_bound = bound::triple;
        q.check_compare = false;
        reg<pcc_preempt_only, 1>("s32-max-batch-irq", what, q);
    }
    // ...and a delta that never folds wraps s32 after four adds of b - 1: caught at quiescence.
    {
        params p;
        p.kernel = cpus(1);
        p.batch = max_b;
        p.task[0] = {add(max_b - 1), add(max_b - 1), add(max_b - 1), add(max_b - 1)};
        const char* what = "1 cpu, batch INT32_MAX/3, four adds of b-1";
        reg<pcc_local_cas, 1>("s32-max-batch", what, p);
        params q = p;
        q.delta_bound = bound::none;
        q.check_compare = false;
        reg<pcc_mut_misplaced_paren, 1>("s32-max-batch", what, q);
    }
}

const registrar reg_checks(register_checks);

}  // namespace
}  // namespace pcc
}  // namespace KVERIFY_ENGINE_NS
}  // namespace kverify::model
