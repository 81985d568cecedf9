// SPDX-License-Identifier: GPL-2.0-only
// Tests of what a counterexample says: traces that name memory by its role and print the same
// text in every process and run.
#include <regex>
#include <string>

#include <gtest/gtest.h>

#include "tests/cli/cli_run.hpp"

namespace {

using cli_trace = cli;

// An address as traces printed them before: a decimal of 10 or more digits (a pointer stored as
// a value) or a hex number of 6 or more digits (%p in a message).
bool has_raw_address(const std::string& s) {
    return std::regex_search(s, std::regex("(^|[^0-9@x])[0-9]{10,}|0x[0-9a-fA-F]{6,}"));
}

// verify's output without what changes from run to run: times and the -j of the summary line.
std::string timeless(const std::string& out) {
    std::string r = std::regex_replace(out, std::regex(" +[0-9.]+s  "), " ");
    r = std::regex_replace(r, std::regex("time: [^ \n]+( [a-z]+)?"), "time: T");
    return std::regex_replace(r, std::regex("\\([^()]* wall, -j [0-9]+\\)"), "(W)");
}

TEST_F(cli_trace, dpor_traces_name_memory_by_role_and_print_the_same_text_in_every_run) {
    // The detector's twins: it finds the addresses older traces held, and nothing in a clean one.
    EXPECT_TRUE(has_raw_address("[47] store loc15 := 139787655016584 (co 2/2), relaxed"));
    EXPECT_TRUE(has_raw_address("pop returned 0x55d3a1b2c3d4, not a pool object"));
    EXPECT_FALSE(has_raw_address("[47] store slot[cpu1].entries[1] := obj0 (co 2/2), relaxed"));

    // objpool's F1, on every engine: -j 1 and -j 2 print the same text, traces included.
    const char* const f1 = "^objpool/v6\\.15/c2-o1-np$";
    const result one = kverify({"verify", "--filter", f1, "--tier", "quick", "-j", "1", "--trace",
                                "--json", path("1.json")});
    const result two = kverify({"verify", "--filter", f1, "--tier", "quick", "-j", "2", "--trace"});
    ASSERT_EQ(one.status, 0) << one.out << one.err;
    ASSERT_EQ(two.status, 0) << two.out << two.err;
    EXPECT_EQ(timeless(one.out), timeless(two.out));
    EXPECT_NE(one.out.find("dpor-rc11"), std::string::npos) << one.out;
    EXPECT_FALSE(has_raw_address(one.out)) << one.out;
    for (const json& r : rows_of(path("1.json"))) EXPECT_FALSE(has_raw_address(r.dump())) << r;
    // The kernel heap's rows: their details and traces name the blocks too, on both engines.
    const result heap =
        kverify({"verify", "--filter", "^kernel/heap-", "--trace", "--json", path("heap.json")});
    ASSERT_EQ(heap.status, 0) << heap.out << heap.err;
    EXPECT_FALSE(has_raw_address(heap.out)) << heap.out;
    for (const json& r : rows_of(path("heap.json"))) EXPECT_FALSE(has_raw_address(r.dump())) << r;

    // The dpor trace names the pool's words and objects, and folds the setup into one line.
    const result r = kverify({"run", "objpool/v6.15/c2-o1-np", "--engine", "dpor-rc11",
                              "--save-replay", path("f1.json")});
    ASSERT_EQ(r.status, 1) << r.out << r.err;
    for (const char* part : {"(setup: the scenario and its objects constructed, events up to [",
                             "load slot[cpu1].last -> 1 (reads [", ".entries[", ":= obj"})
        EXPECT_NE(r.out.find(part), std::string::npos) << part << " not in\n" << r.out;
    EXPECT_FALSE(std::regex_search(r.out, std::regex(" loc[0-9]"))) << "every word is named:\n"
                                                                    << r.out;
    EXPECT_FALSE(has_raw_address(r.out)) << r.out;

    // Another process, other addresses: the replay prints the very same trace.
    const result p = kverify({"replay", path("f1.json")});
    EXPECT_EQ(p.status, 1) << p.out << p.err;
    EXPECT_NE(p.out.find("the trace is identical"), std::string::npos) << p.out;
}

}  // namespace
