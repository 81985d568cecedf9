// SPDX-License-Identifier: GPL-2.0-only
// Running one scenario on the dpor engine (model/dpor) and turning the result into a verdict:
// engine "dpor-rc11" (the default model) or "dpor-sc". The search is always exhaustive; a time
// budget or an execution cap that runs out gives "inconclusive", never "pass". A violation found
// under RC11 is searched for again under SC, so the verdict says whether it is a weak-memory bug
// (also_sc = "no") or an interleaving bug ("yes").
//
// Per execution the engine's harness thread resets the kernel and builds the scenario; task t
// runs on engine thread t + 1 between task_start and task_finish; the harness then runs after()
// and destroys the scenario. invariant() runs after every event.
#pragma once

#include <cstdlib>
#include <new>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/dpor/engine.hpp"
#include "model/kernel/kernel.hpp"
#include "model/runners/trace_text.hpp"
#include "model/check/verdict.hpp"

#ifndef KVERIFY_SOURCE_DIR
#define KVERIFY_SOURCE_DIR ""
#endif

namespace kverify::model {
inline namespace eng_dpor {

namespace dpor_detail {

// The engine's trace as a reviewer reads it: without the simulated kernel's own bookkeeping (the
// words it builds per execution, the CPU tokens and budget a task takes and gives back, delivery
// points where nothing was delivered: the notes "irq enter", "migrate"... say what happened),
// source paths relative to the repository, no template arguments in function names.
inline std::string clean_trace(const std::string& trace) {
    std::istringstream in(trace);
    std::string line, out;
    while (std::getline(in, line)) {
        const bool kernel_word = line.find(", kernel(0)") != std::string::npos &&
                                 (line.find("] load ") != std::string::npos ||
                                  line.find("] store ") != std::string::npos ||
                                  line.find("] init ") != std::string::npos ||
                                  line.find("] cas read ") != std::string::npos ||
                                  line.find("] rmw ") != std::string::npos);
        const bool nothing_delivered = line.find("] choice 0 of ") != std::string::npos;
        if (kernel_word || nothing_delivered) continue;
        out += model::detail::clean_location(line, KVERIFY_SOURCE_DIR) + "\n";
    }
    return out;
}

template <class Scenario>
dpor::result explore_scenario(const typename Scenario::params& p, const search_spec& spec,
                              dpor::memory_model model, const std::string& stop_class, bool trace) {
    static_assert(Scenario::tasks >= 1 && Scenario::tasks <= max_tasks, "task count");
    kernel& k = kernel::get();
    kernel_config cfg = apply_limits(p.kernel, spec.limits);
    cfg.nr_tasks = Scenario::tasks;
    k.configure(cfg);
    k.reset_run();

    alignas(Scenario) static unsigned char storage[sizeof(Scenario)];
    static Scenario* s = nullptr;
    s = nullptr;
    dpor::program prog;
    prog.tasks = Scenario::tasks;
    prog.setup = [&p] {
        s = nullptr;
        kernel::get().begin_iteration();
        s = ::new (static_cast<void*>(storage)) Scenario(p);
    };
    prog.task = [](unsigned t) {
        kernel::get().task_start(t);
        s->task(t);
        kernel::get().task_finish(t);
    };
    prog.teardown = [] {
        s->after();
        Scenario* done = s;
        s = nullptr;
        done->~Scenario();
    };
    dpor::options o;
    o.model = model;
    o.budget_s = spec.budget_s;
    o.max_executions = spec.execution_cap;
    o.max_events = spec.depth_limit;
    o.trace = trace;
    o.stop_class = stop_class;
    o.all_violations = stop_class.empty() && std::getenv("KVERIFY_ALL_VIOLATIONS") != nullptr;
    o.replay = spec.replay;
    o.context = [](unsigned thread) {
        char buf[64];
        kernel::get().context_label(buf, sizeof buf, thread == 0, thread == 0 ? 0 : thread - 1);
        return std::string(buf);
    };
    o.after_event = [] {
        if (s == nullptr) return;
        const auto scope = kernel::get().checking_invariant();
        s->invariant();
    };
    o.progress = [](std::uint64_t executions, std::uint64_t blocked) {
        progress_tick((executions + blocked) & ~std::uint64_t{255});
    };
    return dpor::explore(prog, o);
}

}  // namespace dpor_detail

template <class Scenario>
verdict run_dpor(const typename Scenario::params& p, const search_spec& spec,
                 dpor::memory_model model) {
    if (spec.kind != search_kind::exhaustive)
        throw std::invalid_argument(
            "the dpor engine explores every execution: its only search is exhaustive (asked: " +
            spec.str() + ")");
    const dpor::result r = dpor_detail::explore_scenario<Scenario>(p, spec, model, "", true);
    verdict v;
    v.search = spec;
    v.seconds = r.seconds;
    v.executions = r.executions;
    v.blocked = r.blocked;
    if (!r.violations.empty()) {
        const dpor::violation& x = r.violations.front();
        v.outcome = x.cls;
        v.detail = x.message;
        if (r.violations.size() > 1) {  // KVERIFY_ALL_VIOLATIONS: every class the search met
            v.detail += " (classes found:";
            for (const dpor::violation& y : r.violations) v.detail += " " + y.cls;
            v.detail += ")";
        }
        v.executions = x.at_execution;
        v.trace = spec.raw_trace ? x.trace : dpor_detail::clean_trace(x.trace);
        v.replay = x.replay;
        if (!spec.replay.empty()) return v;
        if (model == dpor::memory_model::rc11) {
            // Does it also occur under SC? (An interleaving bug, or a weak-memory one.)
            search_spec sc = spec;
            sc.replay.clear();
            const dpor::result s = dpor_detail::explore_scenario<Scenario>(
                p, sc, dpor::memory_model::sc, x.cls, false);
            v.also_sc = !s.violations.empty() ? "yes" : s.complete ? "no" : "unknown";
        }
    } else if (!spec.replay.empty()) {
        v.outcome = "pass";
        v.detail = "the saved execution runs to the end without a violation";
    } else if (!r.complete) {
        v.outcome = "inconclusive";
        v.detail = r.incomplete_reason + " reached after " +
                   std::to_string(r.executions + r.blocked) + " executions";
    } else {
        v.outcome = "pass";
    }
    return v;
}

template <class Scenario>
verdict run_dpor_rc11(const typename Scenario::params& p, const search_spec& spec) {
    return run_dpor<Scenario>(p, spec, dpor::memory_model::rc11);
}
template <class Scenario>
verdict run_dpor_sc(const typename Scenario::params& p, const search_spec& spec) {
    return run_dpor<Scenario>(p, spec, dpor::memory_model::sc);
}

// The engines of this build, each with its runner (scenario.hpp registers them).
template <class Scenario>
struct engine_runner {
    const char* name;
    verdict (*run)(const typename Scenario::params&, const search_spec&);
};

template <class Scenario>
std::vector<engine_runner<Scenario>> engine_runners() {
    return {{"dpor-rc11", &run_dpor_rc11<Scenario>}, {"dpor-sc", &run_dpor_sc<Scenario>}};
}

}  // namespace eng_dpor
}  // namespace kverify::model
