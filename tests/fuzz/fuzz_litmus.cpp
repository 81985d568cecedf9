// SPDX-License-Identifier: GPL-2.0-only
// libFuzzer target: the C litmus parser (model/litmus/parser.hpp) on any bytes: a file it does
// not support or that is malformed is a litmus_error, never a crash, a hang or a sanitizer
// report.
#include <cstdint>
#include <string>

#include "model/litmus/parser.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    try {
        (void)kverify::litmus::parse_test("fuzz.litmus",
                                          std::string(reinterpret_cast<const char*>(data), size));
    } catch (const kverify::litmus::litmus_error&) {
    }
    return 0;
}
