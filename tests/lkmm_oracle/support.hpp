// SPDX-License-Identifier: GPL-2.0-only
// Shared by the LKMM oracle's tests: reading litmus files and herd7's expectations
// (EXPECTED.tsv: the columns its header describes), and an oracle result in the same columns.
#pragma once

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "model/litmus/parser.hpp"
#include "tests/lkmm_oracle/oracle.hpp"

namespace kverify::lkmm_oracle::test_support {

inline std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

inline litmus::test parse_file(const std::string& path) {
    return litmus::parse_test(path, read_file(path));
}

// One row of EXPECTED.tsv, or the same columns of an oracle result.
struct summary {
    std::string file;
    std::string observation, result, positive, negative, states, flags;

    std::string text() const {
        return observation + " " + result + " " + positive + " " + negative + " {" + states + "} " +
               flags;
    }
    friend bool operator==(const summary& a, const summary& b) { return a.text() == b.text(); }
};

inline std::vector<summary> load_expected(const std::string& dir) {
    std::vector<summary> out;
    std::istringstream in(read_file(dir + "/EXPECTED.tsv"));
    for (std::string line; std::getline(in, line);) {
        if (line.empty() || line[0] == '#') continue;
        std::vector<std::string> f;
        std::size_t at = 0;
        for (std::size_t tab; (tab = line.find('\t', at)) != std::string::npos; at = tab + 1)
            f.push_back(line.substr(at, tab - at));
        f.push_back(line.substr(at));
        if (f.size() != 7) continue;  // the test that loads the rows counts them
        out.push_back(summary{dir + "/" + f[0], f[1], f[2], f[3], f[4], f[5], f[6]});
    }
    return out;
}

inline summary summarise(const std::string& file, const oracle_result& r) {
    summary s;
    s.file = file;
    s.observation = r.observation;
    s.result = r.ok ? "Ok" : "No";
    s.positive = std::to_string(r.positive);
    s.negative = std::to_string(r.negative);
    for (const std::string& st : r.states) s.states += (s.states.empty() ? "" : " | ") + st;
    for (const std::string& f : r.flags) s.flags += (s.flags.empty() ? "" : ",") + f;
    if (s.flags.empty()) s.flags = "-";
    return s;
}

inline summary run_file(const std::string& file, const oracle_options& o = {}) {
    return summarise(file, run_oracle(parse_file(file), o));
}

}  // namespace kverify::lkmm_oracle::test_support
