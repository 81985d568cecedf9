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
// expected verdicts name. A check is a scenario + params under a unique name.
#pragma once

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

struct check {
    std::string name;       // unique: algorithm/variant/config
    std::string algorithm;  // objpool, percpu_counter, litmus, kernel-model
    std::string variant;
    std::string config;  // human summary of the configuration
    std::function<verdict(const search_spec&)> run;
};

inline std::vector<check>& registry() {
    static std::vector<check> r;
    return r;
}

template <class Scenario>
void add_check(std::string name, std::string algorithm, std::string variant, std::string config,
               typename Scenario::params p) {
    registry().push_back(check{std::move(name), std::move(algorithm), std::move(variant),
                               std::move(config), [p](const search_spec& s) {
                                   return run_scenario<Scenario>(p, s);
                               }});
}

// Runs fn() at static initialisation: each check file registers its checks this way.
struct registrar {
    explicit registrar(void (*fn)()) { fn(); }
};

}  // namespace kverify::model
