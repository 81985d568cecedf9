// SPDX-License-Identifier: GPL-2.0-only
// The simulated kernel, written once for every exploration engine (engine.hpp): CPUs, tasks,
// IRQ/NMI contexts, irq and preemption disabling, migration, and the bookkeeping behind the
// single-owner and debug-preempt checks and the traces.
//
// One engine thread per task. A task holds one CPU at a time (a token: two tasks never run on one
// CPU at once). Interrupts run inline on the interrupted task's thread, so code of one CPU only
// nests, never runs in parallel with itself. At every delivery point (the start of each modeled
// operation, see model_env) the search may choose, under budgets: nothing, an IRQ (irqs on, none
// running on this CPU), an NMI (none running), a migration of a preemptible task to another online
// CPU, or, when another task may wait for this CPU, being preempted by it (on the dpor engine a
// window the waiting task takes, not a choice: preemption_window); at a task's first point no
// preemption, at its last neither (kernel_config::switch_at_task_ends).
//
// State of one CPU is kept by the task holding its token, in a copy of its own, and travels with
// the token to the next holder (the release stores it, the take reads it: see handoff below),
// with what the releasing task knows of the migration budget (release_cpu, take_cpu);
// state of one task is only touched by that task; what several tasks share (the masks, the
// migration budget, the tokens themselves) is the engine's (model::engine). See
// model/ASSUMPTIONS.md for what this does and does not model.
#pragma once

#include <algorithm>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "impl/common.hpp"
#include "model/check/verdict.hpp"
#include "model/engines/engine.hpp"

namespace kverify::model {
inline namespace KVERIFY_ENGINE_NS {

inline constexpr unsigned max_cpus = 4;   // model CPU ids 0..3
inline constexpr unsigned max_tasks = 6;  // engine threads running tasks

enum class ctx_kind : std::uint8_t { task, irq, nmi };
using handler_fn = void (*)(unsigned cpu, void* arg);

// Immutable during one search. Set by the scenario (see scenario.hpp) before each run.
struct kernel_config {
    unsigned nr_tasks = 2;
    cpumask possible = cpumask::first_n(2);
    cpumask online = cpumask::first_n(2);
    unsigned task_cpu[max_tasks] = {0, 1, 2, 3, 0, 1};  // CPU each task starts on
    unsigned irq_budget[max_cpus] = {};                 // IRQs deliverable per CPU
    unsigned nmi_budget[max_cpus] = {};                 // NMIs deliverable per CPU
    unsigned migration_budget = 0;                      // migrations, all tasks together
    bool check_single_owner = true;
    bool check_debug_preempt = true;
    bool warn_is_violation = true;  // a fired warn_once fails the execution
    // A symmetry the scenario declares (kernel::round_boundary): every CPU's IRQ handler runs
    // exactly the code of one of its task's rounds, and a task is nothing but rounds, each begun
    // with round_boundary(). An IRQ between two rounds then gives the same events in the same
    // order wherever it falls between them (the rounds are one code, so which of them is the
    // handler's is a permutation of identical blocks): it is offered at the task's first round
    // boundary only, not at a later one nor at the task's end. Requires at most one IRQ per CPU,
    // no NMI, no migration and one task per CPU (validate_symmetry).
    bool irq_rounds_interchangeable = false;
    // Preemption and migration offered at a task's first point (before its first operation) and
    // at its last (after it), as at every other. Off, the kernel offers interrupts only there:
    // what a switch there adds is the CPU token's own events (model/ASSUMPTIONS.md, Search).
    bool switch_at_task_ends = false;
    // A preemption as the preempted task's choice (a branch of its switch point), on an engine
    // that otherwise makes it a window the waiting task takes (cpu_token::preempt_by_window;
    // model/ASSUMPTIONS.md, Preemption in place): the search of before, for comparison.
    bool preempt_by_choice = false;
};

// Why a configuration cannot declare irq_rounds_interchangeable, or "" if it can. The argument
// (model/ASSUMPTIONS.md, Search) is made for one IRQ per CPU and boundaries that offer nothing
// else: an NMI, a migration or a preemption there would be a choice it does not cover.
inline std::string validate_symmetry(const kernel_config& k) {
    if (!k.irq_rounds_interchangeable) return "";
    for (unsigned c = 0; c < max_cpus; ++c) {
        if (k.irq_budget[c] > 1) return "more than one IRQ on a CPU";
        if (k.nmi_budget[c] > 0) return "an NMI budget";
    }
    if (k.migration_budget > 0) return "a migration budget";
    if (k.nr_tasks > k.online.weight()) return "more tasks than online CPUs (preemption)";
    return "";
}

// The violation classes the kernel reports itself (kernel::fail below, kfree in heap.hpp),
// named once so that the registry knows them: kernel_classes is what a configuration can report.
namespace kernel_class {
inline constexpr char debug_preempt[] = "debug-preempt";
inline constexpr char warn[] = "warn";
inline constexpr char self_deadlock[] = "self-deadlock";
inline constexpr char invariant_access[] = "invariant-access";
inline constexpr char single_owner[] = "single-owner";
inline constexpr char double_free[] = "double-free";
}  // namespace kernel_class

// What kernel_classes depends on, as a number (scenario.hpp keeps its answers by it).
inline unsigned kernel_classes_key(const kernel_config& k) {
    return unsigned(k.check_debug_preempt) | unsigned(k.warn_is_violation) << 1 |
           unsigned(k.check_single_owner) << 2;
}
inline std::vector<std::string> kernel_classes(const kernel_config& k) {
    std::vector<std::string> c = {kernel_class::self_deadlock, kernel_class::invariant_access,
                                  kernel_class::double_free};
    if (k.check_debug_preempt) c.push_back(kernel_class::debug_preempt);
    if (k.warn_is_violation) c.push_back(kernel_class::warn);
    if (k.check_single_owner) c.push_back(kernel_class::single_owner);
    return c;
}

// A check's configuration with its budgets capped (shrinking a counterexample, verdict.hpp).
inline kernel_config apply_limits(kernel_config cfg, const search_limits& l) {
    for (unsigned c = 0; c < max_cpus; ++c) {
        if (l.irq >= 0) cfg.irq_budget[c] = std::min(cfg.irq_budget[c], unsigned(l.irq));
        if (l.nmi >= 0) cfg.nmi_budget[c] = std::min(cfg.nmi_budget[c], unsigned(l.nmi));
    }
    if (l.migrations >= 0)
        cfg.migration_budget = std::min(cfg.migration_budget, unsigned(l.migrations));
    if (l.no_symmetry) cfg.irq_rounds_interchangeable = false;
    if (l.every_switch_point) cfg.switch_at_task_ends = true;
    if (l.preempt_by_choice) cfg.preempt_by_choice = true;
    return cfg;
}

// The first property violation of an execution, with its class (a short name that expected
// verdicts refer to, e.g. "single-owner", "debug-preempt", "duplicate").
struct violation_record {
    bool set = false;
    const char* cls = "";
    char msg[256] = {};
    src_loc loc{"", 0, ""};
};

// Interrupts of one kind deliverable per CPU at most: what a CPU's budget has left travels in 15
// bits of its token's value (kernel::handoff_word).
inline constexpr unsigned max_interrupt_budget = 0x7fff;
// Migrations, all tasks together, at most: what a task knows of the budget travels in a byte of
// a CPU's token (engine::cpu_token).
inline constexpr unsigned max_migration_budget = 254;

class kernel {
public:
    // A CPU as its holder sees it. Each task keeps the state of the CPU it holds (task_state::on):
    // under load buffering a task that takes a CPU may run, in the engine's order, before the
    // release it reads from, so one shared copy would show it the CPU as the engine's order left
    // it (the previous holder's last steps not yet run) instead of as that release did.
    struct cpu_state {
        bool irqs_off = false;
        bool in_irq = false;
        bool in_nmi = false;
        unsigned irq_left = 0;
        unsigned nmi_left = 0;
        const void* held[4] = {};  // spinlocks this CPU holds (any of its contexts)
    };
    // The handlers of one CPU: set by the scenario's constructor, before any task runs.
    struct cpu_handlers {
        handler_fn irq_fn = nullptr;
        void* irq_arg = nullptr;
        handler_fn nmi_fn = nullptr;
        void* nmi_arg = nullptr;
    };
    struct task_state {
        unsigned cpu = 0;
        cpu_state on{};  // the CPU `cpu`, as this task holds it
        unsigned preempt_count = 0;
        ctx_kind stack[4] = {ctx_kind::task};
        unsigned depth = 0;  // 0: task context; >0: inside irq/nmi handlers
        bool running = false;
        unsigned migrated = 0;  // migrations this task made
        // kernel_config::irq_rounds_interchangeable: the next point is at a round boundary
        // (round_boundary, task_finish), boundaries passed, and whether the first one offered
        // an IRQ (then no later one does).
        bool at_boundary = false;
        // At the task's first point (nothing done since it took its CPU: no preemption there)
        // and at its last (after its last operation, task_finish: no preemption or migration).
        bool fresh = false, ending = false;
        unsigned boundaries = 0;
        bool irq_at_first_boundary = false;
    };

    // One kernel per OS thread: a search on several threads (dpor, --threads) runs one
    // simulated machine on each.
    static kernel& get() noexcept {
        static thread_local kernel k;
        return k;
    }

    // ----- run setup (the runners call these) -----
    void configure(const kernel_config& cfg) noexcept {
        for (unsigned c = 0; c < max_cpus; ++c)
            if (cfg.irq_budget[c] > max_interrupt_budget ||
                cfg.nmi_budget[c] > max_interrupt_budget) {
                std::fprintf(stderr, "kverify: internal error: an interrupt budget above %u\n",
                             max_interrupt_budget);
                std::abort();
            }
        if (cfg.migration_budget > max_migration_budget) {
            std::fprintf(stderr, "kverify: internal error: a migration budget above %u\n",
                         max_migration_budget);
            std::abort();
        }
        if (const std::string why = validate_symmetry(cfg); !why.empty()) {
            std::fprintf(stderr,
                         "kverify: internal error: IRQ rounds declared interchangeable with %s\n",
                         why.c_str());
            std::abort();
        }
        cfg_ = cfg;
    }
    const kernel_config& config() const noexcept { return cfg_; }
    void reset_run() noexcept { violation_ = violation_record{}; }

    // Called at the start of every execution, before the scenario is constructed (on the
    // engine's harness side).
    void begin_iteration() {
        const src_loc here("kernel", 0, "begin");
        // Per execution: a search that goes on past a violation (the SC re-check looking for one
        // class) must not report the class of an earlier execution for a later one's.
        violation_ = violation_record{};
        // Only when CPUs can change hands does the run-queue handoff matter.
        const bool handoff = cfg_.migration_budget > 0 || cfg_.nr_tasks > cfg_.online.weight();
        for (unsigned c = 0; c < max_cpus; ++c) {
            handlers_[c] = cpu_handlers{};
            tokens_[c].init(c, handoff, here);
        }
        for (unsigned t = 0; t < max_tasks; ++t) {
            tasks_[t] = task_state{};
            tasks_[t].cpu = cfg_.task_cpu[t];
        }
        migrations_.init(cfg_.migration_budget, here);
        online_.init(cfg_.online.bits(), here);
        dying_.init(0, here);
        if (engine::naming()) {  // the kernel's own words, by their role in traces
            char name[32];
            for (unsigned c = 0; c < max_cpus; ++c) {
                std::snprintf(name, sizeof name, "cpu%u token", c);
                engine::name_memory(&tokens_[c], sizeof tokens_[c], name);
            }
            engine::name_memory(&migrations_, sizeof migrations_, "migration budget");
            engine::name_memory(&online_, sizeof online_, "cpu_online_mask");
            engine::name_memory(&dying_, sizeof dying_, "cpu_dying_mask");
        }
        harness_cpu_ = cfg_.online.next(-1);
        harness_on_ = from_handoff(harness_cpu_, 0);
        warnings_ = 0;
        in_invariant_ = false;
        engine::labeler() = &label_for_trace;
    }

    void set_irq_handler(unsigned cpu, handler_fn fn, void* arg) noexcept {
        handlers_[cpu].irq_fn = fn;
        handlers_[cpu].irq_arg = arg;
    }
    void set_nmi_handler(unsigned cpu, handler_fn fn, void* arg) noexcept {
        handlers_[cpu].nmi_fn = fn;
        handlers_[cpu].nmi_arg = arg;
    }
    // CPU on whose behalf code outside task bodies (scenario constructor, after()) runs; the
    // harness keeps a state of it of its own (it never shares a CPU with a task: it runs before
    // and after all of them).
    void set_harness_cpu(unsigned cpu) noexcept {
        harness_cpu_ = cpu;
        harness_on_ = from_handoff(cpu, 0);
    }

    void task_start(unsigned task) {
        task_state& t = tasks_[task];
        take_cpu(task, src_loc("kernel", 0, "task start"));
        t.running = true;
        t.fresh = true;
    }
    // The scenario's mark before each of a task's rounds (kernel_config::
    // irq_rounds_interchangeable): the next delivery point is between two rounds. Outside task
    // context (an IRQ handler running a round) it marks nothing: the handler is the round.
    void round_boundary() noexcept {
        if (!in_body()) return;
        task_state& t = tasks_[engine::thread_index()];
        if (t.depth == 0) t.at_boundary = true;
    }

    void task_finish(unsigned task) {
        tasks_[task].at_boundary = true;  // after the last round
        tasks_[task].ending = true;
        point(src_loc("kernel", 0, "task end"));  // an interrupt may still hit the last op
        task_state& t = tasks_[task];
        t.running = false;
        release_cpu(t, src_loc("kernel", 0, "task end"));
    }

    // ----- queries -----
    bool in_body() const noexcept {
        return engine::in_thread() && tasks_[engine::thread_index()].running;
    }
    unsigned current_cpu() const noexcept {
        return in_body() ? tasks_[engine::thread_index()].cpu : harness_cpu_;
    }
    task_state* current_task() noexcept {
        return in_body() ? &tasks_[engine::thread_index()] : nullptr;
    }
    // Irqs are disabled in NMI context too, as in the kernel.
    bool irqs_disabled() const noexcept {
        const cpu_state& c = here();
        return c.irqs_off || c.in_nmi;
    }
    bool preemptible() const noexcept {
        if (!in_body()) return false;  // harness code is never preempted
        const task_state& t = tasks_[engine::thread_index()];
        return t.depth == 0 && t.preempt_count == 0 && !t.on.irqs_off;
    }
    unsigned warnings() const noexcept { return warnings_; }
    // Hotplug state: changed by scenarios at delivery points, read by algorithms (the engine's
    // shared words; see ASSUMPTIONS.md).
    cpumask online(src_loc loc = {}) const { return cpumask(online_.load(loc)); }
    cpumask dying(src_loc loc = {}) const { return cpumask(dying_.load(loc)); }
    void set_online(unsigned cpu, bool on, src_loc loc) {
        cpumask m = online(loc);
        on ? m.set(cpu) : m.clear(cpu);
        online_.store(m.bits(), loc);
    }
    void set_dying(unsigned cpu, bool d, src_loc loc) {
        cpumask m = dying(loc);
        d ? m.set(cpu) : m.clear(cpu);
        dying_.store(m.bits(), loc);
    }
    const violation_record& violation() const noexcept { return violation_; }

    // ----- operations the Env maps onto -----
    void preempt_disable() noexcept {
        if (task_state* t = current_task()) ++t->preempt_count;
    }
    void preempt_enable() noexcept {
        if (task_state* t = current_task()) --t->preempt_count;
    }
    unsigned long irq_save() noexcept {
        cpu_state& c = here();
        const unsigned long was_off = c.irqs_off ? 1 : 0;
        c.irqs_off = true;
        return was_off;
    }
    void irq_restore(unsigned long flags) noexcept { here().irqs_off = flags != 0; }

    // The kernel's debug-preempt check (smp_processor_id, __this_cpu_* while preemptible).
    void check_preemption_disabled(const char* what, src_loc loc) {
        if (cfg_.check_debug_preempt && preemptible())
            fail(kernel_class::debug_preempt, loc, "%s in preemptible code (task %u on cpu%u)",
                 what, engine::thread_index(), current_cpu());
    }

    void warn(const char* what, src_loc loc) {
        ++warnings_;
        if (cfg_.warn_is_violation) fail(kernel_class::warn, loc, "warn_once fired: %s", what);
    }

    // Spinlocks held per CPU: a context that spins on a lock its own CPU holds (an interrupt
    // handler on the holder's CPU, or a task taking it twice) can never get it.
    void lock_acquiring(const void* lock, src_loc loc) {
        for (const void* h : here().held)
            if (h == lock)
                fail(kernel_class::self_deadlock, loc, "spin_lock on a lock cpu%u already holds",
                     current_cpu());
    }
    void lock_acquired(const void* lock) {
        for (const void*& h : here().held)
            if (h == nullptr) {
                h = lock;
                return;
            }
    }
    void lock_released(const void* lock) {
        for (const void*& h : here().held)
            if (h == lock) {
                h = nullptr;
                return;
            }
    }

    // Invariants (checked between any two steps) only look: no Env operation may run inside one,
    // for it would be a delivery point (an interrupt handler inside an invariant).
    struct invariant_scope {
        bool& flag;
        explicit invariant_scope(bool& f) : flag(f) { flag = true; }
        ~invariant_scope() { flag = false; }
    };
    invariant_scope checking_invariant() { return invariant_scope(in_invariant_); }

    // A delivery point: the search chooses whether something happens before the next operation.
    void point(src_loc loc) {
        if (in_invariant_)
            fail(kernel_class::invariant_access, loc,
                 "an invariant ran an Env operation (only peek and introspection may run there)");
        if (!in_body()) return;
        engine::on_point(loc);
        // kernel_config::irq_rounds_interchangeable: an IRQ at a later round boundary is one at
        // the first, if that one offered it.
        bool first_boundary = false, later_boundary = false;
        if (task_state& t = tasks_[engine::thread_index()]; t.at_boundary) {
            t.at_boundary = false;
            if (cfg_.irq_rounds_interchangeable) {
                first_boundary = t.boundaries++ == 0;
                later_boundary = !first_boundary && t.irq_at_first_boundary;
            }
        }
        bool untouched = std::exchange(tasks_[engine::thread_index()].fresh, false);
        for (;;) {
            const unsigned me = engine::thread_index();
            task_state& t = tasks_[me];
            const cpu_state& c = t.on;
            const cpu_handlers& h = handlers_[t.cpu];
            const bool irq_ok = !c.irqs_off && !c.in_irq && !c.in_nmi && c.irq_left > 0 &&
                                h.irq_fn && !later_boundary;
            if (first_boundary) {
                t.irq_at_first_boundary = irq_ok;
                first_boundary = false;
            }
            const bool nmi_ok = !c.in_nmi && c.nmi_left > 0 && h.nmi_fn;
            const bool can_switch = t.depth == 0 && t.preempt_count == 0 && !c.irqs_off;
            // Where a switch changes nothing but the CPU token's events, the kernel offers none
            // (kernel_config::switch_at_task_ends): a preemption before the task's first
            // operation or after its last, a migration after its last.
            const bool ends = !cfg_.switch_at_task_ends;
            unsigned targets[max_cpus];
            unsigned nr_targets = 0;
            if (can_switch && !(ends && t.ending) && migrations_.may_take()) {
                const cpumask on = online(loc);
                for (unsigned cpu = on.next(-1); cpu < max_cpus; cpu = on.next(int(cpu)))
                    if (cpu != t.cpu) targets[nr_targets++] = cpu;
            }
            const bool yield_ok = can_switch && !(ends && (untouched || t.ending)) &&
                                  may_be_waited_for(t.cpu) && may_arrive(me);
            // A preemption by window is no branch here: the task lets its CPU go where it goes
            // on (no interrupt, no migration), and a waiting task may take it there.
            const bool window = yield_ok && by_window();

            const unsigned n = 1 + irq_ok + nmi_ok + nr_targets + (yield_ok && !window);
            unsigned k = n == 1 ? 0 : engine::choose(n, loc);
            if (k-- == 0) {
                if (window) preemption_window(loc);
                return;
            }
            if (irq_ok && k-- == 0) {
                run_handler(ctx_kind::irq, loc);
            } else if (nmi_ok && k-- == 0) {
                run_handler(ctx_kind::nmi, loc);
            } else if (k < nr_targets) {
                migrate(targets[k], loc);
                return;
            } else {
                preempted(loc);
                return;
            }
            if (!engine::repeat_delivery) return;  // else: another interrupt may follow at once
            untouched = false;
        }
    }

    // Records the violation and fails the execution (the first one of an execution wins).
    [[gnu::format(printf, 4, 5)]] void fail(const char* cls, src_loc loc, const char* fmt, ...) {
        if (!violation_.set) {
            violation_.set = true;
            violation_.cls = cls;
            violation_.loc = loc;
            va_list ap;
            va_start(ap, fmt);
            std::vsnprintf(violation_.msg, sizeof violation_.msg, fmt, ap);
            va_end(ap);
        }
        engine::fail(violation_.cls, violation_.msg, loc);
    }

    [[gnu::format(printf, 3, 4)]] void log(src_loc loc, const char* fmt, ...) {
        if (!engine::tracing()) return;
        char buf[200];
        va_list ap;
        va_start(ap, fmt);
        std::vsnprintf(buf, sizeof buf, fmt, ap);
        va_end(ap);
        engine::note(buf, loc);
    }

    // Where engine thread `thread` runs now, for traces: "cpu0 task T1", "harness cpu0"
    // (thread 0 of the dpor engine is the harness).
    void context_label(char* buf, std::size_t n, bool harness, unsigned task) const {
        if (harness || !tasks_[task].running) {
            std::snprintf(buf, n, "harness cpu%u", harness_cpu_);
            return;
        }
        static const char* const kinds[] = {"task", "irq", "nmi"};
        const task_state& t = tasks_[task];
        std::snprintf(buf, n, "cpu%u %s T%u", t.cpu, kinds[static_cast<int>(t.stack[t.depth])],
                      task);
    }

    // Single-owner bookkeeping for one location: the declared owner CPU (-1: none), the CPUs
    // that issued CPU-local RMWs on it (a bit each: two bits set are two owners, whatever the
    // order they came in), and the CPU with one in flight.
    struct local_rmw_state {
        int owner = -1;
        unsigned users = 0;
        int inflight_cpu = -1;
        unsigned inflight_depth = 0;
    };
    void local_rmw_begin(local_rmw_state& s, const char* what, src_loc loc) {
        const int cpu = static_cast<int>(current_cpu());
        if (cfg_.check_single_owner) {
            if (s.owner >= 0 && s.owner != cpu)
                fail(kernel_class::single_owner, loc,
                     "%s on a location owned by cpu%d, issued from cpu%d", what, s.owner, cpu);
            if (s.inflight_cpu >= 0 && s.inflight_cpu != cpu)
                fail(kernel_class::single_owner, loc,
                     "%s from cpu%d while cpu%d has a CPU-local RMW in flight on it", what, cpu,
                     s.inflight_cpu);
            if (s.owner < 0 && (s.users & ~(1u << cpu)) != 0)
                fail(kernel_class::single_owner, loc,
                     "%s from cpu%d on a location other CPUs (mask 0x%x) also update CPU-locally",
                     what, cpu, s.users & ~(1u << cpu));
        }
        s.users |= 1u << cpu;
        if (s.inflight_depth == 0 || s.inflight_cpu != cpu) s.inflight_depth = 0;
        s.inflight_cpu = cpu;
        ++s.inflight_depth;
    }
    void local_rmw_end(local_rmw_state& s) noexcept {
        if (s.inflight_depth > 0 && --s.inflight_depth == 0) s.inflight_cpu = -1;
    }

private:
    kernel() = default;

    // The state of a CPU, in the CPU token's value from one holder to the next: the interrupts
    // used of its budgets and its irqs-off flag. The rest needs nothing: a CPU changes hands in
    // task context (no handler runs on it) and, except at a task's end, with preemption on (no
    // spinlock held: spin_lock disables preemption); a task that ends holding a spinlock keeps
    // it in its own copy, as no CPU's.
    std::uint32_t handoff_word(unsigned cpu, const cpu_state& c) const noexcept {
        const std::uint32_t irqs_used = cfg_.irq_budget[cpu] - c.irq_left;
        const std::uint32_t nmis_used = cfg_.nmi_budget[cpu] - c.nmi_left;
        return irqs_used | nmis_used << 15 | (c.irqs_off ? 1u << 30 : 0);
    }
    // The state of a CPU as a handoff word gives it (0: the CPU as it starts).
    cpu_state from_handoff(unsigned cpu, std::uint32_t w) const noexcept {
        cpu_state c;
        c.irq_left = cfg_.irq_budget[cpu] - (w & max_interrupt_budget);
        c.nmi_left = cfg_.nmi_budget[cpu] - (w >> 15 & max_interrupt_budget);
        c.irqs_off = (w >> 30 & 1) != 0;
        return c;
    }

    // The CPU the running code is on, as it holds it.
    cpu_state& here() noexcept {
        return in_body() ? tasks_[engine::thread_index()].on : harness_on_;
    }
    const cpu_state& here() const noexcept {
        return in_body() ? tasks_[engine::thread_index()].on : harness_on_;
    }

    static void label_for_trace(char* buf, std::size_t n, src_loc loc) {
        const kernel& k = get();
        char ctx[64];
        k.context_label(ctx, sizeof ctx, !k.in_body(), k.in_body() ? engine::thread_index() : 0);
        std::snprintf(buf, n, "[%s] %s", ctx, loc.func);
    }

    // Preemption in place is offered only when another task may be waiting for this CPU (the
    // engine's token says: Relacy knows who waits; the dpor engine cannot without an event, so it
    // opens a window when CPUs can change hands and may_arrive, which a waiter may take).
    bool may_be_waited_for(unsigned cpu) const { return tokens_[cpu].contended(); }

    // Whether another task can still come to this task's CPU, from what this task knows without
    // an event: a task that comes there started there or migrated there, and no migration is
    // left for another task once this one made the whole budget (complete executions never
    // exceed it). A preemption nobody can take only blocks. On Relacy a waiter implies this.
    bool may_arrive(unsigned me) const {
        const task_state& t = tasks_[me];
        if (t.migrated < cfg_.migration_budget) return true;
        for (unsigned u = 0; u < cfg_.nr_tasks; ++u)
            if (u != me && cfg_.task_cpu[u] == t.cpu) return true;
        return false;
    }

    void run_handler(ctx_kind kind, src_loc loc) {
        const unsigned me = engine::thread_index();
        task_state& t = tasks_[me];
        const unsigned cpu = t.cpu;
        cpu_state& c = t.on;  // a handler never migrates (no migration at depth > 0)
        const cpu_handlers& h = handlers_[cpu];
        const bool irq = kind == ctx_kind::irq;
        const bool saved_irqs_off = c.irqs_off;
        if (irq) {
            --c.irq_left;
            c.in_irq = true;
            c.irqs_off = true;  // hardirq handlers run with irqs off
        } else {
            --c.nmi_left;
            c.in_nmi = true;
        }
        t.stack[++t.depth] = kind;
        log(loc, "%s enter on cpu%u", irq ? "irq" : "nmi", cpu);
        // The handler runs inline on this task's engine thread: the control dependencies of the
        // code it interrupted do not reach its events.
        engine::handler_begin();
        (irq ? h.irq_fn : h.nmi_fn)(cpu, irq ? h.irq_arg : h.nmi_arg);
        engine::handler_end();
        log(loc, "%s exit on cpu%u", irq ? "irq" : "nmi", cpu);
        --t.depth;
        if (irq) {
            c.in_irq = false;
            c.irqs_off = saved_irqs_off;
        } else {
            c.in_nmi = false;
        }
    }

    void migrate(unsigned to, src_loc loc) {
        const unsigned me = engine::thread_index();
        task_state& t = tasks_[me];
        migrations_.take(loc);
        ++t.migrated;
        log(loc, "migrate T%u cpu%u -> cpu%u", me, t.cpu, to);
        release_cpu(t, loc);
        t.cpu = to;
        take_cpu(me, loc);
    }

    void preempted(src_loc loc) {
        const unsigned me = engine::thread_index();
        task_state& t = tasks_[me];
        log(loc, "T%u preempted on cpu%u", me, t.cpu);
        took(t, tokens_[t.cpu].yield_to_waiter(me, handoff_word(t.cpu, t.on), migrations_.known(),
                                               loc));
    }

    // Whether a preemption is a window the waiting task takes (the engine's token says;
    // kernel_config::preempt_by_choice keeps the branch of before).
    bool by_window() const {
        return engine::cpu_token::preempt_by_window && !cfg_.preempt_by_choice;
    }
    // The task lets its CPU go and takes it back: preempted if another task took it between
    // (model/ASSUMPTIONS.md, Preemption in place: the same executions as a preemption the task
    // chooses, where one it chose and nobody took was started and cut).
    // (A template, so that an engine whose token has no window never instantiates the call.)
    template <class Token = engine::cpu_token>
    void preemption_window(src_loc loc) {
        if constexpr (Token::preempt_by_window) {
            const unsigned me = engine::thread_index();
            task_state& t = tasks_[me];
            Token& token = tokens_[t.cpu];
            if (took(t, token.window(me, handoff_word(t.cpu, t.on), migrations_.known(), loc)))
                log(loc, "T%u was preempted on cpu%u", me, t.cpu);
        }
    }

    // A CPU changes hands (task_state::cpu): the release stores the CPU's state and the migration
    // budget as this task knows it left, and the take returns the state the release it read
    // stored and teaches the taker what that releaser knew of the budget (engine::budget_word).
    void release_cpu(const task_state& t, src_loc loc) {
        tokens_[t.cpu].release(handoff_word(t.cpu, t.on), migrations_.known(), loc);
    }
    void take_cpu(unsigned task, src_loc loc) {
        task_state& t = tasks_[task];
        took(t, tokens_[t.cpu].acquire(task, loc));
    }
    // What a take teaches: the CPU's state, and what the releaser knew of the budget.
    bool took(task_state& t, const cpu_taken& k) {
        t.on = from_handoff(t.cpu, k.state);
        migrations_.learn(k.budget);
        return k.preempted;
    }

    kernel_config cfg_{};
    cpu_handlers handlers_[max_cpus]{};
    engine::cpu_token tokens_[max_cpus]{};
    task_state tasks_[max_tasks]{};
    engine::budget_word migrations_{};
    engine::shared_mask online_{}, dying_{};
    unsigned harness_cpu_ = 0;
    cpu_state harness_on_{};  // the harness's CPU, as the harness holds it
    unsigned warnings_ = 0;
    bool in_invariant_ = false;
    violation_record violation_{};
};

}  // namespace KVERIFY_ENGINE_NS
}  // namespace kverify::model
