// SPDX-License-Identifier: GPL-2.0-only
// The registry of named checks. A check is one scenario with one configuration; each engine that
// can run it (today only "relacy") appears in its engine list, and check::run dispatches on the
// engine name. Engine-neutral: no engine headers here (scenario.hpp fills the registry).
#pragma once

#include <functional>
#include <string>
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

struct check {
    std::string name;       // unique: algorithm/variant/config
    std::string algorithm;  // objpool, percpu_counter, litmus, kernel-model
    std::string variant;
    std::string config;                // human summary of the configuration
    std::vector<std::string> engines;  // engines that can run it, in registration order
    check_budgets budgets;
    // Runs one search on one engine of `engines`.
    std::function<verdict(const std::string& engine, const search_spec&)> run;

    bool supports(const std::string& engine) const {
        for (const std::string& e : engines)
            if (e == engine) return true;
        return false;
    }
};

inline std::vector<check>& registry() {
    static std::vector<check> r;
    return r;
}

// Adds a check, or the engines of a check already registered under the same name: every
// scenario file is built once per engine (model/engines/engine.hpp), and each build registers its own
// engines' runners for the same checks.
inline void register_check(check c) {
    for (check& have : registry()) {
        if (have.name != c.name) continue;
        auto first = std::move(have.run);
        auto second = std::move(c.run);
        const std::vector<std::string> second_engines = c.engines;
        for (const std::string& e : c.engines) have.engines.push_back(e);
        have.run = [first, second, second_engines](const std::string& engine,
                                                   const search_spec& s) {
            for (const std::string& e : second_engines)
                if (e == engine) return second(engine, s);
            return first(engine, s);
        };
        return;
    }
    registry().push_back(std::move(c));
}

inline const check* find_check(const std::string& name) {
    for (const check& c : registry())
        if (c.name == name) return &c;
    return nullptr;
}

// Every engine some check supports, in order of first registration.
inline std::vector<std::string> known_engines() {
    std::vector<std::string> r;
    for (const check& c : registry())
        for (const std::string& e : c.engines) {
            bool seen = false;
            for (const std::string& k : r) seen = seen || k == e;
            if (!seen) r.push_back(e);
        }
    return r;
}

// Runs fn() at static initialisation: each check file registers its checks this way.
struct registrar {
    explicit registrar(void (*fn)()) { fn(); }
};

}  // namespace kverify::model
