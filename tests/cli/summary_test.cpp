// SPDX-License-Identifier: GPL-2.0-only
// Tests of the summary that ends verify and merge and starts evidence: one line per variant,
// the rows that differ, the totals, within 80 columns, colour only on a terminal.
#include <cstdio>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "tests/cli/cli_helpers.hpp"

namespace {

using namespace kverify_cli_test;

using cli_summary = cli;

// The lines of `text` wider than 80 columns (in characters: a UTF-8 sequence counts once), ""
// when there are none.
std::string wider_than_80(const std::string& text) {
    std::istringstream in(text);
    std::string line, wide;
    while (std::getline(in, line)) {
        std::size_t columns = 0;
        for (const char c : line) columns += (static_cast<unsigned char>(c) & 0xc0) != 0x80;
        if (columns > 80) wide += line + "\n";
    }
    return wide;
}

// Runs a shell command on a terminal (script(1) gives it a pseudo-terminal) and returns what it
// printed there.
std::string on_a_terminal(const std::string& command) {
    const std::string line = "script -qec '" + command + "' /dev/null";
    FILE* p = ::popen(line.c_str(), "r");
    if (!p) return "";
    std::string out;
    char buf[4096];
    for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
    ::pclose(p);
    return out;
}

TEST_F(cli_summary,
       verify_ends_with_one_line_per_variant_then_the_rows_that_differ_and_the_totals) {
    const std::string t =
        drifted_table("t.tsv", {"kernel/smp-cas-two-cpus", "kernel/spinlock-irqsave",
                                "kernel/local-cas-two-cpus", "litmus/mp/relaxed"});
    const result r = kverify({"verify", "--expected", t});
    ASSERT_EQ(r.status, 1) << r.out << r.err;
    // No row lines by default; --rows prints them first, and the same summary after.
    EXPECT_EQ(r.out.find("executions      time  status"), std::string::npos) << r.out;
    const result rows = kverify({"verify", "--expected", t, "--rows"});
    EXPECT_EQ(rows.out.rfind("check ", 0), 0u) << rows.out;
    EXPECT_NE(rows.out.find("\nkernel/smp-cas-two-cpus    relacy "), std::string::npos) << rows.out;
    const std::string summary = r.out.substr(r.out.find("\nkernel-model: ") + 1);
    EXPECT_NE(rows.out.find(summary.substr(0, summary.find("\nwall time "))), std::string::npos);

    // Per algorithm a header, per variant one line: sound or bad, each model's verdict class
    // with the smallest configuration showing it, ! where rows differ; within 80 columns.
    for (const char* part : {"kernel-model: ", "litmus: ", " sound  ", " bad  ", "Relacy pass!",
                             "  local-cas-two-cpus bad    Relacy single-owner\n",
                             "rows that differ from the table (2):\n",
                             "  kernel/spinlock-irqsave relacy exhaustive  pass (expected "
                             "deadlock)  MISMATCH\n",
                             // a line too long goes on below
                             "  kernel/smp-cas-two-cpus relacy exhaustive\n      495 executions "
                             "(pinned 490)  count-changed\n"})
        EXPECT_NE(summary.find(part), std::string::npos) << part << " not in\n" << summary;
    // The totals line is the last, as before (scripts read it with tail -1), the time above it;
    // no line of the output is wider than 80 columns.
    EXPECT_EQ(wider_than_80(r.out), "") << r.out;
    std::istringstream lines(summary);
    std::string line, last, before;
    while (std::getline(lines, line)) {
        before = last;
        last = line;
    }
    EXPECT_EQ(last.rfind("4 checks: 2 as expected, 1 differ, 1 count changed", 0), 0u) << last;
    EXPECT_EQ(before.rfind("wall time ", 0), 0u) << before;
    EXPECT_EQ(r.out.find('\033'), std::string::npos) << "no colour when stdout is no terminal";

    // Colour on a terminal, and not with NO_COLOR set (the twins).
    const std::string cmd = std::string(KVERIFY_BIN) + " verify --no-progress --expected " + t;
    EXPECT_NE(on_a_terminal(cmd).find("\033[33mRelacy single-owner\033[0m"), std::string::npos);
    EXPECT_NE(on_a_terminal(cmd).find("\033[1;31mRelacy pass!\033[0m"), std::string::npos);
    EXPECT_EQ(on_a_terminal("NO_COLOR=1 " + cmd).find('\033'), std::string::npos);
    EXPECT_NE(on_a_terminal("NO_COLOR= " + cmd).find('\033'), std::string::npos);
}

TEST_F(cli_summary, evidence_starts_with_the_same_summary) {
    const result e = kverify({"evidence", "kernel-model"});
    ASSERT_EQ(e.status, 0) << e.err;
    EXPECT_EQ(e.out.rfind("```\nkernel-model: ", 0), 0u) << e.out;
    EXPECT_NE(e.out.find("```\n\n**irq-between-ops**\n\n- "), std::string::npos) << e.out;
    // the same lines verify prints for the same rows, from the expected verdicts
    const result v = kverify({"verify", "--filter", "^kernel/", "--tier", "all"});
    ASSERT_EQ(v.status, 0) << v.out;
    const std::size_t from = v.out.find("kernel-model: ");
    const std::string block = v.out.substr(from, v.out.find("\n\n", from) - from + 1);
    EXPECT_GT(block.size(), 1000u) << block;
    EXPECT_EQ(e.out.substr(4, block.size()), block);
}

}  // namespace

namespace {

TEST_F(cli_summary, evidence_and_the_totals_fit_80_columns) {
    // The twin: the totals line as it was, with the time on it, is caught.
    const std::string old_totals =
        "2450 checks: 2450 as expected, 0 differ, 0 count changed, 0 "
        "inconclusive (26.60 s wall, -j 2)";
    EXPECT_EQ(wider_than_80("short\n" + old_totals + "\n"), old_totals + "\n");
    EXPECT_EQ(wider_than_80(std::string(80, 'x')), "");

    // Every algorithm's evidence, summary and lists, and one algorithm's alone.
    const result all = kverify({"evidence"});
    ASSERT_EQ(all.status, 0) << all.err;
    EXPECT_GT(all.out.size(), 10000u);
    EXPECT_EQ(wider_than_80(all.out), "");
    const result objpool = kverify({"evidence", "objpool"});
    ASSERT_EQ(objpool.status, 0) << objpool.err;
    EXPECT_EQ(objpool.out.rfind("```\nobjpool: ", 0), 0u) << objpool.out;
    EXPECT_EQ(wider_than_80(objpool.out), "");
    // A list item too long for one line goes on indented.
    EXPECT_NE(objpool.out.find(",\n  c"), std::string::npos) << objpool.out;

    // verify's default output for objpool's F1 check on every engine it has rows for.
    const result v = kverify({"verify", "--filter", "^objpool/v6\\.15/c2-o1-np$"});
    ASSERT_EQ(v.status, 0) << v.out << v.err;
    EXPECT_EQ(wider_than_80(v.out), "") << v.out;
}

TEST_F(cli_summary, a_twin_of_the_checker_is_not_its_variant_s_violation) {
    // walk-holes-short runs v6.7's pop with a test Env that hides a CPU: false-empty. It is the
    // checker's twin, not a violation of v6.7; v6.7's own row beside it passes.
    const std::string t = rows_table({{"coverage/objpool/v6.7/walk-holes-short", "dpor-rc11"},
                                      {"coverage/objpool/v6.7/walk-holes", "dpor-rc11"}});
    const result r = kverify({"verify", "--expected", t});
    ASSERT_EQ(r.status, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("  v6.7 "), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("false-empty"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("+ 1 twin(s) of the checker, not of a variant: each fails as expected"),
              std::string::npos)
        << r.out;
    EXPECT_EQ(wider_than_80(r.out), "") << r.out;
    // The twin: a twin that passes where the table says it fails is shown, not hidden.
    std::string text = slurp(t);
    text.replace(text.find("\tfalse-empty\t"), 13, "\tpass\t");
    spit(t, text);
    const result d = kverify({"verify", "--expected", t});
    EXPECT_EQ(d.status, 1) << d.out << d.err;
    EXPECT_NE(d.out.find("1 differ (coverage/objpool/v6.7/walk-holes-short)"), std::string::npos)
        << d.out;
    // evidence lists the twins apart, their configurations with their variant
    const result e = kverify({"evidence", "objpool"});
    ASSERT_EQ(e.status, 0) << e.err;
    const std::size_t twins = e.out.find("**Twins of the checker**");
    ASSERT_NE(twins, std::string::npos) << e.out;
    EXPECT_NE(e.out.find("false-empty: v6.7/walk-holes-short", twins), std::string::npos);
    EXPECT_EQ(e.out.substr(0, twins).find("walk-holes-short"), std::string::npos);
}

}  // namespace
