// SPDX-License-Identifier: GPL-2.0-only
// Running one Relacy search and turning its outcome into a verdict that carries its search kind:
// exhaustive (rl::sched_full), bounded (context bound k, rl::sched_bound) or sampled (N random
// executions). A time budget that runs out gives "inconclusive", never "pass".
#pragma once

#include "model/kernel.hpp"

namespace kverify::model {

enum class search_kind { exhaustive, bounded, sampled };

struct search_spec {
    search_kind kind = search_kind::exhaustive;
    unsigned bound = 0;          // context bound, for bounded
    std::uint64_t samples = 0;   // executions, for sampled
    unsigned depth_limit = 20000;  // steps per execution before Relacy calls it a livelock
    double budget_s = 0;         // wall-clock budget, 0 = none

    // "exhaustive", "bounded:K" or "sampled:N"
    std::string str() const {
        switch (kind) {
            case search_kind::exhaustive: return "exhaustive";
            case search_kind::bounded: return "bounded:" + std::to_string(bound);
            case search_kind::sampled: return "sampled:" + std::to_string(samples);
        }
        return "?";
    }
    static bool parse(const std::string& s, search_spec& out, std::string& err) {
        search_spec r;
        const auto num = [&](const std::string& prefix, std::uint64_t& v) {
            if (s.compare(0, prefix.size(), prefix) != 0) return false;
            const std::string digits = s.substr(prefix.size());
            if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos ||
                digits.size() > 12)
                return false;
            v = std::stoull(digits);
            return v > 0;
        };
        std::uint64_t v = 0;
        if (s == "exhaustive") {
            r.kind = search_kind::exhaustive;
        } else if (num("bounded:", v) && v <= 64) {
            r.kind = search_kind::bounded;
            r.bound = static_cast<unsigned>(v);
        } else if (num("sampled:", v)) {
            r.kind = search_kind::sampled;
            r.samples = v;
        } else {
            err = "invalid search '" + s + "' (expected exhaustive, bounded:K with 1<=K<=64, or "
                  "sampled:N with N>=1)";
            return false;
        }
        out = r;
        return true;
    }
};

struct verdict {
    std::string outcome;  // "pass", "inconclusive", or the class of the violation found
    std::string detail;   // the violation's message
    std::uint64_t executions = 0;
    search_spec search;
    double seconds = 0;
    std::string trace;  // counterexample, in kernel terms (empty on pass)

    bool found_violation() const { return outcome != "pass" && outcome != "inconclusive"; }
};

namespace detail {

inline const char* relacy_outcome(rl::test_result_e r) {
    switch (r) {
        case rl::test_result_data_race: return "data-race";
        case rl::test_result_access_to_freed_memory: return "use-after-free";
        case rl::test_result_double_free: return "double-free";
        case rl::test_result_memory_leak:
        case rl::test_result_resource_leak: return "leak";
        case rl::test_result_unitialized_access: return "uninit";
        case rl::test_result_deadlock: return "deadlock";
        case rl::test_result_livelock: return "livelock";
        case rl::test_result_recursion_on_nonrecursive_mutex: return "self-deadlock";
        case rl::test_result_user_invariant_failed: return "invariant";
        default: return "assert";
    }
}

// Keeps Relacy's global history (one line per event, in execution order) and drops the
// per-thread repetition that follows it.
inline std::string trim_history(const std::string& out) {
    std::istringstream in(out);
    std::string line, result;
    bool in_history = false;
    while (std::getline(in, line)) {
        if (!in_history) {
            if (line.rfind("execution history", 0) == 0) in_history = true;
            else if (!line.empty() && line.find_first_of(" :") != std::string::npos &&
                     line.rfind("iteration:", 0) != 0)
                result += line + "\n";  // the failure line
            continue;
        }
        if (line.empty()) break;
        result += line + "\n";
    }
    return result;
}

}  // namespace detail

template <class Suite>
verdict run_suite(const search_spec& spec, const kernel_config& cfg) {
    kernel& k = kernel::get();
    k.configure(cfg);
    k.reset_run();
    const auto start = std::chrono::steady_clock::now();
    if (spec.budget_s > 0)
        k.set_deadline(start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                   std::chrono::duration<double>(spec.budget_s)));
    else
        k.clear_deadline();

    // Relacy replaces operator new while a search runs: its output goes through buffers that
    // allocate with malloc directly (rl::ostringstream), never through operator new.
    rl::ostringstream out, progress;
    rl::test_params p;
    p.output_stream = &out;
    p.progress_stream = &progress;
    p.execution_depth_limit = spec.depth_limit;
    switch (spec.kind) {
        case search_kind::exhaustive: p.search_type = rl::sched_full; break;
        case search_kind::bounded:
            p.search_type = rl::sched_bound;
            p.context_bound = spec.bound;
            break;
        case search_kind::sampled:
            p.search_type = rl::sched_random;
            p.iteration_count = static_cast<rl::iteration_t>(spec.samples);
            break;
    }
    rl::simulate<Suite>(p);
    k.clear_deadline();

    verdict v;
    v.search = spec;
    v.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    v.executions = p.stop_iteration;
    if (k.budget_exhausted()) {
        v.outcome = "inconclusive";
        v.detail = "time budget of " + std::to_string(spec.budget_s) + " s exhausted after " +
                   std::to_string(p.stop_iteration) + " executions";
    } else if (p.test_result == rl::test_result_success) {
        v.outcome = "pass";
    } else {
        const violation_record& r = k.violation();
        v.outcome = r.set ? r.cls : detail::relacy_outcome(p.test_result);
        v.detail = r.set ? std::string(r.msg) : std::string(rl::test_result_str(p.test_result));
        v.trace = detail::trim_history(std::string(out.str().c_str()));
    }
    return v;
}

}  // namespace kverify::model
