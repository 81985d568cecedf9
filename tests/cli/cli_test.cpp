// SPDX-License-Identifier: GPL-2.0-only
// Tests of the kverify command line itself: exit statuses and one-line messages for bad input,
// well-formed JSON and JUnit (parsed here), shards that are disjoint and cover the table, -j 2
// equal to -j 1, replays that reproduce the same trace, count-changed and --repin. They run the
// kverify binary on the small rows of the table (litmus and kernel-model rows).
#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <tinyxml2.h>

#include <nlohmann/json.hpp>

#include "tests/cli/cli_helpers.hpp"

namespace {

using namespace kverify_cli_test;

TEST_F(cli, bad_command_line_exits_2_with_one_line) {
    const std::vector<bad_input> cases = {
        {{"verify", "--filter", "("}, "invalid regex '('"},
        {{"list", "--filter", "[z-a]"}, "invalid regex '[z-a]'"},
        {{"run", "no/such/check"}, "unknown check 'no/such/check'"},
        {{"check", "no/such/check", "exhaustive"}, "unknown check 'no/such/check'"},
        {{"verify", "--bogus"}, "--bogus"},
        {{"frobnicate"},
         "unknown command 'frobnicate' (commands: verify, list, run, check, replay, merge, "
         "evidence, orders, litmus, help, test, bench, coverage)"},
        {{"test"}, "'test' is a command of the ./kverify script"},
        {{"coverage", "check"}, "'coverage' is a command of the ./kverify script"},
        {{"run", "kernel/spinlock-irqsave", "--search", "bounded:x"}, "invalid search 'bounded:x'"},
        {{"run", "kernel/spinlock-irqsave", "--search", "sampled:0"}, "invalid search 'sampled:0'"},
        {{"run", "kernel/spinlock-irqsave", "--engine", "nope"},
         "unknown engine 'nope' (known: relacy"},
        {{"verify", "--engine", "nope"}, "unknown engine 'nope'"},
        {{"verify", "--tier", "medium"}, "--tier"},
        {{"verify", "--shard", "0/2"}, "shard '0/2' must be i/N"},
        {{"verify", "--shard", "3/2"}, "shard '3/2' must be i/N"},
        {{"verify", "--shard", "1/0"}, "shard '1/0' must be i/N"},
        {{"verify", "--shard", "half"}, "shard 'half' must be i/N"},
        {{"verify", "-j", "0"}, "--jobs"},
        {{"verify", "--budget", "-1"}, "--budget"},
        {{"verify", "--filter", "^nothing-matches$"}, "no rows selected"},
        {{"verify", "--expected", "/nonexistent/verdicts.tsv"},
         "cannot read the expected-verdict table"},
        {{"check", "kernel/spinlock-irqsave", "bounded:7"}, "no row for kernel/spinlock-irqsave"},
        {{"run"}, "check is required"},
        {{"replay", "/nonexistent/cex.json"}, "cannot read replay file"},
        {{"merge", "/nonexistent/a.json"}, "cannot read result file"},
        {{"help", "nope"}, "unknown command 'nope'"},
        {{"run", "kernel/spinlock-irqsave", "--engine", "dpor-rc11", "--search", "bounded:2"},
         "its only search is exhaustive"},
        {{"verify", "--filter", "^kernel/", "--json", "/nonexistent/r.json"},
         "cannot write /nonexistent/r.json"},
        {{"run", "kernel/local-cas-two-cpus", "--save-replay", "/nonexistent/c.json"},
         "cannot write /nonexistent/c.json"},
    };
    for (const bad_input& c : cases) {
        SCOPED_TRACE(::testing::PrintToString(c.args));
        expect_usage_error(kverify(c.args), c.message);
    }
}

TEST_F(cli, malformed_table_exits_2_naming_file_and_line) {
    const std::string header = "# comment\n";
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"kernel/spinlock-irqsave\texhaustive\tpass\t3\tquick\n",
         ":2: expected 6 tab-separated fields"},
        {"no/such\trelacy\texhaustive\tpass\t3\tquick\n", ":2: unknown check 'no/such'"},
        {"kernel/spinlock-irqsave\tnope\texhaustive\tpass\t3\tquick\n",
         ":2: check kernel/spinlock-irqsave cannot run on engine 'nope'"},
        {"kernel/spinlock-irqsave\trelacy\tbounded:-1\tpass\t3\tquick\n", ":2: invalid search"},
        {"kernel/spinlock-irqsave\trelacy\texhaustive\tpass\tmany\tquick\n",
         ":2: executions must be a number"},
        {"kernel/spinlock-irqsave\trelacy\texhaustive\tpass\t3\tslow\n",
         ":2: tier must be quick or full"},
        {"kernel/spinlock-irqsave\trelacy\texhaustive\tpass\t3\tquick\n"
         "kernel/spinlock-irqsave\trelacy\texhaustive\tpass\t3\tquick\n",
         ":3: duplicate row"},
    };
    for (const auto& [rows, message] : cases) {
        SCOPED_TRACE(rows);
        spit(path("bad.tsv"), header + rows);
        expect_usage_error(kverify({"verify", "--expected", path("bad.tsv")}),
                           path("bad.tsv") + message);
        expect_usage_error(kverify({"check", "kernel/spinlock-irqsave", "exhaustive", "--expected",
                                    path("bad.tsv")}),
                           path("bad.tsv") + message);
    }
}

// ----- exit statuses of run, check and verify -----

TEST_F(cli, run_exits_1_on_a_counterexample_and_0_on_a_pass) {
    const result bad = kverify({"run", "kernel/local-cas-two-cpus"});
    EXPECT_EQ(bad.status, 1) << bad.out;
    EXPECT_NE(bad.out.find("verdict: single-owner"), std::string::npos) << bad.out;
    EXPECT_NE(bad.out.find("USER ASSERT FAILED (single-owner"), std::string::npos) << bad.out;

    const result good = kverify({"run", "kernel/spinlock-irqsave"});
    EXPECT_EQ(good.status, 0) << good.out;
    EXPECT_NE(good.out.find("verdict: pass"), std::string::npos) << good.out;
}

// The blocked runs that ended at a stale wait (model/dpor/README.md) are reported within the
// blocked count, in `run` and in the JSON, under SC and RC11; never under the LKMM, which makes
// no such cut, and never on Relacy. The kernel layer declares its waits (rt::await_next): its
// rows start no such run at all, so only an algorithm's own wait (objpool's pop spinning on
// an empty slot) ends one.
TEST_F(cli, runs_ended_at_a_stale_wait_are_counted_within_the_blocked_ones) {
    const std::string spin = "objpool/v6.15/c2-o1-np", kernel = "kernel/migration-keeps-irq-budget";
    const result r = kverify({"run", spin, "--engine", "dpor-rc11", "--no-shrink"});
    EXPECT_EQ(r.status, 1) << r.err;  // the variant's loss
    EXPECT_NE(r.out.find("ended at a stale wait)"), std::string::npos) << r.out;
    const std::string t = rows_table(
        {{spin, "dpor-rc11"}, {spin, "dpor-lkmm"}, {spin, "relacy"}, {kernel, "dpor-rc11"}});
    const result v =
        kverify({"verify", "--expected", t, "--tier", "all", "--json", path("s.json")});
    EXPECT_EQ(v.status, 0) << v.out << v.err;
    unsigned cut = 0, rows = 0;
    for (const json& row : rows_of(path("s.json"))) {
        SCOPED_TRACE(key_of(row));
        ++rows;
        ASSERT_TRUE(row.at("stale_cut").is_number_integer());
        EXPECT_LE(row.at("stale_cut"), row.at("blocked"));
        const std::string e = row.at("engine");
        if (e == "dpor-lkmm" || e == "relacy" || row.at("check") == kernel) {
            EXPECT_EQ(row.at("stale_cut"), 0);
        } else {
            cut += row.at("stale_cut") > 0;
        }
    }
    EXPECT_GE(rows, 4u);
    EXPECT_EQ(cut, 1u);  // the spin's dpor-rc11 row (2 of its 2 blocked runs)
}

TEST_F(cli, a_spent_budget_is_inconclusive_and_exits_3) {
    // Thousands of executions without a budget (most of a second): 10 ms cannot finish it.
    const result r = kverify({"run", "objpool/v6.7/c2-o1-np", "--budget", "0.01"});
    EXPECT_EQ(r.status, 3) << r.out;
    EXPECT_NE(r.out.find("verdict: inconclusive"), std::string::npos) << r.out;
    const result v = kverify({"verify", "--filter", "^objpool/v6.7/c2-o1-np$", "--budget", "0.01"});
    EXPECT_EQ(v.status, 3) << v.out;
    EXPECT_NE(v.out.find("inconclusive"), std::string::npos) << v.out;
}

TEST_F(cli, an_execution_cap_is_inconclusive_and_deterministic) {
    const result r = kverify({"run", "objpool/v6.7/c2-o1-np", "--max-executions", "1000"});
    EXPECT_EQ(r.status, 3) << r.out;
    EXPECT_NE(r.out.find("verdict: inconclusive  executions: 1000 "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("execution cap of 1000 reached"), std::string::npos) << r.out;
    // a search that ends within the cap is not affected
    const result small = kverify({"run", "kernel/smp-cas-two-cpus", "--max-executions", "495"});
    EXPECT_EQ(small.status, 0) << small.out;
    EXPECT_NE(small.out.find("verdict: pass  executions: 495 "), std::string::npos) << small.out;
    const result v =
        kverify({"verify", "--filter", "^objpool/v6.7/c2-o1-np$", "--max-executions", "1000"});
    EXPECT_EQ(v.status, 3) << v.out;
}

TEST_F(cli, traces_are_clean) {
    const result r = kverify({"run", "pcpu_stat/mut-read-write/irq1-mig0", "--no-shrink"});
    ASSERT_EQ(r.status, 1) << r.out;
    for (const char* noise :
         {"[CTOR BEGIN]", "[CTOR END]", "[BEFORE BEGIN]", "runqueues", "/usr/include/relacy",
          "fiber_proc_impl", KVERIFY_SOURCE_DIR "/", "<0x", "model_env,"})
        EXPECT_EQ(r.out.find(noise), std::string::npos) << noise << " in\n" << r.out;
    EXPECT_NE(r.out.find("irq enter on cpu1"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find(", impl/pcpu_stat.hpp("), std::string::npos) << r.out;
    // no raw float times such as 0.00074648 s
    EXPECT_FALSE(std::regex_search(r.out, std::regex("[0-9]\\.[0-9]{5,} s"))) << r.out;
    // the raw trace still has Relacy's own events, for debugging the model
    const result raw =
        kverify({"run", "pcpu_stat/mut-read-write/irq1-mig0", "--no-shrink", "--raw-trace"});
    EXPECT_NE(raw.out.find("[CTOR BEGIN]"), std::string::npos) << raw.out;
}

TEST_F(cli, check_runs_one_row) {
    EXPECT_EQ(
        kverify({"check", "kernel/smp-cas-two-cpus", "exhaustive", "--engine", "relacy"}).status,
        0);
    const std::string t = small_table("t.tsv", {"kernel/spinlock-irqsave"});
    std::string text = slurp(t);
    text.replace(text.find("\tpass\t"), 6, "\tdeadlock\t");
    spit(t, text);
    const result r = kverify({"check", "kernel/spinlock-irqsave", "exhaustive", "--expected", t});
    EXPECT_EQ(r.status, 1) << r.out;
    EXPECT_NE(r.out.find("MISMATCH: expected deadlock, got pass"), std::string::npos) << r.out;
}

// ----- count-changed and --repin -----

TEST_F(cli, count_changed_is_its_own_status_and_repin_rewrites_only_counts) {
    const std::string t = drifted_table(
        "t.tsv",
        {"kernel/smp-cas-two-cpus", "kernel/spinlock-irqsave", "kernel/local-cas-two-cpus"});
    std::string text = slurp(t);  // a count and a verdict moved

    const result r = kverify({"verify", "--expected", t, "--json", path("r.json")});
    EXPECT_EQ(r.status, 1) << r.out;
    std::map<std::string, std::string> status;
    for (const json& row : rows_of(path("r.json"))) status[row.at("check")] = row.at("status");
    EXPECT_EQ(status["kernel/smp-cas-two-cpus"], "count-changed");
    EXPECT_EQ(status["kernel/spinlock-irqsave"], "MISMATCH");
    EXPECT_EQ(status["kernel/local-cas-two-cpus"], "ok");
    EXPECT_NE(r.out.find("kernel/smp-cas-two-cpus relacy exhaustive: pinned 490, got 495"),
              std::string::npos)
        << r.out;

    // --allow-count-changed: the count alone does not fail, the verdict still does
    EXPECT_EQ(kverify({"verify", "--expected", t, "--allow-count-changed"}).status, 1);

    const result p = kverify({"verify", "--expected", t, "--repin"});
    EXPECT_NE(p.out.find("re-pinned 1 execution count(s)"), std::string::npos) << p.out;
    std::string want = text;
    want.replace(want.find("\t490\t"), 5, "\t495\t");
    EXPECT_EQ(slurp(t), want) << "only the count changes: comments, order and verdicts stay";

    // the verdict row is never touched by --repin; once it is fixed by hand, all is well
    text = slurp(t);
    text.replace(text.find("\tdeadlock\t3\t"), 12, "\tpass\t3\t");
    spit(t, text);
    EXPECT_EQ(kverify({"verify", "--expected", t}).status, 0);

    // with only a count moved, --allow-count-changed passes
    text.replace(text.find("\t495\t"), 5, "\t496\t");
    spit(t, text);
    EXPECT_EQ(kverify({"verify", "--expected", t}).status, 1);
    EXPECT_EQ(kverify({"verify", "--expected", t, "--allow-count-changed"}).status, 0);
}

// ----- result files -----

TEST_F(cli, json_junit_and_markdown_are_well_formed) {
    const std::string t =
        small_table("t.tsv", {"kernel/local-cas-two-cpus", "kernel/spinlock-irqsave",
                              "litmus/mp/relaxed", "litmus/sb/mb"});
    std::string text = slurp(t);
    text.replace(text.find("\tpass\t"), 6, "\tdeadlock\t");  // spinlock-irqsave now differs
    spit(t, text);
    const result r = kverify({"verify", "--expected", t, "--json", path("r.json"), "--junit",
                              path("r.xml"), "--markdown", path("r.md")});
    EXPECT_EQ(r.status, 1) << r.out;

    const json j = json::parse(slurp(path("r.json")));
    EXPECT_EQ(j.at("exit_status"), 1);
    EXPECT_EQ(j.at("summary").at("rows"), 4);
    EXPECT_EQ(j.at("summary").at("mismatch"), 1);
    EXPECT_EQ(j.at("summary").at("ok"), 3);
    for (const json& row : j.at("rows")) {
        for (const char* f : {"check", "engine", "search", "verdict", "expected", "status", "trace",
                              "replay", "also_sc", "detail", "algorithm", "variant", "config"})
            EXPECT_TRUE(row.at(f).is_string()) << f;
        for (const char* f : {"executions", "blocked", "line"})
            EXPECT_TRUE(row.at(f).is_number_integer()) << f;
        EXPECT_EQ(row.at("engine"), "relacy");
        EXPECT_EQ(row.at("blocked"), 0);
        const bool violation = row.at("verdict") != "pass";
        EXPECT_EQ(row.at("trace").get<std::string>().empty(), !violation) << row.dump();
        EXPECT_EQ(row.at("replay").get<std::string>().empty(), !violation) << row.dump();
    }

    tinyxml2::XMLDocument doc;
    ASSERT_EQ(doc.Parse(slurp(path("r.xml")).c_str()), tinyxml2::XML_SUCCESS) << doc.ErrorStr();
    const tinyxml2::XMLElement* suites = doc.FirstChildElement("testsuites");
    ASSERT_NE(suites, nullptr);
    EXPECT_EQ(suites->IntAttribute("tests"), 4);
    EXPECT_EQ(suites->IntAttribute("failures"), 1);
    int cases = 0, failures = 0;
    for (const auto* s = suites->FirstChildElement("testsuite"); s;
         s = s->NextSiblingElement("testsuite"))
        for (const auto* c = s->FirstChildElement("testcase"); c;
             c = c->NextSiblingElement("testcase")) {
            ++cases;
            const std::string name = c->Attribute("name");
            if (const auto* f = c->FirstChildElement("failure")) {
                ++failures;
                EXPECT_EQ(name, "kernel/spinlock-irqsave relacy exhaustive");
                EXPECT_STREQ(f->Attribute("message"), "expected deadlock, got pass");
            }
            if (name.rfind("kernel/local-cas-two-cpus ", 0) == 0) {
                // an expected violation passes, and its system-out still carries the replay
                EXPECT_EQ(c->FirstChildElement("failure"), nullptr);
                EXPECT_NE(
                    std::string(c->FirstChildElement("system-out")->GetText()).find("replay: "),
                    std::string::npos);
            }
        }
    EXPECT_EQ(cases, 4);
    EXPECT_EQ(failures, 1);

    // a failing row carries the trace in the JUnit failure
    text = slurp(t);
    text.replace(text.find("\tsingle-owner\t"), 14, "\tpass\t");
    spit(t, text);
    kverify({"verify", "--expected", t, "--junit", path("r2.xml")});
    tinyxml2::XMLDocument doc2;
    ASSERT_EQ(doc2.Parse(slurp(path("r2.xml")).c_str()), tinyxml2::XML_SUCCESS);
    bool trace_found = false;
    for (const auto* s = doc2.FirstChildElement("testsuites")->FirstChildElement("testsuite"); s;
         s = s->NextSiblingElement("testsuite"))
        for (const auto* c = s->FirstChildElement("testcase"); c;
             c = c->NextSiblingElement("testcase"))
            if (const auto* f = c->FirstChildElement("failure"))
                if (std::string(f->GetText()).find("USER ASSERT FAILED (single-owner") !=
                    std::string::npos)
                    trace_found = true;
    EXPECT_TRUE(trace_found);

    const std::string md = slurp(path("r.md"));
    EXPECT_NE(md.find("## kverify: 4 checks, verdicts differ"), std::string::npos) << md;
    EXPECT_NE(md.find("### Verdicts per variant"), std::string::npos) << md;
    EXPECT_NE(md.find("| kernel-model | spinlock-irqsave | 1 | 1 / 0 | - | - | none | no (1) |"),
              std::string::npos)
        << md;
    EXPECT_NE(
        md.find("| `kernel/spinlock-irqsave` | relacy | exhaustive | deadlock | pass | MISMATCH |"),
        std::string::npos)
        << md;
}

TEST_F(cli, engine_fields_travel_through_json_junit_and_markdown) {
    // Relacy fills neither blocked nor also_sc: a result row stands in for another engine's.
    ASSERT_EQ(kverify({"verify", "--filter", "^kernel/local-cas-two-cpus$", "--engine", "relacy",
                       "--json", path("r.json")})
                  .status,
              0);
    json j = json::parse(slurp(path("r.json")));
    ASSERT_EQ(j.at("rows").size(), 1u);
    j["rows"][0]["also_sc"] = "no";
    j["rows"][0]["blocked"] = 7;
    spit(path("r.json"), j.dump());
    const result m = kverify({"merge", path("r.json"), "--json", path("m.json"), "--junit",
                              path("m.xml"), "--markdown", path("m.md")});
    EXPECT_EQ(m.status, 0) << m.out << m.err;
    const json row = rows_of(path("m.json"))[0];
    EXPECT_EQ(row.at("also_sc"), "no");
    EXPECT_EQ(row.at("blocked"), 7);
    const std::string md = slurp(path("m.md"));
    EXPECT_NE(md.find("### Engine details"), std::string::npos) << md;
    EXPECT_NE(
        md.find(
            "| `kernel/local-cas-two-cpus` | relacy | exhaustive | single-owner | no | 1 | 7 |"),
        std::string::npos)
        << md;
    const std::string xml = slurp(path("m.xml"));
    EXPECT_NE(xml.find("also under SC: no"), std::string::npos) << xml;
    EXPECT_NE(xml.find("blocked: 7"), std::string::npos) << xml;
    // and without them (Relacy fills neither), no such section
    ASSERT_EQ(kverify({"verify", "--filter", "^kernel/local-cas-two-cpus$", "--engine", "relacy",
                       "--markdown", path("plain.md")})
                  .status,
              0);
    EXPECT_EQ(slurp(path("plain.md")).find("Engine details"), std::string::npos);
}

// ----- parallel runs and shards -----

// The table lines of a verify run, without the time column.
std::vector<std::string> table_lines(const std::string& out) {
    std::vector<std::string> r;
    std::istringstream in(out);
    std::string line;
    while (std::getline(in, line) && !line.empty())
        r.push_back(std::regex_replace(line, std::regex(" +[0-9.]+s  "), " "));
    return r;
}

TEST_F(cli, j2_gives_the_same_verdicts_counts_and_traces_as_j1) {
    const result one =
        kverify({"verify", "--filter", small_rows, "-j", "1", "--rows", "--json", path("1.json")});
    const result two =
        kverify({"verify", "--filter", small_rows, "-j", "2", "--rows", "--json", path("2.json")});
    EXPECT_EQ(one.status, 0) << one.out;
    EXPECT_EQ(two.status, 0) << two.out;
    EXPECT_GE(table_lines(one.out).size(), 20u) << "--rows prints every row";
    EXPECT_EQ(table_lines(one.out), table_lines(two.out));
    const json a = rows_of(path("1.json")), b = rows_of(path("2.json"));
    ASSERT_EQ(a.size(), b.size());
    ASSERT_GE(a.size(), 20u);
    for (std::size_t i = 0; i < a.size(); ++i)
        for (const char* f :
             {"check", "engine", "search", "verdict", "executions", "trace", "replay", "status"})
            EXPECT_EQ(a[i].at(f), b[i].at(f)) << f << " of row " << i;
}

TEST_F(cli, shards_are_disjoint_cover_the_selection_and_merge_back) {
    const result unsharded =
        kverify({"verify", "--filter", small_rows, "--rows", "--json", path("all.json")});
    ASSERT_EQ(unsharded.status, 0) << unsharded.out;
    const json all = rows_of(path("all.json"));
    std::set<std::string> whole;
    for (const json& row : all) whole.insert(key_of(row));
    ASSERT_EQ(whole.size(), all.size());

    std::set<std::string> seen;
    std::vector<std::string> files;
    for (int i = 1; i <= 3; ++i) {
        const std::string f = path("shard-" + std::to_string(i) + ".json");
        const result r = kverify(
            {"verify", "--filter", small_rows, "--shard", std::to_string(i) + "/3", "--json", f});
        EXPECT_EQ(r.status, 0) << r.out;
        const json rows = rows_of(f);
        EXPECT_GT(rows.size(), 0u) << "shard " << i << " is empty";
        for (const json& row : rows)
            EXPECT_TRUE(seen.insert(key_of(row)).second) << key_of(row) << " twice";
        files.push_back(f);
    }
    EXPECT_EQ(seen, whole);
    // deterministic: the same shard again holds the same rows
    kverify({"verify", "--filter", small_rows, "--shard", "2/3", "--json", path("again.json")});
    EXPECT_EQ(rows_of(path("again.json")).size(), rows_of(files[1]).size());
    for (std::size_t i = 0; i < rows_of(files[1]).size(); ++i)
        EXPECT_EQ(key_of(rows_of(path("again.json"))[i]), key_of(rows_of(files[1])[i]));

    std::vector<std::string> args = {
        "merge",   files[2],          files[0], files[1], "--rows", "--json", path("merged.json"),
        "--junit", path("merged.xml")};
    const result m = kverify(args);
    EXPECT_EQ(m.status, 0) << m.out << m.err;
    EXPECT_EQ(table_lines(m.out), table_lines(unsharded.out)) << "the merged table is verify's";
    const json merged = rows_of(path("merged.json"));
    ASSERT_EQ(merged.size(), all.size());
    for (std::size_t i = 0; i < all.size(); ++i) {
        EXPECT_EQ(key_of(merged[i]), key_of(all[i])) << "merged rows are in table order";
        EXPECT_EQ(merged[i].at("executions"), all[i].at("executions"));
    }
    tinyxml2::XMLDocument doc;
    ASSERT_EQ(doc.Parse(slurp(path("merged.xml")).c_str()), tinyxml2::XML_SUCCESS);
    EXPECT_EQ(doc.FirstChildElement("testsuites")->IntAttribute("tests"), int(all.size()));

    expect_usage_error(kverify({"merge", files[0], files[1]}),
                       "of the " + std::to_string(all.size()) + " selected rows");
    expect_usage_error(kverify({"merge", files[0], files[0], files[1], files[2]}),
                       "appears in more than one file");
    spit(path("junk.json"), "{not json");
    expect_usage_error(kverify({"merge", path("junk.json")}), "not a kverify --json result file");
}

// --shard balances by the rows' time estimates (times.tsv beside the table), not their counts:
// counts 964, 495, 130 and 2 and times 10, 100, 300 and 400 us give other shards.
TEST_F(cli, shards_balance_by_the_time_estimates_beside_the_table) {
    const std::string t = small_table("t.tsv", {"litmus/two-stores-back", "kernel/smp-cas-two-cpus",
                                                "litmus/sb/mb", "litmus/mp/relaxed"});
    const auto shard = [&](const std::string& s) {
        const result r =
            kverify({"verify", "--expected", t, "--shard", s, "--json", path("s.json")});
        EXPECT_EQ(r.status, 0) << r.out << r.err;
        std::set<std::string> names;
        for (const json& row : rows_of(path("s.json")))
            names.insert(row.at("check").get<std::string>());
        return names;
    };
    using names = std::set<std::string>;
    // no estimates: the pinned counts decide (965 alone, against 496 + 131 + 3)
    EXPECT_EQ(shard("1/2"), names{"litmus/two-stores-back"});
    const std::string times =
        "# test estimates\n"
        "litmus/two-stores-back\trelacy\texhaustive\t10\n"
        "kernel/smp-cas-two-cpus\trelacy\texhaustive\t100\n"
        "litmus/sb/mb\trelacy\texhaustive\t300\n"
        "litmus/mp/relaxed\trelacy\texhaustive\t400\n";
    spit(path("times.tsv"), times);
    EXPECT_EQ(shard("1/2"), (names{"litmus/mp/relaxed", "litmus/two-stores-back"}));
    EXPECT_EQ(shard("2/2"), (names{"kernel/smp-cas-two-cpus", "litmus/sb/mb"}));
    // a row without an estimate is still run, in one shard: its count at the others' rate
    std::string partial = times;
    partial.erase(partial.find("kernel/"), partial.find("litmus/sb") - partial.find("kernel/"));
    spit(path("times.tsv"), partial);
    names both = shard("1/2");
    for (const std::string& n : shard("2/2")) EXPECT_TRUE(both.insert(n).second) << n;
    EXPECT_EQ(both, (names{"litmus/two-stores-back", "kernel/smp-cas-two-cpus", "litmus/sb/mb",
                           "litmus/mp/relaxed"}));
    // a malformed estimate is named with its line
    spit(path("times.tsv"), "# x\nlitmus/sb/mb\trelacy\texhaustive\n");
    expect_usage_error(kverify({"verify", "--expected", t, "--shard", "1/2"}),
                       "times.tsv:2: expected 4 tab-separated fields");
    spit(path("times.tsv"), "litmus/sb/mb\trelacy\texhaustive\t1.5\n");
    expect_usage_error(kverify({"verify", "--expected", t, "--shard", "1/2"}),
                       "times.tsv:1: microseconds must be a whole number, got '1.5'");
}

// Every quick row of the project's table has its estimate, and every estimate its row (a
// renamed or removed row leaves none behind): proofs/expected/pin-times writes them.
TEST_F(cli, every_quick_row_has_a_time_estimate) {
    std::string times_path = KVERIFY_TABLE;
    times_path.replace(times_path.rfind('/') + 1, std::string::npos, "times.tsv");
    const auto rows_in = [](const std::string& text, std::size_t fields, bool quick_only) {
        std::set<std::string> keys;
        std::istringstream in(text);
        for (std::string line; std::getline(in, line);) {
            if (line.empty() || line[0] == '#') continue;
            std::vector<std::string> f;
            std::istringstream fs(line);
            for (std::string x; std::getline(fs, x, '\t');) f.push_back(x);
            EXPECT_EQ(f.size(), fields) << line;
            if (f.size() != fields || (quick_only && f[5] != "quick")) continue;
            keys.insert(f[0] + " " + f[1] + " " + f[2]);
        }
        return keys;
    };
    const std::set<std::string> quick = rows_in(slurp(KVERIFY_TABLE), 6, true);
    const std::set<std::string> all = rows_in(slurp(KVERIFY_TABLE), 6, false);
    const std::set<std::string> timed = rows_in(slurp(times_path), 4, false);
    EXPECT_GT(quick.size(), 2000u);
    for (const std::string& k : quick) EXPECT_EQ(timed.count(k), 1u) << k << ": no estimate";
    for (const std::string& k : timed) EXPECT_EQ(all.count(k), 1u) << k << ": no such row";
}

TEST_F(cli, merge_reports_a_result_file_byte_for_byte_as_verify_did) {
    // Every part of a report: a mismatch, a count change, expected violations with --trace.
    const std::string t =
        drifted_table("t.tsv", {"kernel/smp-cas-two-cpus", "kernel/spinlock-irqsave",
                                "kernel/local-cas-two-cpus", "litmus/mp/relaxed"});
    const auto outputs = [&](const std::string& prefix) {
        return std::vector<std::string>{"--trace",
                                        "--json",
                                        path(prefix + ".json"),
                                        "--junit",
                                        path(prefix + ".xml"),
                                        "--markdown",
                                        path(prefix + ".md")};
    };
    std::vector<std::string> args = {"verify", "--expected", t, "-j", "2"};
    for (const std::string& a : outputs("v")) args.push_back(a);
    const result v = kverify(args);
    ASSERT_EQ(v.status, 1) << v.out << v.err;
    for (const char* part :
         {"MISMATCH", "execution counts changed, verdicts unchanged:", "counterexample trace:",
          "4 checks: 2 as expected, 1 differ, 1 count "
          "changed, 0 inconclusive"})
        EXPECT_NE(v.out.find(part), std::string::npos) << part << " not in\n" << v.out;

    args = {"merge", path("v.json")};
    for (const std::string& a : outputs("m")) args.push_back(a);
    const result m = kverify(args);
    EXPECT_EQ(m.status, v.status) << m.err;
    EXPECT_EQ(m.out, v.out);
    for (const char* ext : {".json", ".xml", ".md"})
        EXPECT_EQ(slurp(path(std::string("m") + ext)), slurp(path(std::string("v") + ext))) << ext;

    // The twin: a row changed in the file shows in the merged report.
    json j = json::parse(slurp(path("v.json")));
    j["rows"][0]["executions"] = 490;
    spit(path("edited.json"), j.dump());
    const result e = kverify({"merge", path("edited.json"), "--trace"});
    EXPECT_NE(e.out, v.out);
    EXPECT_EQ(e.out.find("pinned 490, got 495"), std::string::npos) << e.out;
    EXPECT_NE(e.out.find("4 checks: 3 as expected, 1 differ, 0 count changed"), std::string::npos)
        << e.out;
}

// ----- replay -----

std::string trace_part(const std::string& out) {
    const std::size_t at = out.find("USER ASSERT FAILED");
    const std::size_t end = out.find("\n  ", at);
    return at == std::string::npos ? std::string() : out.substr(at, end - at + 1);
}

TEST_F(cli, replay_reproduces_the_same_trace) {
    for (const std::vector<std::string>& run :
         {std::vector<std::string>{"kernel/local-cas-two-cpus-unchecked"},
          std::vector<std::string>{"objpool/v6.7/c2-o2-irq-np", "--search", "bounded:2"},
          std::vector<std::string>{"litmus/two-stores-back", "--search", "sampled:20000",
                                   "--no-shrink"}}) {
        SCOPED_TRACE(run.front());
        std::vector<std::string> args = {"run"};
        args.insert(args.end(), run.begin(), run.end());
        args.insert(args.end(), {"--save-replay", path("cex.json")});
        const result r = kverify(args);
        ASSERT_EQ(r.status, 1) << r.out;
        const json saved = json::parse(slurp(path("cex.json")));
        EXPECT_EQ(saved.at("check"), run.front());
        EXPECT_EQ(saved.at("engine"), "relacy");
        EXPECT_FALSE(saved.at("replay").get<std::string>().empty());
        EXPECT_EQ(trace_part(r.out), saved.at("trace").get<std::string>());

        const result p = kverify({"replay", path("cex.json")});
        EXPECT_EQ(p.status, 1) << p.out;
        EXPECT_EQ(trace_part(p.out), saved.at("trace").get<std::string>());
        EXPECT_NE(p.out.find("the trace is identical to the one saved"), std::string::npos)
            << p.out;
    }

    // the twin: a saved trace that is not what the execution prints is reported as different
    json saved = json::parse(slurp(path("cex.json")));
    std::string trace = saved.at("trace");
    trace.replace(trace.find("value=1"), 7, "value=9");
    saved["trace"] = trace;
    spit(path("edited.json"), saved.dump());
    const result d = kverify({"replay", path("edited.json")});
    expect_usage_error(d, "the replayed execution is not the saved one");
    EXPECT_EQ(d.out.find("the trace is identical"), std::string::npos) << d.out;

    spit(path("junk.json"), "[1, 2");
    expect_usage_error(kverify({"replay", path("junk.json")}), "not a JSON file");
    spit(path("nocheck.json"), "{\"engine\": \"relacy\"}");
    expect_usage_error(kverify({"replay", path("nocheck.json")}), "not a replay file");
}

TEST_F(cli, the_dpor_engine_runs_shrinks_and_replays_through_the_same_commands) {
    for (const char* engine : {"dpor-rc11", "dpor-sc"}) {
        SCOPED_TRACE(engine);
        const result r = kverify({"run", "pcpu_stat/mut-read-write/irq1-mig0", "--engine", engine,
                                  "--save-replay", path("cex.json")});
        ASSERT_EQ(r.status, 1) << r.out << r.err;
        EXPECT_NE(r.out.find("verdict: lost-update"), std::string::npos) << r.out;
        const json saved = json::parse(slurp(path("cex.json")));
        EXPECT_EQ(saved.at("engine"), engine);
        EXPECT_EQ(saved.at("search"), "exhaustive") << "dpor offers no bounded search to shrink to";
        const result p = kverify({"replay", path("cex.json")});
        EXPECT_EQ(p.status, 1) << p.out << p.err;
        EXPECT_NE(p.out.find("the trace is identical"), std::string::npos) << p.out;
    }
}

TEST_F(cli, a_row_of_a_json_result_file_replays) {
    const result v = kverify({"verify", "--filter", "^kernel/", "--json", path("r.json")});
    ASSERT_EQ(v.status, 0) << v.out;
    const result p =
        kverify({"replay", path("r.json"), "--check", "kernel/migration-stale-cpu-id"});
    EXPECT_EQ(p.status, 1) << p.out;
    EXPECT_NE(p.out.find("result: stale-cpu"), std::string::npos) << p.out;
    EXPECT_NE(p.out.find("migrate T0 cpu0 -> cpu1"), std::string::npos) << p.out;
    EXPECT_NE(p.out.find("the trace is identical"), std::string::npos) << p.out;
    expect_usage_error(kverify({"replay", path("r.json"), "--check", "kernel/spinlock-irqsave"}),
                       "no replay string");
}

TEST_F(cli, shrinking_keeps_the_violation_class_with_a_smaller_search) {
    const result r = kverify({"run", "objpool/v6.7/c2-o2-irq-np", "--search", "bounded:2",
                              "--save-replay", path("cex.json")});
    ASSERT_EQ(r.status, 1) << r.out;
    EXPECT_NE(r.out.find("counterexample shrunk from bounded:2 to bounded:0"), std::string::npos)
        << r.out;
    const json saved = json::parse(slurp(path("cex.json")));
    EXPECT_EQ(saved.at("search"), "bounded:0");
    EXPECT_EQ(saved.at("verdict"), "loss");
    // the IRQ is needed: its budget stays
    EXPECT_FALSE(saved.contains("limits")) << saved.dump();
    EXPECT_NE(r.out.find("irq enter on cpu0"), std::string::npos) << r.out;

    // a data race that needs no NMI: the NMI budget goes, and the replay file keeps that limit
    const result n = kverify({"run", "objpool/v6.7/c2-o1-nmi", "--save-replay", path("nmi.json")});
    ASSERT_EQ(n.status, 1) << n.out;
    EXPECT_NE(n.out.find("shrunk from exhaustive to bounded:0 nmi<=0"), std::string::npos) << n.out;
    const json limited = json::parse(slurp(path("nmi.json")));
    EXPECT_EQ(limited.at("limits"), json({{"nmi", 0}})) << limited.dump();
    const result p = kverify({"replay", path("nmi.json")});
    EXPECT_EQ(p.status, 1) << p.out;
    EXPECT_NE(p.out.find("of search bounded:0 nmi<=0  result: data-race"), std::string::npos)
        << p.out;
    EXPECT_NE(p.out.find("the trace is identical"), std::string::npos) << p.out;
}

// ----- progress and help -----

TEST_F(cli, progress_only_on_a_terminal_or_when_asked) {
    const result quiet = kverify({"verify", "--filter", "^kernel/"});
    EXPECT_EQ(quiet.status, 0);
    EXPECT_EQ(quiet.err, "") << "nothing extra on stderr when it is not a terminal";
    const result loud = kverify({"verify", "--filter", "^kernel/", "--progress"});
    EXPECT_EQ(loud.status, 0);
    EXPECT_TRUE(std::regex_search(loud.err, std::regex("\\[[0-9]+/[0-9]+ [0-9]+ s\\]")))
        << loud.err;
    EXPECT_EQ(table_lines(loud.out), table_lines(quiet.out)) << "progress never goes to stdout";
}

// ----- evidence: the table's rows per variant, as Markdown -----

TEST_F(cli, evidence_groups_rows_by_model_search_and_verdict_keeping_the_strongest_search) {
    spit(path("t.tsv"),
         "# a test table\n"
         "objpool/v6.15/c2-o1\tdpor-rc11\texhaustive\tdata-race\t1\tquick\n"
         "objpool/v6.15/c2-o1-np\tdpor-rc11\texhaustive\tloss\t25\tquick\n"
         "objpool/v6.15/c2-o2\tdpor-rc11\texhaustive\tpass\t1\tquick\n"
         "objpool/v6.15/c2-o2-np\tdpor-rc11\texhaustive\tpass\t1\tquick\n"
         "objpool/v6.15/c2-o1-np\tdpor-sc\texhaustive\tpass\t12\tquick\n"
         "objpool/v6.15/c2-o2\trelacy\tbounded:2\tpass\t-\tquick\n"
         "objpool/v6.15/c2-o2\trelacy\tbounded:3\tpass\t-\tfull\n"
         "objpool/v6.15/c2-o2-np\trelacy\tsampled:10\tpass\t-\tquick\n");
    const result r = kverify({"evidence", "objpool", "--expected", path("t.tsv")});
    ASSERT_EQ(r.status, 0) << r.err;
    const std::string want =
        "**v6.15**\n\n"
        "- RC11 (dpor), exhaustive, quick, pass: c2-o2[-np]\n"
        "- RC11 (dpor), exhaustive, quick, data-race: c2-o1\n"
        "- RC11 (dpor), exhaustive, quick, loss: c2-o1-np\n"
        "- SC (dpor), exhaustive, quick, pass: c2-o1-np\n"
        "- C++11 (Relacy), bounded:3, full, pass: c2-o2\n"
        "- C++11 (Relacy), sampled:10, quick, pass: c2-o2-np\n";
    EXPECT_NE(r.out.find(want), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("bounded:2"), std::string::npos) << "a weaker search shown: " << r.out;
    EXPECT_NE(r.out.find("\n**v6.7**: no rows\n"), std::string::npos) << r.out;
    // The summary block first (tests/cli/summary_test.cpp), then the lists.
    EXPECT_EQ(r.out.rfind("```\nobjpool: ", 0), 0u) << r.out;
    EXPECT_NE(r.out.find("```\n\n**v6.7**: no rows\n\n**v6.10**"), std::string::npos) << r.out;

    // A line that covers every configuration of the variant says so.
    // Every check of the variant, the coverage checks (coverage/objpool/v6.15/...) included.
    const result list = kverify({"list", "--filter", "^(coverage/)?objpool/v6\\.15/"});
    ASSERT_EQ(list.status, 0);
    std::istringstream names(list.out);
    std::string text, line;
    unsigned n = 0;
    while (std::getline(names, line)) {
        text += line.substr(0, line.find('\t')) + "\tdpor-rc11\texhaustive\tpass\t1\tquick\n";
        ++n;
    }
    spit(path("all.tsv"), text);
    const result all = kverify({"evidence", "objpool", "--expected", path("all.tsv")});
    // ... but for the twins of the checker among them, which are listed apart with their
    // variant in each name (summary_test.cpp): v6.15's own configurations are the rest.
    const std::size_t twins = all.out.find("**Twins of the checker**");
    ASSERT_NE(twins, std::string::npos) << all.out;
    unsigned k = 0;
    for (std::size_t at = all.out.find("v6.15/", twins); at != std::string::npos;
         at = all.out.find("v6.15/", at + 1))
        ++k;
    EXPECT_GT(k, 0u) << all.out;
    EXPECT_NE(all.out.find("**v6.15**\n\n- RC11 (dpor), exhaustive, quick, pass: every "
                           "configuration (" +
                           std::to_string(n - k) + ")\n"),
              std::string::npos)
        << all.out;

    expect_usage_error(kverify({"evidence", "nope", "--expected", path("t.tsv")}),
                       "no checks of algorithm 'nope' (algorithms: objpool)");
}

TEST_F(cli, help_is_short_and_each_command_keeps_its_options) {
    const result r = kverify({"help"});
    EXPECT_EQ(r.status, 0);
    for (const char* word :
         {"verify", "list", "run", "check", "replay", "merge", "evidence", "help", "test", "bench",
          "coverage", "exit status", "model/cli/MANUAL.md"})
        EXPECT_NE(r.out.find(word), std::string::npos) << word;
    for (const char* status : {"\n  0  ", "\n  1  ", "\n  2  ", "\n  3  "})
        EXPECT_NE(r.out.find(status), std::string::npos) << status;
    EXPECT_LE(std::count(r.out.begin(), r.out.end(), '\n'), 30) << r.out;
    EXPECT_EQ(r.out.find("--shard"), std::string::npos) << "options belong to 'CMD --help'";
    EXPECT_EQ(kverify({"--help"}).out, r.out);

    const std::map<std::string, std::vector<std::string>> options = {
        {"verify",
         {"--shard", "-j,--jobs", "--json", "--junit", "--markdown", "--repin", "--filter",
          "--tier", "--allow-count-changed", "--budget", "--max-executions", "--progress"}},
        {"run", {"--save-replay", "--search", "--engine", "--no-shrink", "--raw-trace"}},
        {"check", {"--expected", "--trace", "--allow-count-changed"}},
        {"replay", {"--check", "--raw-trace"}},
        {"merge", {"--json", "--junit", "--markdown", "--trace"}},
        {"list", {"--filter", "--engine"}},
        {"evidence", {"--expected", "ALGORITHM"}},
    };
    for (const auto& [command, words] : options) {
        SCOPED_TRACE(command);
        const result h = kverify({"help", command});
        EXPECT_EQ(h.status, 0);
        EXPECT_EQ(kverify({command, "--help"}).out, h.out);
        EXPECT_EQ(h.out.find("Usage: kverify " + command), 0u + h.out.find('\n') + 1) << h.out;
        for (const std::string& w : words) EXPECT_NE(h.out.find(w), std::string::npos) << w;
    }
    // the twin: one command's help does not list another's options
    EXPECT_EQ(kverify({"help", "run"}).out.find("--repin"), std::string::npos);
    const result test = kverify({"help", "test"});
    EXPECT_EQ(test.status, 0);
    EXPECT_NE(test.out.find("./kverify test"), std::string::npos) << test.out;
}

}  // namespace
