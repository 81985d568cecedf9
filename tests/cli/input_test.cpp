// SPDX-License-Identifier: GPL-2.0-only
// Tests of hostile or mistaken input on the command line and in the table: each is refused in
// one line with exit 2, quickly, or runs as it should.
#include <chrono>
#include <map>
#include <set>
#include <sstream>

#include "tests/cli/cli_helpers.hpp"

namespace {

using namespace kverify_cli_test;

double seconds_of(const std::function<void()>& f) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::size_t lines_of(const std::string& s) {
    return std::size_t(std::count(s.begin(), s.end(), '\n'));
}

TEST_F(cli, a_hostile_filter_neither_crashes_nor_hangs) {
    // Nested quantifiers that a backtracking matcher takes exponential time over.
    result r;
    EXPECT_LT(seconds_of([&] { r = kverify({"list", "--filter", "^(.*.*)*@$"}); }), 5.0);
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, "") << "no check name holds '@'";
    const result all = kverify({"list", "--filter", "^(.*.*)*$"});  // the twin: every name
    EXPECT_EQ(all.status, 0);
    EXPECT_GT(lines_of(all.out), 100u);
    EXPECT_LT(seconds_of([&] { r = kverify({"verify", "--filter", "^(k+k+)+z$"}); }), 5.0);
    expect_usage_error(r, "no rows selected");

    // Very long or deeply nested patterns: refused in one line, or run, never a crash.
    for (const char* cmd : {"list", "verify"}) {
        SCOPED_TRACE(cmd);
        expect_usage_error(kverify({cmd, "--filter", std::string(20000, 'a')}),
                           "longer than 4096 characters");
        expect_usage_error(kverify({cmd, "--filter", std::string(3000, '(')}), "invalid regex");
        const result nested =
            kverify({cmd, "--filter", std::string(2000, '(') + "@" + std::string(2000, ')')});
        EXPECT_TRUE(nested.status == 0 || nested.status == 2) << nested.status << nested.err;
        EXPECT_EQ(std::count(nested.err.begin(), nested.err.end(), '\n'), nested.status ? 1 : 0);
        // (verify prints the row's line with --rows: its summary names variants, not checks)
        std::vector<std::string> args{cmd, "--filter",
                                      std::string(3000, 'x') + "|^kernel/smp-cas-two-cpus$"};
        if (std::string(cmd) == "verify") args.push_back("--rows");
        const result ok = kverify(args);
        EXPECT_EQ(ok.status, 0) << ok.err;  // long but fine: it runs
        EXPECT_NE(ok.out.find("kernel/smp-cas-two-cpus"), std::string::npos);
    }
}

TEST_F(cli, budgets_and_caps_out_of_range_are_refused) {
    for (const char* b : {"nan", "inf", "-inf", "0", "-1", "1e400", "2000000", "1s", ""}) {
        SCOPED_TRACE(b);
        expect_usage_error(kverify({"run", "kernel/smp-cas-two-cpus", "--budget", b}),
                           "0 < SEC <= 1000000");
    }
    for (const char* n :
         {"18446744073709551616", "99999999999999999999999", "0", "-1", "+5", "1e3", ""}) {
        SCOPED_TRACE(n);
        expect_usage_error(kverify({"run", "kernel/smp-cas-two-cpus", "--max-executions", n}),
                           "1 <= N <= 2^64 - 1");
    }
    // the twins: the largest of each runs
    EXPECT_EQ(kverify({"run", "kernel/smp-cas-two-cpus", "--budget", "1000000"}).status, 0);
    EXPECT_EQ(
        kverify({"run", "kernel/smp-cas-two-cpus", "--max-executions", "18446744073709551615"})
            .status,
        0);
}

TEST_F(cli, two_result_files_on_one_path_are_refused) {
    const std::string t = small_table("t.tsv", {"kernel/smp-cas-two-cpus"});
    expect_usage_error(
        kverify({"verify", "--expected", t, "--json", path("r"), "--junit", path("r")}),
        "--json and --junit name one file");
    expect_usage_error(
        kverify({"verify", "--expected", t, "--junit", path("r"), "--markdown", dir_ + "/./r"}),
        "--junit and --markdown name one file");
    const result ok =
        kverify({"verify", "--expected", t, "--json", path("r.json"), "--junit", path("r.xml")});
    EXPECT_EQ(ok.status, 0) << ok.err;  // the twin
}

TEST_F(cli, a_table_fault_is_named_with_its_line) {
    const std::string t = small_table("t.tsv", {"kernel/smp-cas-two-cpus", "litmus/mp/relaxed"});
    const std::string good = slurp(t);
    const auto refused = [&](const std::string& text, const std::string& message) {
        spit(path("bad.tsv"), text);
        expect_usage_error(kverify({"verify", "--expected", path("bad.tsv")}), message);
    };
    refused("\xef\xbb\xbf" + good, "bad.tsv:1: the file starts with a UTF-8 byte-order mark");
    std::string crlf = good;
    crlf.replace(crlf.find("\n", crlf.find("kernel/")), 1, "\r\n");
    refused(crlf, "bad.tsv:4: a CRLF line end");
    std::string ctl = good;
    ctl.replace(ctl.find("kernel/") + 3, 0, "\x01");
    refused(ctl, "bad.tsv:4: a control character (0x01) at column 4");
    std::string dpor = good;
    const std::size_t at = dpor.find("\t", dpor.find("kernel/"));
    const std::size_t search = dpor.find("\t", at + 1);
    dpor.replace(at, dpor.find("\t", search + 1) - at, "\tdpor-rc11\tbounded:2");
    refused(dpor, "bad.tsv:4: engine dpor-rc11 offers no search bounded:2");
    // the twin: the untouched table runs
    EXPECT_EQ(kverify({"verify", "--expected", t}).status, 0);
}

TEST_F(cli, an_expected_verdict_that_is_no_class_of_its_check_is_refused_at_load) {
    // Rows at lines 4, 5 and 6: weak-outcome, lost-update (single-owner off), livelock.
    const std::string t = small_table(
        "t.tsv",
        {"litmus/mp/relaxed", "kernel/local-cas-two-cpus-unchecked", "kernel/unbounded-loop"});
    const std::string good = slurp(t);
    const auto refused = [&](const std::string& from, const std::string& to,
                             const std::string& check, const std::string& message) {
        SCOPED_TRACE(to);
        std::string text = good;
        const std::size_t at = text.find("\t" + from + "\t");
        ASSERT_NE(at, std::string::npos) << from;
        text.replace(at + 1, from.size(), to);
        spit(path("bad.tsv"), text);
        expect_usage_error(kverify({"verify", "--expected", path("bad.tsv")}), message);
        expect_usage_error(kverify({"check", check, "exhaustive", "--engine", "relacy",
                                    "--expected", path("bad.tsv")}),
                           message);
    };
    // A typo: before, a MISMATCH at run time (exit 1) that read like a finding.
    refused("weak-outcome", "weak-outcom", "litmus/mp/relaxed",
            "bad.tsv:4: check litmus/mp/relaxed on relacy has no verdict class 'weak-outcom' "
            "(its verdicts: pass, inconclusive, ");
    refused("weak-outcome", "weak-outcom", "litmus/mp/relaxed", ", weak-outcome");
    // A kernel class the check's configuration switches off, and another engine's class.
    refused("lost-update", "single-owner", "kernel/local-cas-two-cpus-unchecked",
            "bad.tsv:5: check kernel/local-cas-two-cpus-unchecked on relacy has no verdict class "
            "'single-owner'");
    refused("livelock", "event-limit", "kernel/unbounded-loop",
            "bad.tsv:6: check kernel/unbounded-loop on relacy has no verdict class 'event-limit'");
    // the twins: the untouched table runs, and each class refused above is one elsewhere
    EXPECT_EQ(kverify({"verify", "--expected", t}).status, 0);
    const result k =
        kverify({"list", "--classes", "--filter", "^kernel/(unbounded-loop|local-cas-two-cpus)$"});
    EXPECT_EQ(k.status, 0) << k.err;
    EXPECT_NE(k.out.find("kernel/local-cas-two-cpus\trelacy\tpass,inconclusive,"),
              std::string::npos)
        << k.out;
    EXPECT_NE(k.out.find(",single-owner"), std::string::npos) << k.out;
    EXPECT_NE(k.out.find("kernel/unbounded-loop\tdpor-rc11\t"), std::string::npos) << k.out;
    EXPECT_NE(k.out.find(",event-limit"), std::string::npos) << k.out;
}

// The registry's classes are complete: every verdict the project's table pins is one of its
// check's classes on its engine (as `list --classes` prints them).
TEST_F(cli, every_pinned_verdict_is_a_class_of_its_check) {
    const result l = kverify({"list", "--classes"});
    ASSERT_EQ(l.status, 0) << l.err;
    std::map<std::string, std::set<std::string>> classes;  // "check\tengine" -> verdicts
    std::istringstream in(l.out);
    std::string line;
    while (std::getline(in, line)) {
        const std::size_t tab = line.rfind('\t');
        ASSERT_NE(tab, std::string::npos) << line;
        std::set<std::string>& c = classes[line.substr(0, tab)];
        std::istringstream list(line.substr(tab + 1));
        for (std::string k; std::getline(list, k, ',');) c.insert(k);
    }
    std::istringstream table(slurp(KVERIFY_TABLE));
    std::size_t rows = 0;
    while (std::getline(table, line)) {
        if (line.empty() || line[0] == '#') continue;
        std::vector<std::string> f;
        std::istringstream fields(line);
        for (std::string x; std::getline(fields, x, '\t');) f.push_back(x);
        ASSERT_EQ(f.size(), 6u) << line;
        const auto at = classes.find(f[0] + "\t" + f[1]);
        ASSERT_NE(at, classes.end()) << line;
        EXPECT_EQ(at->second.count(f[3]), 1u) << line;
        ++rows;
    }
    EXPECT_GT(rows, 2000u);
    // the twin: a class is its check's, not every check's
    EXPECT_EQ(classes.at("kernel/local-cas-two-cpus\trelacy").count("single-owner"), 1u);
    EXPECT_EQ(classes.at("kernel/local-cas-two-cpus-unchecked\trelacy").count("single-owner"), 0u);
    EXPECT_EQ(classes.at("litmus/mp/relaxed\trelacy").count("loss"), 0u);
}

}  // namespace
