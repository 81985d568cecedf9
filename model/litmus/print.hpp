// SPDX-License-Identifier: GPL-2.0-only
// Text of a parsed test: values, registers and locations as herd7 prints them (`0:r1`, `[x]`,
// a pointer by its location's name), conditions in herd7's normal form (`not (...)`, the
// parentheses it puts), and the whole test back in litmus syntax, which parses to the same AST.
#pragma once

#include <string>

#include "model/litmus/ast.hpp"

namespace kverify::litmus {

std::string value_text(const test& t, const value& v);
// `0:r1` or `[x]` (brackets: false gives `x`).
std::string rloc_text(const test& t, const rloc& r, bool brackets = true);
std::string prop_text(const test& t, const prop& p);
// `exists (...)`, `~exists (...)` or `forall (...)`.
std::string condition_text(const test& t);
std::string expr_text(const test& t, const thread& th, const expr& e);
// The test in litmus syntax (comments dropped).
std::string print_test(const test& t);

}  // namespace kverify::litmus
