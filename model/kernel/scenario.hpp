// SPDX-License-Identifier: GPL-2.0-only
// Scenarios and their registration as named checks, for every engine.
//
// A scenario is a class with
//   static constexpr unsigned tasks;             // engine threads, one per task
//   struct params { kernel_config kernel; ... }; // the configuration of one check
//   explicit Scenario(const params&);            // runs each execution, kernel already reset
//   void task(unsigned t);                       // the body of task t (starts on its CPU)
//   void invariant();                            // optional: checked between steps (peek only)
//   void after();                                // optional: checked at quiescence
//   static constexpr bool lkmm_ready = true;     // optional: the check may run on dpor-lkmm
// lkmm_ready says the check means something under load buffering, where a read may take the
// value of a write that runs later: invariant() is not run on dpor-lkmm (it would judge values
// mid-flight), and while model_env::load_buffering() the scenario's own bookkeeping is derived
// only from what each task read (per-task logs, judged in after()), never a shared timeline;
// values that decide later accesses stay tracked (tracked.hpp) or leave through raw().
// It is written against model_env and the kernel only, never an engine: each scenario file is
// built once per engine (model/engines/engine.hpp) and registers its checks for that build's
// engines. Properties are asserted with model::expect(cond, "class", fmt, ...): the class is what
// expected verdicts name. A check is a scenario + params under a unique name.
//
// A runner never sees the scenario's type: program_of lowers it to a program (program.hpp), so
// a scenario type instantiates only the few functions below, and each engine's runner is compiled
// once (model/runners/*.cpp).
#pragma once

#include <new>
#include <stdexcept>
#include <type_traits>

#include "model/check/registry.hpp"
#include "model/kernel/kernel.hpp"
#include "model/kernel/program.hpp"
#if defined(KVERIFY_ENGINE_DPOR)
#include "model/runners/dpor.hpp"
#else
#include "model/runners/relacy.hpp"
#endif

namespace kverify::model {
inline namespace KVERIFY_ENGINE_NS {

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

// The task this code runs as (0-based), or -1 in harness code (constructor, after()).
inline int current_task_index() {
    return kernel::get().in_body() ? int(engine::thread_index()) : -1;
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

// The scenario with these params as a program; `p` must outlive every run of it.
template <class Scenario>
program program_of(const typename Scenario::params& p) {
    static_assert(Scenario::tasks >= 1 && Scenario::tasks <= max_tasks, "task count");
    using params = typename Scenario::params;
    program prog;
    prog.tasks = Scenario::tasks;
    prog.kernel = p.kernel;
    prog.kernel.nr_tasks = Scenario::tasks;
    prog.size = sizeof(Scenario);
    prog.align = alignof(Scenario);
    prog.params = &p;
    prog.construct = [](void* at, const void* q) {
        ::new (at) Scenario(*static_cast<const params*>(q));
    };
    prog.task = [](void* s, unsigned t) { static_cast<Scenario*>(s)->task(t); };
    prog.invariant = [](void* s) { static_cast<Scenario*>(s)->invariant(); };
    prog.after = [](void* s) { static_cast<Scenario*>(s)->after(); };
    prog.destroy = [](void* s) { static_cast<Scenario*>(s)->~Scenario(); };
    return prog;
}

template <class S, class = void>
struct is_lkmm_ready : std::false_type {};
template <class S>
struct is_lkmm_ready<S, std::void_t<decltype(S::lkmm_ready)>> : std::bool_constant<S::lkmm_ready> {
};

template <class Scenario>
void add_check(std::string name, std::string algorithm, std::string variant, std::string config,
               typename Scenario::params p) {
    check c{std::move(name),   std::move(algorithm), std::move(variant),
            std::move(config), budgets_of(p.kernel), {}};
    for (const engine_runner& r : engine_runners) {
        if (r.needs_lkmm_ready && !is_lkmm_ready<Scenario>::value) continue;
        c.engines.push_back({r.name, [p, run = r.run](const search_spec& s) {
                                 return run(program_of<Scenario>(p), s);
                             }});
    }
    register_check(std::move(c));
}

}  // namespace KVERIFY_ENGINE_NS
}  // namespace kverify::model
