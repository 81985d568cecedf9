// SPDX-License-Identifier: GPL-2.0-only
// A litmus test on the dpor engine under RC11, SC or the LKMM: each thread Pn is a task that the
// interpreter runs on a backend mapping the LKMM kinds onto dpor::rt with the project's
// primitive mapping (the table in dpor_backend.cpp) for RC11 and SC, and passing each call's
// kernel primitive and dependencies to the engine under the LKMM; the harness thread writes the
// initial values and reads the final state.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "model/dpor/engine.hpp"
#include "model/litmus/ast.hpp"

namespace kverify::litmus {

struct dpor_run_options {
    dpor::memory_model model = dpor::memory_model::rc11;
    std::uint64_t max_executions = 0;  // 0: no limit
    double budget_s = 0;               // 0: none
    bool collect_graphs = false;       // keep the canonical text of every execution (tests)
};

struct run_result {
    // The values of the observed registers and locations (in the order asked) at the end of
    // each complete execution, with how many executions ended so.
    std::vector<std::pair<std::vector<value>, std::uint64_t>> finals;
    std::uint64_t executions = 0;  // complete executions
    std::uint64_t blocked = 0;     // cut short: a lock taken, a guess of an RMW's value missed
    bool complete = true;          // false: a limit ran out (inconclusive)
    std::string incomplete_reason;
    bool deadlock = false;              // some executions cannot end (a lock nobody releases)
    std::vector<std::string> flags;     // LKMM: the flags some execution raised (data-race, ...)
    std::vector<std::string> graphs;    // collect_graphs: each complete execution's graph
    std::optional<litmus_error> error;  // the test did what the model cannot run
};

// Whether the RC11/SC mapping can run `t` at all (plain accesses, too many threads): the first
// reason it cannot, as an error at its position.
std::optional<litmus_error> dpor_unsupported(const test& t, dpor::memory_model m);

run_result run_on_dpor(const test& t, const std::vector<rloc>& observed,
                       const dpor_run_options& opt);

}  // namespace kverify::litmus
