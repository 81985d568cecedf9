// SPDX-License-Identifier: GPL-2.0-only
// Configurations for `kverify orders` (issue 19) that the other percpu_counter checks do not
// reach: an interrupt that folds on the CPU where a task holds the lock in sum() or in
// cpu_dead(). Both take it with irqs off; the other checks run them only where no interrupt
// that folds can land (a CPU without IRQs, IRQs that add too little to fold, or the quiescent
// check, run by the harness). With the lock taken with spin_lock alone, the IRQ's add on that
// CPU folds, spins on the lock its own CPU holds, and the task under it never runs again: a
// self-deadlock (proofs/percpu_counter.md, "Which orderings are needed").
// And for fix-limited-add, what its limited_add's irq-save is for once the seqcount has made an
// IRQ's precise step inside the shortcut harmless (`one-cpu-irq` and `limited-neg-one-cpu-irq`
// pass with the irq-save weakened; local-cas fails them): an IRQ that takes the lock while the
// task holds it in the precise step (`limited-irq-locked`), and an IRQ's shortcut between the
// task's read of its delta and its add (`limited-irq-shortcut`: |delta| > batch). The scenario
// is percpu_counter_scenario.hpp.
#include "tests/model/percpu_counter/percpu_counter_scenario.hpp"

namespace kverify::model {
inline namespace KVERIFY_ENGINE_NS {
namespace pcc {
namespace {

template <class V, unsigned T>
void reg(const char* config, const std::string& what, const params& p) {
    register_variant_check<V, T>(config, what, p);
}

void register_checks() {
    // irq-sum: one CPU sums while an IRQ on it adds +5, beyond the batch: the IRQ folds.
    params p;
    p.kernel.possible = p.kernel.online = cpumask::first_n(1);
    p.kernel.irq_budget[0] = 1;
    p.task[0] = {sum()};
    p.irq[0] = {add(5)};
    const char* what = "1 cpu, batch 4, sum(), 1 IRQ adding +5 (it folds)";
    reg<pcc_irqsave, 1>("irq-sum", what, p);
    reg<pcc_local_cas, 1>("irq-sum", what, p);
    reg<pcc_local_cas_preempt_off, 1>("irq-sum", what, p);
    reg<pcc_fix_limited_add, 1>("irq-sum", what, p);
    // dead-irq-fold: cpu1 adds +3 and finishes; cpu0 takes it down while an IRQ on cpu0 adds
    // +5, which folds (hotplug-irq's IRQs add +2 and never fold).
    params q;
    q.kernel.possible = q.kernel.online = cpumask::first_n(2);
    q.kernel.irq_budget[0] = 1;
    q.task[0] = {wait_for(1), mark_dying(1), go_offline(1), cpu_dead(1)};
    q.task[1] = {add(3)};
    q.irq[0] = {add(5)};
    const char* dead =
        "2 cpus, batch 4, cpu1 adds +3, then cpu0 takes it down; 1 IRQ on cpu0 "
        "adding +5 (it folds)";
    reg<pcc_irqsave, 2>("dead-irq-fold", dead, q);
    reg<pcc_local_cas, 2>("dead-irq-fold", dead, q);
    reg<pcc_local_cas_preempt_off, 2>("dead-irq-fold", dead, q);
    reg<pcc_fix_limited_add, 2>("dead-irq-fold", dead, q);
    // Its twin, which must fail: the one fold here is the IRQ's, and this mutant's fold drops its
    // amount. Under the LKMM cpu0 may run its IRQ before cpu1's add, whose completion it read:
    // the sound rows' pass there means that IRQ's add was judged (its record has a fixed slot,
    // percpu_counter_scenario.hpp), not that it went unseen.
    reg<pcc_mut_fold_drops_amount, 2>("dead-irq-fold", dead, q);

    // limited-irq-locked: cpu0's task adds +5, beyond the batch: step 2 cannot decide (5 - 8 <=
    // 10 < 5 + 8), so the precise step runs with the lock held and the sequence count odd. An
    // IRQ on cpu0 adds +1: its shortcut sees the odd count (or, before it, passes) and goes to
    // the lock. Both fit (6 <= 10).
    params l;
    l.kernel.possible = l.kernel.online = cpumask::first_n(2);  // unknown = 4 x 2 = 8
    l.delta_bound = bound::inclusive;  // limited_add keeps |delta| <= batch
    l.kernel.irq_budget[0] = 1;
    l.task[0] = {limited_add(10, 5)};
    l.irq[0] = {limited_add(10, 1)};
    reg<pcc_fix_limited_add, 1>("limited-irq-locked",
                                "2 cpus online, batch 4, limit 10: cpu0 task +5 (the precise "
                                "step), IRQ +1",
                                l);
    // limited-irq-shortcut: cpu0's task +2 and an IRQ on cpu0 +3, both by the shortcut (limit
    // 100): each alone keeps |delta| <= 4, but an IRQ between the task's read of the delta (0)
    // and its add leaves 3 + 2 = 5.
    params s = l;
    s.task[0] = {limited_add(100, 2)};
    s.irq[0] = {limited_add(100, 3)};
    reg<pcc_fix_limited_add, 1>("limited-irq-shortcut",
                                "2 cpus online, batch 4, limit 100: cpu0 task +2, IRQ +3", s);
}

const registrar reg_checks(register_checks);

}  // namespace
}  // namespace pcc
}  // namespace KVERIFY_ENGINE_NS
}  // namespace kverify::model
