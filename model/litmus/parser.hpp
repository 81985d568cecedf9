// SPDX-License-Identifier: GPL-2.0-only
// Parsing a C litmus test (the kernel's format) into its AST (ast.hpp). What the front-end does
// not support (loops, RCU, unknown functions, types other than int, atomic_t and spinlock_t)
// and every malformed file are a litmus_error with the position, never an approximation.
#pragma once

#include <string>

#include "model/litmus/ast.hpp"

namespace kverify::litmus {

// `file` names the test in errors and in the parsed test; `text` is its content.
test parse_test(const std::string& file, const std::string& text);

}  // namespace kverify::litmus
