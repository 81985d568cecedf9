// SPDX-License-Identifier: GPL-2.0-only
// `kverify litmus FILE...`: the C litmus front-end (model/litmus) under the LKMM (default), RC11
// or SC, printing what herd7 prints; --judge compares each Observation with the file's Result.
// Exit status: 0, 1 (a judged observation differs), 2 (a bad or unsupported file), 3 (a search
// ran out of its budget: inconclusive), as model/litmus/litmus.hpp says.
#include <iostream>

#include "model/cli/commands.hpp"
#include "model/litmus/litmus.hpp"

namespace kverify::cli {

int cmd_litmus(const litmus_command_options& o) {
    litmus::litmus_options opt;
    if (!litmus::parse_litmus_model(o.model, opt.model))
        throw usage_error("unknown model '" + o.model + "' (lkmm, rc11 or sc)");
    opt.judge = o.judge;
    opt.max_executions = o.budget.max_executions;
    opt.budget_s = o.budget.seconds;
    return litmus::litmus_main(o.files, opt, std::cout, std::cerr);
}

}  // namespace kverify::cli
