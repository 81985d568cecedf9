// SPDX-License-Identifier: GPL-2.0-only
// `kverify list`: the registered checks (name, algorithm, variant, configuration, engines), one
// line each, tab-separated, in registration order; with --classes, one line per check and
// engine: the verdicts an expected-verdict row may name; with --symmetric, only the checks that
// declare a symmetry.
#include <iostream>

#include "model/cli/commands.hpp"

namespace kverify::cli {

int cmd_list(const list_options& o) {
    const name_filter re(o.filter);
    for (const check& c : model::registry().all()) {
        if (!re.matches(c.name) || (!o.engine.empty() && !c.supports(o.engine))) continue;
        if (o.symmetric && !c.symmetric) continue;
        if (o.classes) {
            for (const model::check_engine& e : c.engines) {
                if (!o.engine.empty() && e.name != o.engine) continue;
                std::cout << c.name << "\t" << e.name << "\tpass,inconclusive";
                for (const std::string& k : e.classes) std::cout << "," << k;
                std::cout << "\n";
            }
            continue;
        }
        std::string engines;
        for (const model::check_engine& e : c.engines)
            engines += (engines.empty() ? "" : ",") + e.name;
        std::cout << c.name << "\t" << c.algorithm << "\t" << c.variant << "\t" << c.config << "\t"
                  << engines << "\n";
    }
    return exit_ok;
}

}  // namespace kverify::cli
