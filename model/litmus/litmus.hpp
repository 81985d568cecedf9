// SPDX-License-Identifier: GPL-2.0-only
// `kverify litmus`: run C litmus tests (the Linux kernel's format) on the dpor engine and print
// what herd7 prints for each. The memory model is a backend switch: lkmm (the engine's LKMM mode,
// with the primitives and dependencies as herd7 has them), rc11 and sc (on the project's
// primitive mapping).
//
// Exit status: 0 every file ran (and, with judge, every observation is its Result line's);
// 1 a judged observation differs; 2 a file is unreadable, malformed or uses what is not
// supported, or (judge) has no Result line, or the model is not available; 3 a search ran out
// of its limit (inconclusive), nothing else went wrong. The worst status wins: 2, 1, then 3.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

namespace kverify::litmus {

enum class litmus_model : std::uint8_t { lkmm, rc11, sc };

struct litmus_options {
    litmus_model model = litmus_model::lkmm;
    bool judge = false;                // compare each Observation with the file's Result line
    std::uint64_t max_executions = 0;  // per file; 0: no limit
    double budget_s = 0;               // per file, wall clock; 0: none
};

bool parse_litmus_model(const std::string& s, litmus_model& out);

int litmus_main(const std::vector<std::string>& files, const litmus_options& opt, std::ostream& out,
                std::ostream& err);

}  // namespace kverify::litmus
