// SPDX-License-Identifier: GPL-2.0-only
// `kverify list`: the registered checks (name, algorithm, variant, configuration, engines), one
// line each, tab-separated, in registration order.
#include <iostream>

#include "model/cli/commands.hpp"

namespace kverify::cli {

int cmd_list(const list_options& o) {
    const name_filter re(o.filter);
    for (const check& c : model::registry().all()) {
        if (!re.matches(c.name) || (!o.engine.empty() && !c.supports(o.engine))) continue;
        std::string engines;
        for (const model::check_engine& e : c.engines)
            engines += (engines.empty() ? "" : ",") + e.name;
        std::cout << c.name << "\t" << c.algorithm << "\t" << c.variant << "\t" << c.config << "\t"
                  << engines << "\n";
    }
    return exit_ok;
}

}  // namespace kverify::cli
