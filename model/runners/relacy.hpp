// SPDX-License-Identifier: GPL-2.0-only
// The Relacy runner (relacy.cpp, built once in the Relacy build): one search of a program
// (model/kernel/program.hpp) on Relacy, turned into a verdict with its search kind: exhaustive,
// bounded (context bound k) or sampled (N random executions). A time budget or an execution cap
// that runs out gives "inconclusive", never "pass". A failing search also yields its replay
// string (Relacy's scheduler state at the failing execution), which runs exactly that execution
// again when given back as search_spec::replay.
#pragma once

#include "model/check/verdict.hpp"
#include "model/kernel/program.hpp"

namespace kverify::model {
inline namespace eng_relacy {

verdict run_relacy(const program& prog, const search_spec& spec);
// The classes Relacy reports of its own (its test results, as the runner names them).
std::vector<std::string> relacy_classes();

// The engines of this build (scenario.hpp registers every check with each).
inline constexpr engine_runner engine_runners[] = {{"relacy", &run_relacy, &relacy_classes}};

}  // namespace eng_relacy
}  // namespace kverify::model
