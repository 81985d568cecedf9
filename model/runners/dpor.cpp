// SPDX-License-Identifier: GPL-2.0-only
// The dpor runner (dpor.hpp), compiled once in the dpor build: any program runs on the engine's
// type-erased dpor::program. Per execution the engine's harness thread resets the kernel and
// constructs the scenario; task t runs on engine thread t + 1 between task_start and
// task_finish; the harness then runs after() and destroys the scenario. invariant() runs after
// every event that may have changed what it peeks (not under the LKMM).
#include "model/runners/dpor.hpp"

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/dpor/engine.hpp"
#include "model/kernel/kernel.hpp"
#include "model/runners/trace_text.hpp"

#ifndef KVERIFY_SOURCE_DIR
#define KVERIFY_SOURCE_DIR ""
#endif

namespace kverify::model {
inline namespace eng_dpor {

namespace {

// The engine's trace as a reviewer reads it: without the simulated kernel's own bookkeeping (the
// words it builds per execution, the CPU tokens and budget a task takes and gives back, delivery
// points where nothing was delivered: the notes "irq enter", "migrate"... say what happened),
// source paths relative to the repository, no template arguments in function names.
// The scenario's setup (the events before the engine's "(setup done" line) is folded into one
// line, as on Relacy; reads of its writes still name them by number.
std::string clean_trace(const std::string& trace) {
    const std::size_t setup_end = trace.find("(setup done: the tasks start)\n");
    std::istringstream in(trace);
    std::string line, out;
    if (setup_end != std::string::npos) {
        const std::size_t last = trace.rfind("\n[", setup_end);
        const std::string upto =
            last == std::string::npos ? "" : trace.substr(last + 1, trace.find(']', last) - last);
        out = "(setup: the scenario and its objects constructed, events up to " + upto +
              " not shown)\n";
        in.seekg(std::streamoff(setup_end));
        std::getline(in, line);  // the engine's own marker
    }
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

// What a thread that runs the program keeps (dpor::options::on_thread): the scenario, at the same
// address in every execution of the search, and whether it is constructed (`s` is null while it
// is not: no invariant then).
struct on_thread {
    scenario_storage storage;
    void* s = nullptr;
    explicit on_thread(const program& prog) : storage(prog) {}
};
thread_local std::optional<on_thread> here;

// `judge_as_lkmm`: the scenario judges as under the LKMM (per-task logs, no invariant()) even
// on another model: the SC re-check of a violation found under the LKMM.
dpor::result explore(const program& prog, const search_spec& spec, dpor::memory_model model,
                     const std::string& stop_class, bool trace, bool judge_as_lkmm = false) {
    if (prog.tasks < 1 || prog.tasks > max_tasks)
        throw std::invalid_argument("a program of " + std::to_string(prog.tasks) + " tasks (1 to " +
                                    std::to_string(max_tasks) + ")");
    dpor::program dp;
    dp.tasks = prog.tasks;
    dp.setup = [&prog] {
        on_thread& h = *here;
        h.s = nullptr;
        kernel::get().begin_iteration();
        prog.construct(h.storage.get(), prog.params);
        h.s = h.storage.get();
    };
    dp.task = [&prog](unsigned t) {
        kernel::get().task_start(t);
        prog.task(here->storage.get(), t);
        kernel::get().task_finish(t);
    };
    dp.teardown = [&prog] {
        on_thread& h = *here;
        prog.after(h.s);
        void* done = h.s;
        h.s = nullptr;
        prog.destroy(done);
    };
    dpor::options o;
    o.threads = spec.threads;
    // Each thread of the search runs a kernel (kernel::get() is per thread) and a scenario of
    // its own.
    const kernel_config cfg = apply_limits(prog.kernel, spec.limits);
    o.on_thread = [&prog, cfg](bool start) {
        if (!start) {
            here.reset();
            return;
        }
        kernel& k = kernel::get();
        k.configure(cfg);
        k.reset_run();
        here.emplace(prog);
    };
    o.model = model;
    o.budget_s = spec.budget_s;
    o.max_executions = spec.execution_cap;
    o.max_events = spec.depth_limit;
    o.trace = trace;
    o.stop_class = stop_class;
    o.all_violations = stop_class.empty() && std::getenv("KVERIFY_ALL_VIOLATIONS") != nullptr;
    o.replay = spec.replay;
    o.split_part = spec.split_part;
    o.split_parts = spec.split_parts;
    if (spec.behaviors) {
        o.collect_graphs = true;
        o.hidden = [](std::uintptr_t a) {  // the kernel's own words are members of it
            const auto k = reinterpret_cast<std::uintptr_t>(&kernel::get());
            return a >= k && a < k + sizeof(kernel);
        };
    }
    o.context = [](unsigned thread) {
        char buf[64];
        kernel::get().context_label(buf, sizeof buf, thread == 0, thread == 0 ? 0 : thread - 1);
        return std::string(buf);
    };
    // Under the LKMM there is no global state between two steps (a read may take the value of
    // a write that runs later), so invariant() is not run: an lkmm_ready scenario judges its
    // properties from what its tasks read, in after() (scenario.hpp).
    o.judge_as_lkmm = judge_as_lkmm;
    if (model != dpor::memory_model::lkmm && !judge_as_lkmm)
        o.after_event = [&prog] {
            void* const s = here->s;
            if (s == nullptr) return false;
            const auto scope = kernel::get().checking_invariant();
            prog.invariant(s);
            return true;
        };
    o.progress = [](std::uint64_t executions, std::uint64_t blocked) {
        progress_tick((executions + blocked) & ~std::uint64_t{255});
    };
    return dpor::explore(dp, o);
}

verdict run_dpor(const program& prog, const search_spec& spec, dpor::memory_model model) {
    if (spec.kind != search_kind::exhaustive)
        throw std::invalid_argument(
            "the dpor engine explores every execution: its only search is exhaustive (asked: " +
            spec.str() + ")");
    const dpor::result r = explore(prog, spec, model, "", true);
    verdict v;
    v.search = spec;
    v.seconds = r.seconds;
    v.executions = r.executions;
    v.blocked = r.blocked;
    v.stale_cut = r.stale_cut;
    v.in_place = r.in_place;
    if (spec.behaviors) {
        v.behaviors = r.graphs;
        for (std::string& b : v.behaviors) {  // one line each: " | " between the text's lines
            if (!b.empty() && b.back() == '\n') b.pop_back();
            for (std::size_t at = b.find('\n'); at != std::string::npos; at = b.find('\n', at))
                b.replace(at, 1, " | ");
        }
        std::sort(v.behaviors.begin(), v.behaviors.end());
        v.behaviors.erase(std::unique(v.behaviors.begin(), v.behaviors.end()), v.behaviors.end());
    }
    if (spec.split_parts > 0) {
        v.split.depth = r.split_depth;
        v.split.roots = r.split_roots;
        for (const dpor::result::chunk& c : r.split_chunks)
            v.split.chunks.push_back({c.index, c.executions, c.blocked});
        if (!r.violations.empty()) {
            v.split.violation_chunk = r.violations.front().split_chunk;
            v.split.violation_elsewhere = r.violations.front().counted_elsewhere;
        }
        v.split.by_fingerprint = model == dpor::memory_model::lkmm;
        v.split.ends.reserve(r.counted_ends.size());
        for (const dpor::result::counted_end& e : r.counted_ends)
            v.split.ends.push_back(
                {e.a, e.b, e.chunk, static_cast<model::counted_end::kind_t>(e.kind)});
    }
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
        v.trace = spec.raw_trace ? x.trace : clean_trace(x.trace);
        v.replay = x.replay;
        if (!spec.replay.empty()) return v;
        if (model != dpor::memory_model::sc) {
            // Does it also occur under SC? (An interleaving bug, or a weak-memory one.)
            search_spec sc = spec;
            sc.replay.clear();
            sc.split_part = sc.split_parts = 0;  // the whole search, as unsplit
            sc.behaviors = false;
            const dpor::result s = explore(prog, sc, dpor::memory_model::sc, x.cls, false,
                                           model == dpor::memory_model::lkmm);
            v.also_sc = !s.violations.empty() ? "yes" : s.complete ? "no" : "unknown";
            v.seconds += s.seconds;  // the row's time: often most of it (a whole SC search)
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

}  // namespace

std::vector<std::string> dpor_classes() {
    // What model/dpor reports of its own (explore.cpp, memory.cpp, fibers.cpp); a class added
    // there and not here turns its verdicts into errors (scenario.hpp), so the list cannot drift
    // silently.
    return {"data-race", "deadlock", "double-free",   "event-limit", "invalid-free",
            "leak",      "livelock", "out-of-memory", "uninit",      "use-after-free"};
}

verdict run_dpor_lkmm(const program& prog, const search_spec& spec) {
    return run_dpor(prog, spec, dpor::memory_model::lkmm);
}

verdict run_dpor_rc11(const program& prog, const search_spec& spec) {
    return run_dpor(prog, spec, dpor::memory_model::rc11);
}
verdict run_dpor_sc(const program& prog, const search_spec& spec) {
    return run_dpor(prog, spec, dpor::memory_model::sc);
}

}  // namespace eng_dpor
}  // namespace kverify::model
