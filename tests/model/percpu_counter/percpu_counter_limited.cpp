// SPDX-License-Identifier: GPL-2.0-only
// Model checks of impl/percpu_counter.hpp limited_add (v6.7): does the total of the successful
// adds stay within the limit (property 6)? Upstream is known not to keep it; these rows show the
// two ways the checker finds (a shortcut racing with a fold on another CPU, and a CPU in the
// hotplug window), each next to a twin that passes: the same adds on one CPU, and the same
// adds after cpu_dead(). limited_add does not depend on the add_batch variant; v6.7 runs on the
// default one (local-cas, checks named percpu_counter/limited-add/...). Every configuration also
// runs on our repair, fix-limited-add, and its three known-bad twins (checks named
// percpu_counter/<variant>/...). The scenario is percpu_counter_scenario.hpp; the traces are
// explained in proofs/percpu_counter.md.
#include "tests/model/percpu_counter/percpu_counter_scenario.hpp"

namespace kverify::model {
inline namespace KVERIFY_ENGINE_NS {
namespace pcc {
namespace {

// limited_add as merged (v6.7, on local-cas), our repair and its twins.
using limited_variants =
    variant_list<pcc_local_cas, pcc_fix_limited_add, pcc_mut_limited_online_only,
                 pcc_mut_limited_no_bump, pcc_mut_limited_no_mb>;

template <class V>
std::string variant_label() {
    return std::is_same_v<V, pcc_local_cas> ? "limited-add" : V::name;
}

template <class V, unsigned T>
void reg(const char* config, const std::string& what, const params& p) {
    add_check<scenario<V, T>>("percpu_counter/" + variant_label<V>() + "/" + config,
                              "percpu_counter", variant_label<V>(), what, p);
}

params two_cpus() {
    params p;
    p.kernel.possible = p.kernel.online = cpumask::first_n(2);  // unknown = 4 x 2 = 8
    p.delta_bound = bound::inclusive;  // the shortcut keeps |delta| <= batch, not < batch
    return p;
}

template <class V>
void register_variant() {
    // smp-race: cpu0 +2 may take the shortcut (0 + 8 <= 10), cpu1 +9 needs the precise sum
    // (9 - 8 <= 10 < 9 + 8). Both can succeed: 11 > 10.
    {
        params p = two_cpus();
        p.task[0] = {limited_add(10, 2)};
        p.task[1] = {limited_add(10, 9)};
        reg<V, 2>("smp-race", "2 cpus, batch 4, limit 10: cpu0 +2, cpu1 +9", p);
    }
    // one-cpu-irq: the same two adds on one CPU (task +2, IRQ +9): irqs are off across
    // limited_add, so they serialise and one is refused.
    {
        params p = two_cpus();
        p.kernel.nr_tasks = 1;
        p.kernel.irq_budget[0] = 1;
        p.task[0] = {limited_add(10, 2)};
        p.irq[0] = {limited_add(10, 9)};
        reg<V, 1>("one-cpu-irq", "2 cpus online, batch 4, limit 10: cpu0 task +2, cpu0 IRQ +9", p);
    }
    // smp-slow-paths: both amounts beyond the batch: both decide under the lock, exactly.
    {
        params p = two_cpus();
        p.task[0] = {limited_add(10, 5)};
        p.task[1] = {limited_add(10, 6)};
        reg<V, 2>("smp-slow-paths", "2 cpus, batch 4, limit 10: cpu0 +5, cpu1 +6", p);
    }
    // dying-window: cpu1 holds +4 (0 + 8 <= 8), goes dying and offline; before cpu_dead, cpu0
    // adds +4 (0 + 4 <= 8: at the limit) and +1, which step 2 accepts from 1 + 4 <= 8 while
    // the precise total is 9. No concurrency needed: cpu0 waits for cpu1 to finish.
    {
        params p = two_cpus();
        p.task[0] = {wait_for(1),       mark_dying(1),     go_offline(1),
                     limited_add(8, 4), limited_add(8, 1), cpu_dead(1)};
        p.task[1] = {limited_add(8, 4)};
        reg<V, 2>("dying-window",
                  "2 cpus, batch 4, limit 8: cpu1 +4, goes down; cpu0 +4 +1 before "
                  "cpu_dead(1)",
                  p);
    }
    // after-cpu-dead: the same adds once cpu_dead(1) has folded cpu1's delta: +1 is refused.
    {
        params p = two_cpus();
        p.task[0] = {wait_for(1), mark_dying(1),     go_offline(1),
                     cpu_dead(1), limited_add(8, 4), limited_add(8, 1)};
        p.task[1] = {limited_add(8, 4)};
        reg<V, 2>("after-cpu-dead",
                  "2 cpus, batch 4, limit 8: cpu1 +4, goes down; cpu0 +4 +1 after "
                  "cpu_dead(1)",
                  p);
    }
    // delta-at-most-batch / delta-reaches-batch: the shortcut tests |delta + amount| <= batch,
    // so +4 with batch 4 stays in the delta: |delta| <= batch holds, add_batch's < does not.
    {
        params p;
        p.kernel.possible = p.kernel.online = cpumask::first_n(1);
        p.delta_bound = bound::inclusive;
        p.task[0] = {limited_add(100, 4)};
        reg<V, 1>("delta-at-most-batch", "1 cpu, batch 4: limited_add(100, +4), |delta| <= 4", p);
        p.delta_bound = bound::strict;
        reg<V, 1>("delta-reaches-batch", "1 cpu, batch 4: limited_add(100, +4), |delta| < 4", p);
    }
    // smp-race-neg: smp-race mirrored (negative amounts, the limit is a floor).
    {
        params p = two_cpus();
        p.task[0] = {limited_add(-10, -2)};
        p.task[1] = {limited_add(-10, -9)};
        reg<V, 2>("smp-race-neg", "2 cpus, batch 4, limit -10: cpu0 -2, cpu1 -9", p);
    }
    // smp-race-fits: smp-race with amounts that fit together (2 + 7 + 1 <= 10): every add must
    // succeed in every execution, so a shortcut that backs off and retries under the lock must
    // add exactly once (the quiescent exact sum) and must not be refused (limit-refused).
    {
        params p = two_cpus();
        p.limited_all_fit = true;
        p.task[0] = {limited_add(10, 2)};
        p.task[1] = {limited_add(10, 7), limited_add(10, 1)};
        reg<V, 2>("smp-race-fits", "2 cpus, batch 4, limit 10: cpu0 +2, cpu1 +7 +1", p);
    }
    // smp3-race: three CPUs (unknown = 12), limit 14: two shortcuts (+2 each) race with one
    // precise step (+11): all three together make 15.
    {
        params p;
        p.kernel.possible = p.kernel.online = cpumask::first_n(3);
        p.delta_bound = bound::inclusive;
        p.task[0] = {limited_add(14, 2)};
        p.task[1] = {limited_add(14, 2)};
        p.task[2] = {limited_add(14, 11)};
        reg<V, 3>("smp3-race", "3 cpus, batch 4, limit 14: cpu0 +2, cpu1 +2, cpu2 +11", p);
    }
    // dying-shortcut: the dying-window overshoot in the shortcut itself. cpu1 holds +4 and goes
    // down; cpu0's +4 with limit 7 passes the v6.7 shortcut (0 + 4 x 1 <= 7), total 8.
    {
        params p = two_cpus();
        p.task[0] = {wait_for(1), mark_dying(1), go_offline(1), limited_add(7, 4), cpu_dead(1)};
        p.task[1] = {limited_add(8, 4)};
        reg<V, 2>("dying-shortcut",
                  "2 cpus, batch 4: cpu1 +4 (limit 8), goes down; cpu0 +4 (limit 7) before "
                  "cpu_dead(1)",
                  p);
    }
}

void register_checks() {
    limited_variants::for_each([](auto tag) { register_variant<typename decltype(tag)::type>(); });
}

const registrar reg_checks(register_checks);

}  // namespace
}  // namespace pcc
}  // namespace KVERIFY_ENGINE_NS
}  // namespace kverify::model
