// SPDX-License-Identifier: GPL-2.0-only
// Scenarios and the registry of named checks.
//
// A scenario is a class with
//   static constexpr unsigned tasks;             // Relacy threads, one per task
//   struct params { kernel_config kernel; ... }; // the configuration of one check
//   explicit Scenario(const params&);            // runs each execution, kernel already reset
//   void task(unsigned t);                       // the body of task t (starts on its CPU)
//   void invariant();                            // optional: checked at every step (peek only)
//   void after();                                // optional: checked at quiescence
// Properties are asserted with model::expect(cond, "class", fmt, ...): the class is what
// expected verdicts name. A check is a scenario + params under a unique name, registered with
// add_check for every engine in engine_runners (model/registry.hpp).
#pragma once

#include <stdexcept>

#include "model/registry.hpp"
#include "model/runner.hpp"

namespace kverify::model {

struct scenario_base {
    void invariant() {}
    void after() {}
};

// A printf format that remembers where the check was written (the caller's line).
struct checked_fmt {
    const char* fmt;
    src_loc loc;
    checked_fmt(const char* f, src_loc l = {}) : fmt(f), loc(l) {}  // NOLINT: implicit on purpose
};

template <class... Args>
inline void expect(bool cond, const char* cls, checked_fmt f, Args... args) {
    if (!cond) kernel::get().fail(cls, f.loc, f.fmt, args...);
}

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
            for (auto& q : rq) q.store(0, rl::mo_relaxed, RL_INFO);
            kernel::get().attach_runqueues(rq);
        }
    } runqueues_;
    Scenario s_{params};

    void thread(unsigned t) {
        kernel::get().task_start(t);
        s_.task(t);
        kernel::get().task_finish(t);
    }
    void invariant() { s_.invariant(); }
    void after() { s_.after(); }
};

template <class Scenario>
verdict run_scenario(const typename Scenario::params& p, const search_spec& spec) {
    suite<Scenario>::params = p;
    kernel_config cfg = p.kernel;
    cfg.nr_tasks = Scenario::tasks;
    return run_suite<suite<Scenario>>(spec, cfg);
}

// The engines that can run a scenario type, each with its runner. An engine is plugged in by
// adding its entry here; every check of the scenario then lists it and dispatches to it.
template <class Scenario>
struct engine_runner {
    const char* name;
    verdict (*run)(const typename Scenario::params&, const search_spec&);
};

template <class Scenario>
std::vector<engine_runner<Scenario>> engine_runners() {
    return {{"relacy", &run_scenario<Scenario>}};
}

inline check_budgets budgets_of(const kernel_config& k) {
    check_budgets b;
    for (unsigned c = 0; c < max_cpus; ++c) {
        b.irq = std::max(b.irq, k.irq_budget[c]);
        b.nmi = std::max(b.nmi, k.nmi_budget[c]);
    }
    b.migrations = k.migration_budget;
    return b;
}

template <class Scenario>
void add_check(std::string name, std::string algorithm, std::string variant, std::string config,
               typename Scenario::params p) {
    check c{std::move(name), std::move(algorithm), std::move(variant), std::move(config), {},
            budgets_of(p.kernel), nullptr};
    for (const engine_runner<Scenario>& r : engine_runners<Scenario>()) c.engines.push_back(r.name);
    c.run = [p](const std::string& engine, const search_spec& s) {
        for (const engine_runner<Scenario>& r : engine_runners<Scenario>()) {
            if (engine != r.name) continue;
            verdict v = r.run(p, s);
            v.engine = engine;
            return v;
        }
        throw std::invalid_argument("engine " + engine + " cannot run this check");
    };
    registry().push_back(std::move(c));
}

}  // namespace kverify::model
