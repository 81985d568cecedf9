// SPDX-License-Identifier: GPL-2.0-only
// Self-tests of the simulated kernel: each rule of model/ASSUMPTIONS.md has a check that must
// find its violation and a twin that must pass (listed in proofs/properties.md; verdicts.tsv).
// Every scenario but invariant_access is lkmm_ready: each rule is judged where it happens, from
// the task's own kernel state and the values it read, or at quiescence from per-task counts, so
// it holds on dpor-lkmm as on the other engines. invariant_access is not: invariant() is not run
// under the LKMM (scenario.hpp), so its check could never fail there.
#include "impl/guards.hpp"
#include "model/kernel/model_env.hpp"
#include "model/kernel/scenario.hpp"

namespace kverify::model {
namespace {

using E = model_env;

struct kparams {
    kernel_config kernel;
    int mode = 0;
};

kernel_config one_cpu() {
    kernel_config k;
    k.possible = k.online = cpumask::first_n(1);
    return k;
}

// An interrupt handler that must never see the intermediate value 1 of `a`. The task writes
// 0 -> 1 -> 2, with irqs on (mode 0) or inside local_irq_save (mode 1).
struct irq_window : scenario_base {
    static constexpr const char* properties[] = {"interrupted-section"};
    static constexpr unsigned tasks = 1;
    static constexpr bool lkmm_ready = true;
    using params = kparams;
    E::atomic<int> a{0};
    int mode;
    explicit irq_window(const params& p) : mode(p.mode) {
        E::set_irq_handler(0, on_interrupt, this);
        E::set_nmi_handler(0, on_interrupt, this);
    }
    static void on_interrupt(unsigned, void* self) {
        const int v = E::read_once(static_cast<irq_window*>(self)->a).raw();
        expect(v != 1, "interrupted-section", "interrupt saw the intermediate value");
    }
    void task(unsigned) {
        if (mode == 0) {
            E::write_once(a, 1);
            E::write_once(a, 2);
        } else {
            irq_save_guard<E> g;
            E::write_once(a, 1);
            E::write_once(a, 2);
        }
    }
};

// Reachability: some execution delivers the IRQ at all (so the irqs-off twin is not vacuous).
struct irq_reachable : scenario_base {
    static constexpr const char* properties[] = {"irq-ran"};
    static constexpr unsigned tasks = 1;
    static constexpr bool lkmm_ready = true;
    using params = kparams;
    E::atomic<int> a{0};
    explicit irq_reachable(const params&) { E::set_irq_handler(0, on_irq, this); }
    static void on_irq(unsigned, void*) { expect(false, "irq-ran", "the IRQ was delivered"); }
    void task(unsigned) {
        irq_save_guard<E> g;
        E::write_once(a, 1);
    }
};

// Two CPUs increment one location with the CPU-local CAS (owned by cpu0), or with an SMP CAS.
// mode 0: local CAS; 1: SMP-atomic relaxed CAS; 2: local CAS on cpu0 only, plus an IRQ on cpu0
// incrementing with the local CAS (same-CPU nesting: atomic).
struct local_cas_counter : scenario_base {
    static constexpr const char* properties[] = {"lost-update"};
    static constexpr unsigned tasks = 2;
    static constexpr bool lkmm_ready = true;
    using params = kparams;
    E::atomic<unsigned> x{0};
    int mode;
    // Increments made, per task (its IRQ runs on its thread): counted where they happen and
    // added up at quiescence, so no task reads another's count (a timeline the LKMM has not).
    unsigned done[tasks] = {};
    explicit local_cas_counter(const params& p) : mode(p.mode) {
        E::declare_cpu_local(x, 0);
        E::set_irq_handler(0, on_irq, this);
    }
    static void on_irq(unsigned, void* self) {
        auto* s = static_cast<local_cas_counter*>(self);
        s->inc(s->mode != 1);
        ++s->done[current_task_index()];
    }
    void inc(bool local) {
        E::val<unsigned> old = E::read_once(x);
        // A failed cas has reloaded old: retry with it until one succeeds.
        if (local)
            while (!E::try_cmpxchg_local(x, old, old + 1)) continue;
        else
            while (!E::try_cmpxchg_relaxed(x, old, old + 1)) continue;
    }
    void task(unsigned t) {
        if (mode == 2 && t == 1) return;
        inc(mode != 1);
        ++done[t];
    }
    void after() {
        const unsigned v = E::peek(x);
        const unsigned expected = done[0] + done[1];
        expect(v == expected, "lost-update", "counter %u after %u increments", v, expected);
    }
};

// A preemptible task reads its CPU id, then adds on "its" CPU; a migration in between makes the
// id stale. mode 0: preemptible; mode 1: inside preempt_disable.
struct stale_cpu : scenario_base {
    static constexpr const char* properties[] = {"stale-cpu"};
    static constexpr unsigned tasks = 2;
    static constexpr bool lkmm_ready = true;
    using params = kparams;
    E::percpu<long> p;
    int mode;
    explicit stale_cpu(const params& pr) : mode(pr.mode) {}
    void body() {
        const unsigned cpu = E::raw_smp_processor_id();
        E::this_cpu_add(p, 1L);
        const long mine = E::per_cpu_read(p, cpu).raw();
        expect(mine == 1, "stale-cpu", "the add did not land on cpu%u read before it", cpu);
    }
    void task(unsigned t) {
        if (t == 1) return;  // cpu1 becomes free for a migration
        if (mode == 0) {
            body();
        } else {
            preempt_guard<E> g;
            body();
        }
    }
};

// The debug-preempt check. mode 0: __this_cpu_add preemptible; 1: under preempt_disable;
// 2: smp_processor_id() preemptible; 3: smp_processor_id() with irqs off.
struct debug_preempt : scenario_base {
    static constexpr unsigned tasks = 1;
    static constexpr bool lkmm_ready = true;
    using params = kparams;
    E::percpu<long> p;
    int mode;
    explicit debug_preempt(const params& pr) : mode(pr.mode) {}
    void task(unsigned) {
        switch (mode) {
            case 0:
                E::this_cpu_add_nocheck(p, 1L);
                break;
            case 1: {
                preempt_guard<E> g;
                E::this_cpu_add_nocheck(p, 1L);
                break;
            }
            case 2:
                (void)E::smp_processor_id();
                break;
            default: {
                irq_save_guard<E> g;
                (void)E::smp_processor_id();
            }
        }
    }
};

// A spinlock taken by the task and by an IRQ handler on the same CPU: without irqsave the IRQ
// can spin on a lock its own CPU holds (mode 0); spin_lock_irqsave prevents it (mode 1).
struct spinlock_aa : scenario_base {
    static constexpr unsigned tasks = 1;
    static constexpr bool lkmm_ready = true;
    using params = kparams;
    E::spinlock lock;
    E::atomic<int> a{0};
    int mode;
    explicit spinlock_aa(const params& p) : mode(p.mode) { E::set_irq_handler(0, on_irq, this); }
    static void on_irq(unsigned, void* self) {
        auto* s = static_cast<spinlock_aa*>(self);
        const E::irq_flags f = E::spin_lock_irqsave(s->lock);
        E::write_once(s->a, 2);
        E::spin_unlock_irqrestore(s->lock, f);
    }
    void task(unsigned) {
        if (mode == 0) {
            E::spin_lock(lock);
            E::write_once(a, 1);
            E::spin_unlock(lock);
        } else {
            const E::irq_flags f = E::spin_lock_irqsave(lock);
            E::write_once(a, 1);
            E::spin_unlock_irqrestore(lock, f);
        }
    }
};

// Single owner without a declared owner: two CPUs issue CPU-local CASes on one word nobody
// declared (mode 0): reported whatever order they come in, even when the second one reads a stale
// value without overlapping the first. Mode 1: only cpu0 does (the twin, must pass).
struct local_cas_undeclared : scenario_base {
    static constexpr unsigned tasks = 2;
    static constexpr bool lkmm_ready = true;
    using params = kparams;
    E::atomic<unsigned> x{0};
    int mode;
    explicit local_cas_undeclared(const params& p) : mode(p.mode) {}
    void task(unsigned t) {
        if (mode == 1 && t == 1) return;
        E::val<unsigned> old = E::read_once(x);
        while (!E::try_cmpxchg_local(x, old, old + 1)) continue;
    }
};

// In NMI context irqs are disabled, whatever the interrupted code had (mode 0: checked in the NMI,
// must pass). Mode 1, the twin: the same check in the task with irqs on must fail.
struct irqs_disabled_in_nmi : scenario_base {
    static constexpr const char* properties[] = {"irqs-on"};
    static constexpr unsigned tasks = 1;
    static constexpr bool lkmm_ready = true;
    using params = kparams;
    E::atomic<int> a{0};
    int mode;
    explicit irqs_disabled_in_nmi(const params& p) : mode(p.mode) {
        E::set_nmi_handler(0, on_nmi, this);
    }
    static void on_nmi(unsigned, void*) {
        expect(E::irqs_disabled(), "irqs-on", "irqs_disabled() is false in an NMI");
    }
    void task(unsigned) {
        E::write_once(a, 1);
        if (mode == 1) expect(E::irqs_disabled(), "irqs-on", "irqs_disabled() is false");
    }
};

// Invariants only look: one that runs a marked access (a delivery point) is refused (mode 0);
// the same invariant with peek passes (mode 1).
struct invariant_access : scenario_base {
    static constexpr const char* properties[] = {"invariant"};
    static constexpr unsigned tasks = 1;
    using params = kparams;
    E::atomic<int> a{0};
    int mode;
    explicit invariant_access(const params& p) : mode(p.mode) {}
    void task(unsigned) { E::write_once(a, 1); }
    void invariant() {
        const int v = mode == 0 ? E::read_once(a).raw() : E::peek(a);
        expect(v == 0 || v == 1, "invariant", "a = %d", v);
    }
};

// An interrupt is deliverable to a CPU that waits for a contended spinlock with irqs on (mode 0):
// cpu0 holds the lock and sees an IRQ of cpu1 that ran while cpu1's task waited for it. With
// irqs off around the wait (mode 1, spin_lock_irqsave) it never can.
struct irq_while_spinning : scenario_base {
    static constexpr const char* properties[] = {"irq-while-spinning"};
    static constexpr unsigned tasks = 2;
    static constexpr bool lkmm_ready = true;
    using params = kparams;
    E::spinlock lock;
    E::atomic<int> irq_in_wait{0};
    bool waiting = false;  // cpu1's task, read only by cpu1's IRQ (same thread): plain
    int mode;
    explicit irq_while_spinning(const params& p) : mode(p.mode) {
        E::set_irq_handler(1, on_irq, this);
    }
    static void on_irq(unsigned, void* self) {
        auto* s = static_cast<irq_while_spinning*>(self);
        if (s->waiting) E::write_once(s->irq_in_wait, 1);
    }
    void task(unsigned t) {
        if (t == 0) {
            E::spin_lock(lock);
            const int seen = E::read_once(irq_in_wait).raw();
            E::spin_unlock(lock);
            expect(seen == 0, "irq-while-spinning", "cpu1 took an IRQ while waiting for the lock");
            return;
        }
        if (mode == 0) {
            waiting = true;
            E::spin_lock(lock);
            waiting = false;
            E::spin_unlock(lock);
        } else {
            const E::irq_flags f = E::local_irq_save();
            waiting = true;
            E::spin_lock(lock);
            waiting = false;
            E::spin_unlock(lock);
            E::local_irq_restore(f);
        }
    }
};

// Two interrupts back to back at one delivery point, in the window between two writes (the
// handler counts the times it sees the intermediate value). The dpor engine delivers them within
// the budget; Relacy delivers at most one interrupt per delivery point (a pinned limit).
struct back_to_back_irqs : scenario_base {
    static constexpr const char* properties[] = {"back-to-back"};
    static constexpr unsigned tasks = 1;
    static constexpr bool lkmm_ready = true;
    using params = kparams;
    E::atomic<int> a{0};
    unsigned in_window = 0;  // only the task's thread (and its IRQs) touch it
    explicit back_to_back_irqs(const params&) { E::set_irq_handler(0, on_irq, this); }
    static void on_irq(unsigned, void* self) {
        auto* s = static_cast<back_to_back_irqs*>(self);
        if (E::read_once(s->a).raw() == 1) ++s->in_window;
        expect(s->in_window < 2, "back-to-back", "two IRQs in the window between two writes");
    }
    void task(unsigned) {
        E::write_once(a, 1);
        E::write_once(a, 2);
    }
};

// Bad programs get verdicts of their own, never a hang: a loop that waits for a value nobody
// writes and never marks its iterations with cpu_relax (mode 0: Relacy calls it a livelock at its
// depth limit, the dpor engine an event-limit); and two locks taken in opposite orders (mode 1:
// deadlock on both), with the twin that takes them in one order (mode 2: pass).
struct bad_program : scenario_base {
    static constexpr unsigned tasks = 2;
    static constexpr bool lkmm_ready = true;
    using params = kparams;
    E::atomic<int> a{0};
    E::spinlock l1, l2;
    int mode;
    explicit bad_program(const params& p) : mode(p.mode) {}
    void task(unsigned t) {
        if (mode == 0) {
            if (t == 0)
                while (E::read_once(a).raw() == 0) {
                }
            return;
        }
        E::spinlock& first = mode == 1 && t == 1 ? l2 : l1;
        E::spinlock& second = mode == 1 && t == 1 ? l1 : l2;
        E::spin_lock(first);
        E::spin_lock(second);
        E::spin_unlock(second);
        E::spin_unlock(first);
    }
};

// The state of a CPU goes with the CPU from one holder to the next (kernel.hpp, handoff_word):
// cpu1's one IRQ is delivered at most once, to whichever task holds cpu1 when it comes (mode 0,
// must pass), and the task that migrates to cpu1 after cpu1's first holder leaves it unused can
// take it (mode 1, the twin: must fail). Each task writes inside an irq_save section, so a
// holder that sees another's irqs-off flag (or budget) offers other choices. Under the LKMM the
// task arriving on cpu1 may run, in the engine's order, before the release it reads from.
struct cpu_state_handoff : scenario_base {
    static constexpr const char* properties[] = {"irq-budget", "irq-after-migration"};
    static constexpr unsigned tasks = 2;
    static constexpr bool lkmm_ready = true;
    using params = kparams;
    E::atomic<int> word[tasks];
    unsigned irqs_run[tasks] = {};  // per task (an IRQ runs on its thread): bookkeeping
    int mode;
    explicit cpu_state_handoff(const params& p) : mode(p.mode) {
        E::set_irq_handler(1, on_irq, this);
    }
    static void on_irq(unsigned, void* self) {
        auto* s = static_cast<cpu_state_handoff*>(self);
        const int t = current_task_index();
        ++s->irqs_run[t];
        if (s->mode == 1)
            expect(t != 0, "irq-after-migration", "task 0 took cpu1's IRQ after migrating there");
    }
    void task(unsigned t) {
        {
            irq_save_guard<E> g;
            E::write_once(word[t], 1);
        }
        E::write_once(word[t], 2);
    }
    void after() {
        const unsigned n = irqs_run[0] + irqs_run[1];
        expect(n <= 1, "irq-budget", "cpu1 took %u IRQs, its budget is 1", n);
    }
};

// A declared symmetry (kernel_config::irq_rounds_interchangeable): one CPU, a task of two rounds
// of one write each, one IRQ. Mode 0: the handler runs the task's round, as declared; the IRQ
// can come at the first round (a boundary), at the second (a boundary) or at the task's end (one),
// or never: 4 executions, of which the search explores 2 (at the first boundary, and never;
// `--no-symmetry` all 4). Mode 1, the twin: the handler writes something else though the
// symmetry is declared; only an IRQ after the last round leaves its value, so the search with
// the symmetry passes and the one without finds "irq-last" (tests/cli/symmetry_test.cpp: a
// wrong declaration is caught by comparing the two searches, as the test does for every check
// that declares one).
struct irq_rounds : scenario_base {
    static constexpr const char* properties[] = {"irq-last"};
    static constexpr unsigned tasks = 1;
    static constexpr bool lkmm_ready = true;
    using params = kparams;
    E::atomic<int> a{0};
    int rounds_run = 0;  // only the task's thread (and its IRQ) touch it
    int mode;
    explicit irq_rounds(const params& p) : mode(p.mode) { E::set_irq_handler(0, on_irq, this); }
    static void on_irq(unsigned, void* self) {
        auto* s = static_cast<irq_rounds*>(self);
        if (s->mode == 0) return s->round();
        E::write_once(s->a, 100);
    }
    void round() { E::write_once(a, ++rounds_run); }
    void task(unsigned) {
        for (int r = 0; r < 2; ++r) {
            E::round_boundary();
            round();
        }
    }
    void after() {
        expect(E::peek(a) != 100, "irq-last", "the IRQ handler's write came after every round");
    }
};

template <class S>
void add(const std::string& name, const std::string& what, kernel_config k, int mode) {
    kparams p;
    p.kernel = k;
    p.mode = mode;
    add_check<S>("kernel/" + name, "kernel-model", name, what, p);
}

void register_checks() {
    kernel_config irq1 = one_cpu();
    irq1.irq_budget[0] = 1;
    kernel_config nmi1 = one_cpu();
    nmi1.nmi_budget[0] = 1;
    add<irq_window>("irq-between-ops", "1 cpu, 1 IRQ, irqs on", irq1, 0);
    add<irq_window>("irq-blocked-by-irqs-off", "1 cpu, 1 IRQ, irq_save section", irq1, 1);
    add<irq_reachable>("irq-reachable-around-irqs-off", "1 cpu, 1 IRQ", irq1, 0);
    add<irq_window>("nmi-ignores-irqs-off", "1 cpu, 1 NMI, irq_save section", nmi1, 1);

    kernel_config two;
    two.irq_budget[0] = 1;
    add<local_cas_counter>("local-cas-two-cpus", "2 cpus, local CAS from both", two, 0);
    kernel_config unchecked = two;
    unchecked.check_single_owner = false;
    add<local_cas_counter>("local-cas-two-cpus-unchecked", "single-owner check off", unchecked, 0);
    add<local_cas_counter>("smp-cas-two-cpus", "2 cpus, relaxed SMP CAS", unchecked, 1);
    add<local_cas_counter>("local-cas-owner-and-irq", "cpu0 task + IRQ on cpu0", two, 2);

    kernel_config mig;
    mig.migration_budget = 1;
    add<stale_cpu>("migration-stale-cpu-id", "2 cpus, 1 migration, preemptible", mig, 0);
    add<stale_cpu>("migration-blocked-by-preempt-off", "2 cpus, 1 migration, preempt off", mig, 1);
    kernel_config mig_irq1 = mig;
    mig_irq1.irq_budget[1] = 1;
    add<cpu_state_handoff>("migration-keeps-irq-budget", "2 cpus, 1 migration, 1 IRQ on cpu1",
                           mig_irq1, 0);
    add<cpu_state_handoff>("migration-irq-reachable",
                           "the same, the IRQ in the migrated task (twin)", mig_irq1, 1);

    const kernel_config plain = one_cpu();
    add<debug_preempt>("nocheck-op-preemptible", "__this_cpu_add preemptible", plain, 0);
    add<debug_preempt>("nocheck-op-preempt-off", "__this_cpu_add, preempt off", plain, 1);
    add<debug_preempt>("smp-processor-id-preemptible", "smp_processor_id preemptible", plain, 2);
    add<debug_preempt>("smp-processor-id-irqs-off", "smp_processor_id, irqs off", plain, 3);

    add<spinlock_aa>("spinlock-irq-aa", "spin_lock in task and IRQ", irq1, 0);
    add<spinlock_aa>("spinlock-irqsave", "spin_lock_irqsave in task and IRQ", irq1, 1);

    const kernel_config two_plain;
    add<local_cas_undeclared>("local-cas-undeclared", "2 cpus, local CAS, no owner declared",
                              two_plain, 0);
    add<local_cas_undeclared>("local-cas-undeclared-one-cpu",
                              "local CAS from cpu0 only, no owner declared", two_plain, 1);
    add<irqs_disabled_in_nmi>("irqs-disabled-in-nmi", "1 cpu, 1 NMI, irqs on in the task", nmi1, 0);
    add<irqs_disabled_in_nmi>("irqs-on-in-task", "the same check in the task (twin)", nmi1, 1);
    add<invariant_access>("invariant-marked-access", "an invariant with read_once", plain, 0);
    add<invariant_access>("invariant-peek", "the same invariant with peek", plain, 1);
    kernel_config irq_cpu1;
    irq_cpu1.irq_budget[1] = 1;
    add<irq_while_spinning>("irq-while-spinning", "2 cpus, cpu1 waits for a lock, irqs on",
                            irq_cpu1, 0);
    add<irq_while_spinning>("no-irq-while-spinning-irqs-off",
                            "2 cpus, cpu1 waits for a lock with irqs off", irq_cpu1, 1);
    kernel_config irq2 = one_cpu();
    irq2.irq_budget[0] = 2;
    add<back_to_back_irqs>("back-to-back-irqs", "1 cpu, 2 IRQs, one window", irq2, 0);
    kernel_config irq1_rounds = irq1;
    irq1_rounds.irq_rounds_interchangeable = true;
    add<irq_rounds>("irq-rounds-interchangeable",
                    "1 cpu, 1 IRQ, 2 rounds; symmetry: the IRQ runs a round", irq1_rounds, 0);
    add<irq_rounds>("irq-rounds-misdeclared",
                    "the same symmetry declared, the IRQ runs other code (twin)", irq1_rounds, 1);
    add<bad_program>("unbounded-loop", "a wait without cpu_relax on a value nobody writes",
                     two_plain, 0);
    add<bad_program>("abba-deadlock", "2 cpus take two spinlocks in opposite orders", two_plain, 1);
    add<bad_program>("ab-ab-no-deadlock", "2 cpus take two spinlocks in one order", two_plain, 2);
}

const registrar reg(register_checks);

}  // namespace
}  // namespace kverify::model
