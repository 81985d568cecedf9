// SPDX-License-Identifier: GPL-2.0-only
// The simulated kernel on top of Relacy: CPUs, tasks, IRQ/NMI contexts, irq and preemption
// disabling, migration, and the bookkeeping behind the single-owner and debug-preempt checks.
//
// One Relacy thread per task. A task holds one CPU at a time (a token: two tasks never run on one
// CPU at once). Interrupts run inline on the interrupted task's Relacy thread, so code of one CPU
// only nests, never runs in parallel with itself. At every delivery point (the start of each
// modeled operation, see model_env) the search may choose, under budgets: nothing, an IRQ (irqs
// on, none running on this CPU), an NMI (none running), a migration of a preemptible task to
// another online CPU, or, when another task waits for this CPU, being preempted by it.
// See model/ASSUMPTIONS.md for what this does and does not model.
#pragma once

#include "impl/common.hpp"
#include <cstdarg>

#include "model/relacy.hpp"

namespace kverify::model {

inline constexpr unsigned max_cpus = 4;   // model CPU ids 0..3
inline constexpr unsigned max_tasks = 6;  // Relacy threads

enum class ctx_kind : std::uint8_t { task, irq, nmi };
using handler_fn = void (*)(unsigned cpu, void* arg);

// Immutable during one search. Set by the scenario (see scenario.hpp) before each run.
struct kernel_config {
    unsigned nr_tasks = 2;
    cpumask possible = cpumask::first_n(2);
    cpumask online = cpumask::first_n(2);
    unsigned task_cpu[max_tasks] = {0, 1, 2, 3, 0, 1};  // CPU each task starts on
    unsigned irq_budget[max_cpus] = {};                  // IRQs deliverable per CPU
    unsigned nmi_budget[max_cpus] = {};                  // NMIs deliverable per CPU
    unsigned migration_budget = 0;                       // migrations, all tasks together
    bool check_single_owner = true;
    bool check_debug_preempt = true;
    bool warn_is_violation = true;  // a fired warn_once fails the execution
};

// The first property violation of an execution, with its class (a short name that expected
// verdicts refer to, e.g. "single-owner", "debug-preempt", "duplicate").
struct violation_record {
    bool set = false;
    const char* cls = "";
    char msg[256] = {};
    src_loc loc{"", 0, ""};
};

class kernel {
public:
    struct cpu_state {
        bool irqs_off = false;
        bool in_irq = false;
        bool in_nmi = false;
        unsigned irq_left = 0;
        unsigned nmi_left = 0;
        int holder = -1;       // task running on this CPU, -1 when free
        unsigned waiters = 0;  // tasks waiting to run here
        handler_fn irq_fn = nullptr;
        void* irq_arg = nullptr;
        handler_fn nmi_fn = nullptr;
        void* nmi_arg = nullptr;
    };
    struct task_state {
        unsigned cpu = 0;
        unsigned preempt_count = 0;
        ctx_kind stack[4] = {ctx_kind::task};
        unsigned depth = 0;  // 0: task context; >0: inside irq/nmi handlers
        bool running = false;
    };

    static kernel& get() noexcept {
        static kernel k;
        return k;
    }

    // ----- run setup (the runner and the suite wrapper call these) -----
    void configure(const kernel_config& cfg) noexcept { cfg_ = cfg; }
    const kernel_config& config() const noexcept { return cfg_; }
    void set_deadline(std::chrono::steady_clock::time_point d) noexcept {
        deadline_ = d;
        has_deadline_ = true;
    }
    void clear_deadline() noexcept { has_deadline_ = false; }
    bool budget_exhausted() const noexcept { return budget_exhausted_; }
    void reset_run() noexcept {
        budget_exhausted_ = false;
        violation_ = violation_record{};
    }

    // Called at the start of every iteration, before the scenario is constructed.
    void begin_iteration() noexcept {
        for (unsigned c = 0; c < max_cpus; ++c) {
            cpus_[c] = cpu_state{};
            cpus_[c].irq_left = cfg_.irq_budget[c];
            cpus_[c].nmi_left = cfg_.nmi_budget[c];
        }
        for (unsigned t = 0; t < max_tasks; ++t) {
            tasks_[t] = task_state{};
            tasks_[t].cpu = cfg_.task_cpu[t];
        }
        migrations_left_ = cfg_.migration_budget;
        online_ = cfg_.online;
        dying_ = cpumask{};
        harness_cpu_ = cfg_.online.next(-1);
        warnings_ = 0;
    }

    // The scheduler's synchronisation per CPU (the run-queue lock and its barriers): one modeled
    // atomic per CPU that the task leaving a CPU and the task arriving on it both RMW with
    // acq_rel, so a task that runs on a CPU after another sees what the other did there.
    void attach_runqueues(rl::atomic<unsigned>* rq) noexcept {
        for (unsigned c = 0; c < max_cpus; ++c) rq_[c] = &rq[c];
    }

    void set_irq_handler(unsigned cpu, handler_fn fn, void* arg) noexcept {
        cpus_[cpu].irq_fn = fn;
        cpus_[cpu].irq_arg = arg;
    }
    void set_nmi_handler(unsigned cpu, handler_fn fn, void* arg) noexcept {
        cpus_[cpu].nmi_fn = fn;
        cpus_[cpu].nmi_arg = arg;
    }
    // CPU on whose behalf code outside task bodies (scenario constructor, after()) runs.
    void set_harness_cpu(unsigned cpu) noexcept { harness_cpu_ = cpu; }

    void task_start(unsigned task) {
        task_state& t = tasks_[task];
        acquire_cpu(task, t.cpu, src_loc("kernel", 0, "task start"));
        t.running = true;
    }
    void task_finish(unsigned task) {
        point(src_loc("kernel", 0, "task end"));  // an interrupt may still hit the last op
        task_state& t = tasks_[task];
        t.running = false;
        release_cpu(t.cpu, src_loc("kernel", 0, "task end"));
    }

    // ----- queries -----
    bool in_body() const noexcept {
        return rl::is_ctx() && rl::ctx().threadx_ != nullptr &&
               tasks_[rl::thread_index()].running;
    }
    unsigned current_cpu() const noexcept {
        return in_body() ? tasks_[rl::thread_index()].cpu : harness_cpu_;
    }
    cpu_state& cpu(unsigned c) noexcept { return cpus_[c]; }
    task_state* current_task() noexcept {
        return in_body() ? &tasks_[rl::thread_index()] : nullptr;
    }
    bool irqs_disabled() const noexcept { return cpus_[current_cpu()].irqs_off; }
    bool preemptible() const noexcept {
        if (!in_body()) return false;  // harness code is never preempted
        const task_state& t = tasks_[rl::thread_index()];
        return t.depth == 0 && t.preempt_count == 0 && !cpus_[t.cpu].irqs_off;
    }
    unsigned warnings() const noexcept { return warnings_; }
    // Hotplug state: changed by scenarios at delivery points, read by algorithms. Kept as plain
    // simulator state (always current): see ASSUMPTIONS.md.
    cpumask online() const noexcept { return online_; }
    cpumask dying() const noexcept { return dying_; }
    void set_online(unsigned cpu, bool on) noexcept { on ? online_.set(cpu) : online_.clear(cpu); }
    void set_dying(unsigned cpu, bool d) noexcept { d ? dying_.set(cpu) : dying_.clear(cpu); }
    const violation_record& violation() const noexcept { return violation_; }

    // ----- operations the Env maps onto -----
    void preempt_disable() noexcept {
        if (task_state* t = current_task()) ++t->preempt_count;
    }
    void preempt_enable() noexcept {
        if (task_state* t = current_task()) --t->preempt_count;
    }
    unsigned long irq_save() noexcept {
        cpu_state& c = cpus_[current_cpu()];
        const unsigned long was_off = c.irqs_off ? 1 : 0;
        c.irqs_off = true;
        return was_off;
    }
    void irq_restore(unsigned long flags) noexcept { cpus_[current_cpu()].irqs_off = flags != 0; }

    // The kernel's debug-preempt check (smp_processor_id, __this_cpu_* while preemptible).
    void check_preemption_disabled(const char* what, src_loc loc) {
        if (cfg_.check_debug_preempt && preemptible())
            fail("debug-preempt", loc, "%s in preemptible code (task %u on cpu%u)", what,
                 rl::thread_index(), current_cpu());
    }

    void warn(const char* what, src_loc loc) {
        ++warnings_;
        if (cfg_.warn_is_violation) fail("warn", loc, "warn_once fired: %s", what);
    }

    // A delivery point: the search chooses whether something happens before the next operation.
    void point(src_loc loc) {
        if (!in_body()) return;
        check_deadline(loc);
        const unsigned me = rl::thread_index();
        task_state& t = tasks_[me];
        cpu_state& c = cpus_[t.cpu];
        const bool irq_ok = !c.irqs_off && !c.in_irq && !c.in_nmi && c.irq_left > 0 && c.irq_fn;
        const bool nmi_ok = !c.in_nmi && c.nmi_left > 0 && c.nmi_fn;
        const bool can_switch = t.depth == 0 && t.preempt_count == 0 && !c.irqs_off;
        unsigned targets[max_cpus];
        unsigned nr_targets = 0;
        if (can_switch && migrations_left_ > 0)
            for (unsigned cpu = online_.next(-1); cpu < max_cpus; cpu = online_.next(int(cpu)))
                if (cpu != t.cpu) targets[nr_targets++] = cpu;
        const bool yield_ok = can_switch && c.waiters > 0;

        const unsigned n = 1 + irq_ok + nmi_ok + nr_targets + yield_ok;
        if (n == 1) return;
        unsigned k = rl::rand(n);
        if (k-- == 0) return;
        if (irq_ok && k-- == 0) return run_handler(ctx_kind::irq, loc);
        if (nmi_ok && k-- == 0) return run_handler(ctx_kind::nmi, loc);
        if (k < nr_targets) return migrate(targets[k], loc);
        preempted(loc);
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
        char desc[320];
        std::snprintf(desc, sizeof desc, "%s: %s", cls, violation_.msg);
        rl::ctx().fail_test(desc, rl::test_result_user_assert_failed, info(loc));
    }

    // Relacy debug info naming the CPU and context, for the trace. Built only while Relacy
    // collects a history (the replay of a failing execution), so the search itself stays cheap.
    rl::debug_info info(src_loc loc) {
        if (!rl::is_ctx() || !rl::ctx().collecting_history())
            return rl::debug_info(loc.func, loc.file, loc.line);
        char buf[160];
        if (!in_body()) {
            std::snprintf(buf, sizeof buf, "[harness cpu%u] %s", harness_cpu_, loc.func);
        } else {
            const unsigned me = rl::thread_index();
            const task_state& t = tasks_[me];
            static const char* const kinds[] = {"task", "irq", "nmi"};
            std::snprintf(buf, sizeof buf, "[cpu%u %s T%u] %s", t.cpu,
                          kinds[static_cast<int>(t.stack[t.depth])], me, loc.func);
        }
        return rl::debug_info(intern(buf), loc.file, loc.line);
    }

    [[gnu::format(printf, 3, 4)]] void log(src_loc loc, const char* fmt, ...) {
        if (!rl::is_ctx() || !rl::ctx().collecting_history()) return;
        char buf[200];
        va_list ap;
        va_start(ap, fmt);
        std::vsnprintf(buf, sizeof buf, fmt, ap);
        va_end(ap);
        rl::ctx().exec_log_msg(info(loc), buf);
    }

    // Single-owner bookkeeping for one location: the declared owner CPU (-1: none) and the CPU
    // with a CPU-local RMW in flight on it.
    struct local_rmw_state {
        int owner = -1;
        int inflight_cpu = -1;
        unsigned inflight_depth = 0;
    };
    void local_rmw_begin(local_rmw_state& s, const char* what, src_loc loc) {
        const int cpu = static_cast<int>(current_cpu());
        if (cfg_.check_single_owner) {
            if (s.owner >= 0 && s.owner != cpu)
                fail("single-owner", loc, "%s on a location owned by cpu%d, issued from cpu%d",
                     what, s.owner, cpu);
            if (s.inflight_cpu >= 0 && s.inflight_cpu != cpu)
                fail("single-owner", loc,
                     "%s from cpu%d while cpu%d has a CPU-local RMW in flight on it", what, cpu,
                     s.inflight_cpu);
        }
        if (s.inflight_depth == 0 || s.inflight_cpu != cpu) s.inflight_depth = 0;
        s.inflight_cpu = cpu;
        ++s.inflight_depth;
    }
    void local_rmw_end(local_rmw_state& s) noexcept {
        if (s.inflight_depth > 0 && --s.inflight_depth == 0) s.inflight_cpu = -1;
    }

private:
    kernel() = default;

    // Once the budget is gone every later point stops at once: Relacy replays a stopped search
    // from the interrupted execution to record its history, and that replay must stop too
    // instead of running the rest of the search.
    void check_deadline(src_loc loc) {
        if (!has_deadline_) return;
        if (!budget_exhausted_) {
            if ((++deadline_tick_ & 1023u) != 0) return;
            if (std::chrono::steady_clock::now() < deadline_) return;
            budget_exhausted_ = true;
        }
        rl::ctx().rl_until("time budget exhausted", info(loc));
    }

    void run_handler(ctx_kind kind, src_loc loc) {
        const unsigned me = rl::thread_index();
        task_state& t = tasks_[me];
        const unsigned cpu = t.cpu;
        cpu_state& c = cpus_[cpu];
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
        (irq ? c.irq_fn : c.nmi_fn)(cpu, irq ? c.irq_arg : c.nmi_arg);
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
        const unsigned me = rl::thread_index();
        task_state& t = tasks_[me];
        --migrations_left_;
        log(loc, "migrate T%u cpu%u -> cpu%u", me, t.cpu, to);
        release_cpu(t.cpu, loc);
        t.cpu = to;
        acquire_cpu(me, to, loc);
    }

    void preempted(src_loc loc) {
        const unsigned me = rl::thread_index();
        task_state& t = tasks_[me];
        log(loc, "T%u preempted on cpu%u", me, t.cpu);
        release_cpu(t.cpu, loc);
        acquire_cpu(me, t.cpu, loc);
    }

    void acquire_cpu(unsigned task, unsigned cpu, src_loc loc) {
        cpu_state& c = cpus_[cpu];
        if (c.holder >= 0 && c.holder != static_cast<int>(task)) {
            ++c.waiters;
            while (c.holder >= 0) rl::ctx().yield(1, info(loc));  // the runner of cpu goes first
            --c.waiters;
        }
        c.holder = static_cast<int>(task);
        runqueue_sync(cpu, loc);  // pairs with the one in release_cpu
    }

    void release_cpu(unsigned cpu, src_loc loc) {
        runqueue_sync(cpu, loc);  // pairs with the one in acquire_cpu
        cpus_[cpu].holder = -1;
    }

    // Only when CPUs can change hands at all (a migration budget or more tasks than CPUs); done
    // without a scheduling point of its own: the handoff already happens at a delivery point.
    void runqueue_sync(unsigned cpu, src_loc loc) {
        if (cfg_.migration_budget == 0 && cfg_.nr_tasks <= online_.weight()) return;
        rl::preemption_disabler no_switch(rl::ctx());
        rq_[cpu]->fetch_add(1, rl::mo_acq_rel, info(loc));
    }

    static const char* intern(const char* s) {
        using str = rl::string;
        static std::set<str, std::less<str>, rl::raw_allocator<str>> pool;
        return pool.insert(str(s)).first->c_str();
    }

    kernel_config cfg_{};
    rl::atomic<unsigned>* rq_[max_cpus] = {};
    cpu_state cpus_[max_cpus]{};
    task_state tasks_[max_tasks]{};
    unsigned migrations_left_ = 0;
    cpumask online_{};
    cpumask dying_{};
    unsigned harness_cpu_ = 0;
    unsigned warnings_ = 0;
    violation_record violation_{};
    std::chrono::steady_clock::time_point deadline_{};
    bool has_deadline_ = false;
    bool budget_exhausted_ = false;
    unsigned deadline_tick_ = 0;
};

}  // namespace kverify::model
