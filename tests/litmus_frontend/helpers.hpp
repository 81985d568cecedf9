// SPDX-License-Identifier: GPL-2.0-only
// Shared by the front-end's tests: fixture files, parse errors as "LINE:COL: message", and a
// whole run of the litmus command on strings.
#pragma once

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "model/litmus/litmus.hpp"
#include "model/litmus/parser.hpp"

namespace kverify::litmus::test_support {

inline std::string fixture_path(const std::string& name) {
    return std::string(LITMUS_FIXTURES) + "/" + name;
}

inline std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

// "LINE:COL: message" of the error parsing `src`, or "" when it parses.
inline std::string parse_error(const std::string& src) {
    try {
        parse_test("t.litmus", src);
    } catch (const litmus_error& e) {
        return std::to_string(e.pos.line) + ":" + std::to_string(e.pos.col) + ": " + e.what();
    }
    return "";
}

struct command_run {
    int status = 0;
    std::string out;
    std::string err;
};

inline command_run run_litmus(const std::vector<std::string>& files, const litmus_options& o) {
    std::ostringstream out, err;
    command_run r;
    r.status = litmus_main(files, o, out, err);
    r.out = out.str();
    r.err = err.str();
    return r;
}

inline litmus_options with_model(litmus_model m, bool judge = false) {
    litmus_options o;
    o.model = m;
    o.judge = judge;
    return o;
}

// The "Observation NAME WORD P N" line of an output, without "Observation NAME ".
inline std::string observation(const std::string& out) {
    const std::size_t at = out.find("Observation ");
    if (at == std::string::npos) return "";
    const std::size_t name_end = out.find(' ', at + 12);
    const std::size_t eol = out.find('\n', at);
    return out.substr(name_end + 1, eol - name_end - 1);
}

}  // namespace kverify::litmus::test_support
