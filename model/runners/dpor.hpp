// SPDX-License-Identifier: GPL-2.0-only
// The dpor runner (dpor.cpp, built once in the dpor build): one search of a program
// (model/kernel/program.hpp) on the dpor engine (model/dpor), turned into a verdict: engine
// "dpor-rc11" (the default model), "dpor-sc" or "dpor-lkmm" (the Linux kernel memory model). The
// search is always exhaustive; a time budget or an execution cap that runs out gives
// "inconclusive", never "pass". A violation found under RC11 or the LKMM is searched for again
// under SC, so the verdict says whether it is a weak-memory bug (also_sc = "no") or an
// interleaving bug ("yes").
#pragma once

#include "model/check/verdict.hpp"
#include "model/kernel/program.hpp"

namespace kverify::model {
inline namespace eng_dpor {

verdict run_dpor_rc11(const program& prog, const search_spec& spec);
verdict run_dpor_sc(const program& prog, const search_spec& spec);
verdict run_dpor_lkmm(const program& prog, const search_spec& spec);
// The classes the dpor engine reports of its own, on every memory model.
std::vector<std::string> dpor_classes();

// The engines of this build (scenario.hpp registers every check with each).
inline constexpr engine_runner engine_runners[] = {
    {"dpor-rc11", &run_dpor_rc11, &dpor_classes},
    {"dpor-sc", &run_dpor_sc, &dpor_classes},
    {"dpor-lkmm", &run_dpor_lkmm, &dpor_classes, true}};

}  // namespace eng_dpor
}  // namespace kverify::model
