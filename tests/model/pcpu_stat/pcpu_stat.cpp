// SPDX-License-Identifier: GPL-2.0-only
// Model checks of impl/pcpu_stat.hpp, the same source as the real stress test: every increment
// by tasks and by IRQs on their CPUs is counted exactly once at quiescence.
#include "impl/pcpu_stat.hpp"
#include "model/kernel/model_env.hpp"
#include "model/kernel/scenario.hpp"

namespace kverify::model {
namespace {

using E = model_env;

template <class Variant>
struct pcpu_stat_scenario : scenario_base {
    static constexpr const char* properties[] = {"lost-update"};
    static constexpr unsigned tasks = 2;
    struct params {
        kernel_config kernel;
        unsigned incs_per_task = 2;
    };
    static constexpr bool lkmm_ready = true;  // judged at quiescence, no task reads another's
    pcpu_stat<E, Variant> stat;
    unsigned incs_per_task;
    unsigned irqs_run[tasks] = {};  // per task (an IRQ runs on its thread): bookkeeping
    explicit pcpu_stat_scenario(const params& p) : incs_per_task(p.incs_per_task) {
        if (E::naming()) stat.name_words();  // for traces: stat[cpuN]
        for (unsigned c = 0; c < 2; ++c) E::set_irq_handler(c, on_irq, this);
    }
    static void on_irq(unsigned, void* self) {
        auto* s = static_cast<pcpu_stat_scenario*>(self);
        s->stat.inc();
        ++s->irqs_run[current_task_index()];
    }
    void task(unsigned) {
        for (unsigned i = 0; i < incs_per_task; ++i) stat.inc();
    }
    void after() {
        const unsigned irqs = irqs_run[0] + irqs_run[1];
        const long want = long(tasks * incs_per_task + irqs), got = stat.sum();
        expect(got == want, "lost-update", "sum %ld, expected %ld (%u irqs ran)", got, want, irqs);
    }
};

template <class Variant>
void add(unsigned irqs, unsigned migrations) {
    typename pcpu_stat_scenario<Variant>::params p;
    p.kernel.irq_budget[0] = p.kernel.irq_budget[1] = irqs;
    p.kernel.migration_budget = migrations;
    const std::string cfg = "2 cpus, 2 incs/task, irq " + std::to_string(irqs) + "/cpu, " +
                            std::to_string(migrations) + " migration(s)";
    const std::string name = "pcpu_stat/" + std::string(Variant::name) + "/irq" +
                             std::to_string(irqs) + "-mig" + std::to_string(migrations);
    add_check<pcpu_stat_scenario<Variant>>(name, "pcpu_stat", Variant::name, cfg, p);
}

void register_checks() {
    add<pcpu_stat_add>(1, 0);
    add<pcpu_stat_add>(1, 1);
    add<pcpu_stat_mut_read_write>(1, 0);
    add<pcpu_stat_mut_read_write>(0, 0);  // without interrupts the mutant is harmless
}

const registrar reg(register_checks);

}  // namespace
}  // namespace kverify::model
