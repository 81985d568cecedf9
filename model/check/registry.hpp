// SPDX-License-Identifier: GPL-2.0-only
// The registry of named checks. A check is one scenario with one configuration; it holds a small
// table of the engines that can run it, each with its runner, and the registry finds a check by
// name through an index. Engine-neutral: no engine headers here (scenario.hpp fills the
// registry, once per engine build).
#pragma once

#include <algorithm>
#include <deque>
#include <functional>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "model/check/verdict.hpp"

namespace kverify::model {

// The check's own interrupt and migration budgets, the ceiling for search_limits when a
// counterexample is shrunk.
struct check_budgets {
    unsigned irq = 0;  // the largest IRQ budget of any CPU
    unsigned nmi = 0;  // the largest NMI budget of any CPU
    unsigned migrations = 0;
};

// One search of one check on one engine; the configuration is bound in.
using check_runner = std::function<verdict(const search_spec&)>;

struct check_engine {
    std::string name;  // relacy, dpor-rc11, dpor-sc
    check_runner run;
    // Every violation class this engine's search of the check can report, sorted: the
    // scenario's declared properties, the kernel's classes under the check's configuration and
    // the engine's own (scenario.hpp builds it). An expected verdict must be one of them, pass
    // or inconclusive.
    std::vector<std::string> classes;

    bool reports(const std::string& cls) const {
        return std::binary_search(classes.begin(), classes.end(), cls);
    }
};

struct check {
    std::string name;       // unique: algorithm/variant/config
    std::string algorithm;  // objpool, percpu_counter, litmus, kernel-model
    std::string variant;
    std::string config;  // human summary of the configuration
    check_budgets budgets;
    std::vector<check_engine> engines;  // in registration order; a few at most
    // A twin of the checker's own: the variant's code with a test Env, or the API misused, that
    // must fail to show a check can. Its violation is not the variant's (summaries keep it apart).
    bool checker_twin = false;
    // The configuration declares a symmetry the search uses (kernel_config::
    // irq_rounds_interchangeable); --no-symmetry sets it aside.
    bool symmetric = false;

    const check_engine* engine(const std::string& e) const {
        for (const check_engine& k : engines)
            if (k.name == e) return &k;
        return nullptr;
    }
    bool supports(const std::string& e) const { return engine(e) != nullptr; }

    // Runs one search on engine `e`; the verdict names that engine.
    verdict run(const std::string& e, const search_spec& s) const {
        const check_engine* k = engine(e);
        if (!k) throw std::invalid_argument("engine " + e + " cannot run this check");
        verdict v = k->run(s);
        v.engine = e;
        return v;
    }
};

class check_registry {
public:
    // Adds a check, or the engines of a check already registered under the same name: every
    // scenario file is built once per engine (model/engines/engine.hpp), and each build
    // registers its own engines' runners for the same checks.
    void add(check c) {
        for (const check_engine& e : c.engines)
            if (std::find(engines_.begin(), engines_.end(), e.name) == engines_.end())
                engines_.push_back(e.name);
        const auto [at, added] = index_.emplace(c.name, checks_.size());
        if (added) {
            checks_.push_back(std::move(c));
            return;
        }
        check& have = checks_[at->second];
        for (check_engine& e : c.engines) have.engines.push_back(std::move(e));
    }

    // Marks a registered check a twin of the checker (check::checker_twin).
    void mark_checker_twin(const std::string& name) {
        const auto at = index_.find(name);
        if (at != index_.end()) checks_[at->second].checker_twin = true;
    }

    const check* find(const std::string& name) const {
        const auto at = index_.find(name);
        return at == index_.end() ? nullptr : &checks_[at->second];
    }
    // Every check, in registration order.
    const std::deque<check>& all() const { return checks_; }
    // Every engine some check supports, in order of first registration.
    const std::vector<std::string>& engines() const { return engines_; }

private:
    std::deque<check> checks_;  // a deque: a check found once stays where it is
    std::unordered_map<std::string, std::size_t> index_;
    std::vector<std::string> engines_;
};

inline check_registry& registry() {
    static check_registry r;
    return r;
}

inline void register_check(check c) { registry().add(std::move(c)); }
inline const check* find_check(const std::string& name) { return registry().find(name); }
inline const std::vector<std::string>& known_engines() { return registry().engines(); }

// Runs fn() at static initialisation: each check file registers its checks this way.
struct registrar {
    explicit registrar(void (*fn)()) { fn(); }
};

}  // namespace kverify::model
