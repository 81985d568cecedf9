// SPDX-License-Identifier: GPL-2.0-only
// Model checks of impl/percpu_counter.hpp across CPU hotplug: a CPU holding a delta goes down
// (marked dying, leaves the online mask, then cpu_dead() folds it under the lock) while a reader
// on another CPU sums. The dying CPU's task has finished its adds first (a dead CPU runs
// nothing); the reader waits for them too, so they happen before its sum(), which must count
// them exactly once wherever the hotplug steps fall. The scenario is percpu_counter_scenario.hpp.
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
    // hotplug-min: cpu1 adds +3 and finishes; cpu2 takes it down while cpu0 sums.
    {
        params p;
        p.kernel.possible = p.kernel.online = cpumask::first_n(3);
        p.task[0] = {wait_for(1), sum()};
        p.task[1] = {add(3)};
        p.task[2] = {wait_for(1), mark_dying(1), go_offline(1), cpu_dead(1)};
        const char* what =
            "3 cpus, batch 4, cpu1 adds +3 then goes down (cpu2: dying, offline, cpu_dead) "
            "while cpu0 sums";
        reg<pcc_local_cas, 3>("hotplug-min", what, p);
        reg<pcc_irqsave, 3>("hotplug-min", what, p);
        reg<pcc_preempt_only, 3>("hotplug-min", what, p);
        reg<pcc_mut_sum_skips_dying, 3>("hotplug-min", what, p);
    }
    // hotplug: cpu1 adds +3 and -1 (its delta ends at 2), then cpu2 takes it down while cpu0,
    // which added +1 itself, sums. Every add happens before the sum().
    {
        params p;
        p.kernel.possible = p.kernel.online = cpumask::first_n(3);
        p.task[0] = {add(1), wait_for(1), sum()};
        p.task[1] = {add(3), add(-1)};
        p.task[2] = {wait_for(1), mark_dying(1), go_offline(1), cpu_dead(1)};
        const char* what =
            "3 cpus, batch 4, cpu1 adds +3 -1 then goes down (cpu2: dying, offline, cpu_dead) "
            "while cpu0 (+1) sums";
        reg<pcc_local_cas, 3>("hotplug", what, p);
        reg<pcc_irqsave, 3>("hotplug", what, p);
        reg<pcc_preempt_only, 3>("hotplug", what, p);
        reg<pcc_mut_sum_skips_dying, 3>("hotplug", what, p);
    }
    // hotplug-irq (bounded and sampled rows): the same with an IRQ adding +2 on the reader's CPU
    // and on the CPU doing the hotplug steps, and one on the dying CPU before it goes down.
    {
        params p;
        p.kernel.possible = p.kernel.online = cpumask::first_n(3);
        for (unsigned c = 0; c < 3; ++c) {
            p.kernel.irq_budget[c] = 1;
            p.irq[c] = {add(2)};
        }
        p.task[0] = {add(1), wait_for(1), sum()};
        p.task[1] = {add(3), add(-1)};
        p.task[2] = {wait_for(1), mark_dying(1), go_offline(1), cpu_dead(1)};
        const char* what = "hotplug, plus 1 IRQ adding +2 on each cpu";
        reg<pcc_local_cas, 3>("hotplug-irq", what, p);
        reg<pcc_irqsave, 3>("hotplug-irq", what, p);
        reg<pcc_mut_sum_skips_dying, 3>("hotplug-irq", what, p);
    }
    // hotplug-fold-irq (exhaustive on dpor, bounded:1 on Relacy): a fold races cpu_dead and a
    // sum. cpu0 adds +3, waits for cpu1, then adds +2, which folds (5 >= 4) while cpu2 takes
    // cpu1 down, and sums; cpu2 sums after cpu_dead while cpu0's fold may still be in flight.
    // An IRQ adds +2 on each cpu (on cpu0 it moves the fold into the first add or into the IRQ
    // itself).
    {
        params p;
        p.kernel.possible = p.kernel.online = cpumask::first_n(3);
        for (unsigned c = 0; c < 3; ++c) {
            p.kernel.irq_budget[c] = 1;
            p.irq[c] = {add(2)};
        }
        p.task[0] = {add(3), wait_for(1), add(2), sum()};
        p.task[1] = {add(3), add(-1)};
        p.task[2] = {wait_for(1), mark_dying(1), go_offline(1), cpu_dead(1), sum()};
        const char* what =
            "3 cpus, batch 4, cpu1 adds +3 -1 and goes down (cpu2: dying, offline, cpu_dead, "
            "sum) while cpu0 folds (+3, wait, +2) and sums, 1 IRQ adding +2 on each cpu";
        reg<pcc_local_cas, 3>("hotplug-fold-irq", what, p);
        reg<pcc_irqsave, 3>("hotplug-fold-irq", what, p);
        reg<pcc_local_cas_preempt_off, 3>("hotplug-fold-irq", what, p);
        reg<pcc_mut_sum_skips_dying, 3>("hotplug-fold-irq", what, p);
        reg<pcc_mut_unlocked_fold, 3>("hotplug-fold-irq", what, p);
    }
}

const registrar reg_checks(register_checks);

}  // namespace
}  // namespace pcc
}  // namespace KVERIFY_ENGINE_NS
}  // namespace kverify::model
