// SPDX-License-Identifier: GPL-2.0-only
// Tests of what a counterexample says: traces that name memory by its role and print the same
// text in every process and run, and the same counterexample drawn as an execution graph.
#include <cstdlib>
#include <regex>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "tests/cli/cli_helpers.hpp"

namespace {

using namespace kverify_cli_test;

using cli_trace = cli;

// An address as traces printed them before: a decimal of 10 or more digits (a pointer stored as
// a value) or a hex number of 6 or more digits (%p in a message).
bool has_raw_address(const std::string& s) {
    return std::regex_search(s, std::regex("(^|[^0-9@x])[0-9]{10,}|0x[0-9a-fA-F]{6,}"));
}

// A JSON row less its fingerprint (a hex digest, whose digits are no address) and its time
// (a double whose shortest form can have ten digits or more).
std::string row_text(json r) {
    r.erase("fingerprint");
    r.erase("seconds");
    return r.dump();
}

// verify's output without what changes from run to run: times and the -j of the summary line.
std::string timeless(const std::string& out) {
    std::string r = std::regex_replace(out, std::regex(" +[0-9.]+s  "), " ");
    r = std::regex_replace(r, std::regex("time: [^ \n]+( [a-z]+)?"), "time: T");
    return std::regex_replace(r, std::regex("wall time [^\n]*"), "wall time W");
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
    for (const json& r : rows_of(path("1.json"))) EXPECT_FALSE(has_raw_address(row_text(r))) << r;
    // The kernel heap's rows: their details and traces name the blocks too, on both engines.
    const result heap =
        kverify({"verify", "--filter", "^kernel/heap-", "--trace", "--json", path("heap.json")});
    ASSERT_EQ(heap.status, 0) << heap.out << heap.err;
    EXPECT_FALSE(has_raw_address(heap.out)) << heap.out;
    for (const json& r : rows_of(path("heap.json")))
        EXPECT_FALSE(has_raw_address(row_text(r))) << r;

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

TEST_F(cli_trace, run_draws_the_counterexample_as_an_execution_graph) {
    const result r = kverify({"run", "pcpu_stat/mut-read-write/irq1-mig0", "--engine", "dpor-rc11",
                              "--no-shrink", "--graph", path("g.dot")});
    ASSERT_EQ(r.status, 1) << r.out << r.err;
    EXPECT_NE(r.out.find("graph written to " + path("g.dot")), std::string::npos) << r.out;
    const std::string dot = slurp(path("g.dot"));
    // The same events as the text trace: every numbered line is a node.
    std::istringstream trace(r.out);
    int nodes = 0;
    for (std::string line; std::getline(trace, line);) {
        if (line.rfind("[", 0) != 0) continue;
        const std::string id = line.substr(1, line.find(']') - 1);
        EXPECT_NE(dot.find("  e" + id + " [label=\"[" + id + "] "), std::string::npos) << line;
        ++nodes;
    }
    EXPECT_GE(nodes, 15);
    for (const char* part :
         {"digraph counterexample {", "label=\"cpu1\"", "label=\"task T1\"", "label=\"irq\"",
          "setup [label=\"setup: the scenario",
          // T1 reads its own store [28] at [30]; the IRQ's store [34] follows [28] in co
          "e28 -> e30 [label=\"rf\"", "e28 -> e34 [label=\"co stat[cpu1]\"",
          "e40 [label=\"[40] violation: lost-update", "inc  impl/pcpu_stat.hpp:30",
          "e26 [label=\"[26] load stat[cpu1] -> 0 (reads [8]"})
        EXPECT_NE(dot.find(part), std::string::npos) << part << " not in\n" << dot;
    EXPECT_NE(dot.find("e40 [label=\"[40] violation"), std::string::npos);
    EXPECT_NE(dot.find("label=\"harness\""), std::string::npos) << dot;
    EXPECT_NE(dot.find("\\nafter  tests/model/pcpu_stat/pcpu_stat.cpp:40\", fillcolor=\"#f4b6b6\""),
              std::string::npos)
        << "the violation is marked:\n"
        << dot;
    EXPECT_NE(
        dot.find("NOT THE NEWEST), relaxed\\ninc  impl/pcpu_stat.hpp:29\", color=\"#c07000\""),
        std::string::npos)
        << "a read of an older write is marked:\n"
        << dot;
    // the IRQ's events sit in a cluster nested in T1's
    const std::size_t task = dot.find("label=\"task T1\""), irq = dot.find("label=\"irq\"");
    EXPECT_LT(task, irq);
    EXPECT_LT(irq, dot.find("e35 [label="));

    // Relacy: the events, program order and the marks, from its history.
    const result rl = kverify({"run", "objpool/v6.15/c2-o1-np", "--search", "bounded:1",
                               "--no-shrink", "--graph", path("relacy.dot")});
    ASSERT_EQ(rl.status, 1) << rl.out << rl.err;
    const std::string rdot = slurp(path("relacy.dot"));
    EXPECT_NE(rdot.find("[NOT CURRENT]"), std::string::npos) << rdot;
    EXPECT_NE(rdot.find("fillcolor=\"#ffe0a0\""), std::string::npos) << "the stale read is marked";
    EXPECT_NE(rdot.find("color=red"), std::string::npos) << "the violation is marked";

    // The twins: a file of another kind is refused before any search, and a picture needs
    // Graphviz (rendered here when it is installed).
    expect_usage_error(
        kverify({"run", "pcpu_stat/mut-read-write/irq1-mig0", "--graph", path("g.txt")}),
        "must end in .dot, .svg or .png");
    if (std::system("command -v dot >/dev/null 2>&1") == 0) {
        const result svg = kverify({"run", "pcpu_stat/mut-read-write/irq1-mig0", "--engine",
                                    "dpor-rc11", "--graph", path("g.svg")});
        ASSERT_EQ(svg.status, 1) << svg.out << svg.err;
        const std::string pic = slurp(path("g.svg"));
        EXPECT_NE(pic.find("<svg"), std::string::npos);
        EXPECT_NE(pic.find("stat[cpu1]"), std::string::npos);
    }
}

}  // namespace
