// SPDX-License-Identifier: GPL-2.0-only
// Scenarios and their registration as named checks, for every engine.
//
// A scenario is a class with
//   static constexpr unsigned tasks;             // engine threads, one per task
//   struct params { kernel_config kernel; ... }; // the configuration of one check
//   explicit Scenario(const params&);            // runs each execution, kernel already reset
//   void task(unsigned t);                       // the body of task t (starts on its CPU)
//   void invariant();                            // optional: checked between steps (peek only:
//                                                // a function of what it peeks, asked again
//                                                // after each step that may change that)
//   void after();                                // optional: checked at quiescence
//   static constexpr const char* properties[] = {"loss", ...};  // the classes its expects use
//   static constexpr bool lkmm_ready = true;     // optional: the check may run on dpor-lkmm
// lkmm_ready says the check means something under load buffering, where a read may take the
// value of a write that runs later: invariant() is not run on dpor-lkmm (it would judge values
// mid-flight), and while model_env::load_buffering() the scenario's own bookkeeping is derived
// only from what each task read (per-task logs, judged in after()), never a shared timeline;
// values that decide later accesses stay tracked (tracked.hpp) or leave through raw().
// It is written against model_env and the kernel only, never an engine: each scenario file is
// built once per engine (model/engines/engine.hpp) and registers its checks for that build's
// engines. Properties are asserted with model::expect(cond, "class", fmt, ...): the class is what
// expected verdicts name, and it must be one of the scenario's `properties`. Those, the kernel's
// classes under the check's configuration and the engine's own are the check's verdict classes
// in the registry: the table may pin no other (cli/table.cpp), and a search that reports another
// is an error, not a verdict. A check is a scenario + params under a unique name.
//
// A runner never sees the scenario's type: program_of lowers it to a program (program.hpp), so
// a scenario type instantiates only the few functions below, and each engine's runner is compiled
// once (model/runners/*.cpp).
#pragma once

#include <algorithm>
#include <iterator>
#include <map>
#include <new>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

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

template <class S, class = void>
struct has_properties : std::false_type {};
template <class S>
struct has_properties<S, std::void_t<decltype(S::properties)>> : std::true_type {};

// The classes a check on this engine can report, sorted: the scenario's properties, the kernel's
// under its configuration, the engine's own. Registration asks for every configuration of every
// variant on every engine, thousands of times at each start of the program (where building and
// sorting them was half of a `kverify litmus` run on small tests): per scenario the answer is
// kept by the kernel's classes and the engine.
template <class Scenario>
std::vector<std::string> classes_of(const kernel_config& k, const engine_runner& r) {
    static std::map<std::pair<unsigned, const engine_runner*>, std::vector<std::string>> known;
    const auto key = std::make_pair(kernel_classes_key(k), &r);
    auto it = known.find(key);
    if (it != known.end()) return it->second;
    std::vector<std::string> c = kernel_classes(k);
    if constexpr (has_properties<Scenario>::value)
        c.insert(c.end(), std::begin(Scenario::properties), std::end(Scenario::properties));
    const std::vector<std::string> own = r.classes();
    c.insert(c.end(), own.begin(), own.end());
    std::sort(c.begin(), c.end());
    c.erase(std::unique(c.begin(), c.end()), c.end());
    known.emplace(key, c);
    return c;
}

// A violation of a class the check does not declare is the check's own fault (an expect whose
// class is missing from `properties`, an engine class not listed): reported as an error naming
// it, never as a verdict the table could match.
inline verdict declared_only(verdict v, const std::vector<std::string>& classes) {
    if (v.found_violation() && !std::binary_search(classes.begin(), classes.end(), v.outcome)) {
        v.detail = "the search reported class '" + v.outcome +
                   "', which the check does not declare (scenario properties, kernel or engine "
                   "classes): " +
                   v.detail;
        v.outcome = "error";
    }
    return v;
}

template <class Scenario>
void add_check(std::string name, std::string algorithm, std::string variant, std::string config,
               typename Scenario::params p) {
    check c{std::move(name),   std::move(algorithm), std::move(variant),
            std::move(config), budgets_of(p.kernel), {}};
    kernel_config k = p.kernel;
    k.nr_tasks = Scenario::tasks;
    if (const std::string why = validate_symmetry(k); !why.empty())
        throw std::logic_error("check " + c.name +
                               " declares its IRQ rounds interchangeable with " + why);
    c.symmetric = k.irq_rounds_interchangeable;
    for (const engine_runner& r : engine_runners) {
        if (r.needs_lkmm_ready && !is_lkmm_ready<Scenario>::value) continue;
        std::vector<std::string> classes = classes_of<Scenario>(p.kernel, r);
        c.engines.push_back({r.name,
                             [p, run = r.run, classes](const search_spec& s) {
                                 return declared_only(run(program_of<Scenario>(p), s), classes);
                             },
                             classes});
    }
    register_check(std::move(c));
}

}  // namespace KVERIFY_ENGINE_NS
}  // namespace kverify::model
