// SPDX-License-Identifier: GPL-2.0-only
// Running one Relacy search and turning its outcome into a verdict that carries its search kind:
// exhaustive (rl::sched_full), bounded (context bound k, rl::sched_bound) or sampled (N random
// executions). A time budget or an execution cap that runs out gives "inconclusive", never
// "pass". A failing search also yields its replay string: Relacy's scheduler state at the failing
// execution (rl::test_params::final_state), which, given back as initial_state, runs exactly that
// execution again.
#pragma once

#include "model/kernel/kernel.hpp"
#include "model/runners/trace_text.hpp"
#include "model/check/verdict.hpp"

#ifndef KVERIFY_SOURCE_DIR
#define KVERIFY_SOURCE_DIR ""
#endif

namespace kverify::model {
inline namespace eng_relacy {

// A scenario as a Relacy test suite: one Relacy thread per task. Per execution: the kernel is
// reset, the run-queue words are built, then the scenario; each thread runs its task between
// task_start and task_finish; invariant() runs at every scheduling point, after() at the end.
template <class Scenario>
struct suite : rl::test_suite<suite<Scenario>, Scenario::tasks> {
    static_assert(Scenario::tasks >= 1 && Scenario::tasks <= max_tasks, "task count");
    static inline typename Scenario::params params{};

    struct reset {
        reset() { kernel::get().begin_iteration(); }
    } reset_;
    struct runqueues {
        rl::atomic<unsigned> rq[max_cpus];
        runqueues() {
            for (unsigned c = 0; c < max_cpus; ++c) {
                rq[c].store(0, rl::mo_relaxed, RL_INFO);
                engine::runqueue(c) = &rq[c];
            }
        }
    } runqueues_;
    Scenario s_{params};

    void thread(unsigned t) {
        kernel::get().task_start(t);
        s_.task(t);
        kernel::get().task_finish(t);
    }
    void invariant() {
        const auto scope = kernel::get().checking_invariant();
        s_.invariant();
    }
    void after() { s_.after(); }
};

namespace relacy_detail {

inline const char* relacy_outcome(rl::test_result_e r) {
    switch (r) {
        case rl::test_result_data_race:
            return "data-race";
        case rl::test_result_access_to_freed_memory:
            return "use-after-free";
        case rl::test_result_double_free:
            return "double-free";
        case rl::test_result_memory_leak:
        case rl::test_result_resource_leak:
            return "leak";
        case rl::test_result_unitialized_access:
            return "uninit";
        case rl::test_result_deadlock:
            return "deadlock";
        case rl::test_result_livelock:
            return "livelock";
        case rl::test_result_recursion_on_nonrecursive_mutex:
            return "self-deadlock";
        case rl::test_result_user_invariant_failed:
            return "invariant";
        default:
            return "assert";
    }
}

// Executions of the search running now (counted in counted<Suite>::before) and the cap on them.
struct search_counter {
    std::uint64_t executions = 0;
    std::uint64_t cap = 0;  // 0: none
    bool cap_hit = false;
};

inline search_counter& counter() {
    static search_counter c;
    return c;
}

// The scenario's suite, counting executions: Relacy calls before() once at the start of each.
template <class Suite>
struct counted : Suite {
    void before() {
        search_counter& c = counter();
        ++c.executions;
        // Sticky once hit: Relacy then replays the stopping execution to print its history, and
        // that replay must stop at once as well.
        if (c.cap != 0 && c.executions > c.cap) {
            c.cap_hit = true;
            rl::ctx().rl_until("execution cap reached", RL_INFO);
        }
        progress_tick(c.executions);
        Suite::before();
    }
};

}  // namespace relacy_detail

template <class Suite>
verdict run_suite(const search_spec& spec, const kernel_config& cfg) {
    kernel& k = kernel::get();
    k.configure(apply_limits(cfg, spec.limits));
    k.reset_run();
    const auto start = std::chrono::steady_clock::now();
    if (spec.budget_s > 0)
        engine::deadline() = engine::deadline_state{
            start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                        std::chrono::duration<double>(spec.budget_s)),
            true, false, 0};
    else
        engine::deadline() = engine::deadline_state{};
    const bool replay = !spec.replay.empty();
    relacy_detail::search_counter& counter = relacy_detail::counter();
    counter = relacy_detail::search_counter{};
    counter.cap = replay ? 1 : spec.execution_cap;  // a replay runs one execution, never more

    // Relacy replaces operator new while a search runs: its output goes through buffers that
    // allocate with malloc directly (rl::ostringstream), never through operator new.
    rl::ostringstream out, progress;
    rl::test_params p;
    p.output_stream = &out;
    p.progress_stream = &progress;
    p.execution_depth_limit = spec.depth_limit;
    switch (spec.kind) {
        case search_kind::exhaustive:
            p.search_type = rl::sched_full;
            break;
        case search_kind::bounded:
            p.search_type = rl::sched_bound;
            p.context_bound = spec.bound;
            break;
        case search_kind::sampled:
            p.search_type = rl::sched_random;
            p.iteration_count = static_cast<rl::iteration_t>(spec.samples);
            break;
    }
    if (replay) {
        // "<execution> <scheduler state>": Relacy starts at that execution with that state and,
        // collecting history from the start, prints it when the execution fails.
        p.initial_state = spec.replay.c_str();
        p.collect_history = true;
    }
    rl::simulate<relacy_detail::counted<Suite>>(p);
    const bool budget_exhausted = engine::deadline().exhausted;
    engine::deadline() = engine::deadline_state{};

    verdict v;
    v.search = spec;
    v.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    v.executions = p.stop_iteration;
    char buf[160];
    if (budget_exhausted) {
        v.outcome = "inconclusive";
        std::snprintf(buf, sizeof buf, "time budget of %g s exhausted after %llu executions",
                      spec.budget_s, static_cast<unsigned long long>(p.stop_iteration));
        v.detail = buf;
    } else if (counter.cap_hit && replay) {
        v.outcome = "pass";
        v.detail = "the saved execution runs to the end without a violation";
        v.replay = spec.replay;
    } else if (counter.cap_hit) {
        v.outcome = "inconclusive";
        v.executions = spec.execution_cap;  // the next one was stopped before it began
        std::snprintf(buf, sizeof buf, "execution cap of %llu reached",
                      static_cast<unsigned long long>(spec.execution_cap));
        v.detail = buf;
    } else if (p.test_result == rl::test_result_success) {
        v.outcome = "pass";
        if (replay) v.detail = "the saved execution runs to the end without a violation";
    } else {
        const violation_record& r = k.violation();
        v.outcome = r.set ? r.cls : relacy_detail::relacy_outcome(p.test_result);
        v.detail = r.set ? std::string(r.msg) : std::string(rl::test_result_str(p.test_result));
        v.trace = model::detail::clean_relacy_trace(std::string(out.str().c_str()),
                                                    KVERIFY_SOURCE_DIR, spec.raw_trace);
        v.replay = replay ? spec.replay : std::string(p.final_state.c_str());
    }
    return v;
}

template <class Scenario>
verdict run_scenario(const typename Scenario::params& p, const search_spec& spec) {
    suite<Scenario>::params = p;
    kernel_config cfg = p.kernel;
    cfg.nr_tasks = Scenario::tasks;
    return run_suite<suite<Scenario>>(spec, cfg);
}

// The engines of this build, each with its runner (scenario.hpp registers them).
template <class Scenario>
struct engine_runner {
    const char* name;
    verdict (*run)(const typename Scenario::params&, const search_spec&);
};

template <class Scenario>
std::vector<engine_runner<Scenario>> engine_runners() {
    return {{"relacy", &run_scenario<Scenario>}};
}

}  // namespace eng_relacy
}  // namespace kverify::model
