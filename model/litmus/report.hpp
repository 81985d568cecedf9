// SPDX-License-Identifier: GPL-2.0-only
// The result of a litmus test as herd7 prints it: the test's kind, the distinct final states
// of the shown registers and locations (sorted as herd7 sorts them), whether the condition
// holds, the witnesses (executions, as herd7 counts them, not states) and the observation.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "model/litmus/ast.hpp"

namespace kverify::litmus {

// What the output shows: the registers and locations of `locations [...]` and of the
// condition, each once, in herd7's order (registers by thread then name, then locations).
std::vector<rloc> displayed_rlocs(const test& t);
// What a run must record: the displayed ones and those of the filter.
std::vector<rloc> observed_rlocs(const test& t);

// The final condition's proposition (or the filter's) on one final state of `observed`.
bool holds(const prop& p, const std::vector<rloc>& observed, const std::vector<value>& state);

struct outcome {
    std::string text;         // herd7's block, from "Test" to "Observation", and a blank line
    std::string observation;  // Never, Sometimes or Always
    std::uint64_t positive = 0;
    std::uint64_t negative = 0;
};

// `finals` are the observed values at the end of complete executions, with their counts.
// `flags`: what herd7 prints as "Flag NAME" lines (the LKMM's flags some execution raised).
outcome herd_report(const test& t, const std::vector<rloc>& observed,
                    const std::vector<std::pair<std::vector<value>, std::uint64_t>>& finals,
                    const std::vector<std::string>& flags = {});

}  // namespace kverify::litmus
