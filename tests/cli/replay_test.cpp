// SPDX-License-Identifier: GPL-2.0-only
// Tests of `kverify replay` refusing what it cannot honestly replay: a file edited, written for
// another check or search, or holding a replay string the engine cannot run, exits 2 with one
// line; "does not reproduce" is said only after the named execution ran.
#include <cstdio>
#include <fstream>
#include <sstream>

#include "tests/cli/cli_helpers.hpp"

namespace {

using namespace kverify_cli_test;

// The fingerprint as model/cli/MANUAL.md defines it, from what `kverify list` prints: so the
// tests below can write a file that passes it and reach the engine's own checks.
std::string fingerprint_of(const json& file) {
    const std::string name = file.at("check");
    const result l = kverify({"list", "--filter", "^" + name + "$"});
    std::istringstream in(l.out);
    std::vector<std::string> f;
    for (std::string cell; std::getline(in, cell, '\t');) f.push_back(cell);
    EXPECT_EQ(f.size(), 5u) << l.out;
    if (f.size() != 5) return "";
    if (!f[4].empty() && f[4].back() == '\n') f[4].pop_back();
    std::string limits;
    for (const char* k : {"irq", "nmi", "migrations"})
        if (file.contains("limits") && file["limits"].contains(k))
            limits += (limits.empty() ? "" : " ") + std::string(k) +
                      "<=" + std::to_string(file["limits"][k].get<int>());
    const std::string parts[] = {"kverify-replay-1",
                                 f[0],
                                 f[1],
                                 f[2],
                                 f[3],
                                 f[4],
                                 file.at("engine"),
                                 file.at("search"),
                                 limits,
                                 file.at("replay")};
    std::uint64_t a = 0xcbf29ce484222325ull, b = 0x6c62272e07bb0142ull;
    for (const std::string& p : parts)
        for (std::uint64_t* h : {&a, &b}) {
            for (unsigned char c : p) *h = (*h ^ c) * 1099511628211ull;
            for (std::size_t n = p.size(), i = 0; i < 8; ++i, n >>= 8)
                *h = (*h ^ (n & 0xff)) * 1099511628211ull;
        }
    char buf[48];
    std::snprintf(buf, sizeof buf, "kv1:%016llx%016llx", static_cast<unsigned long long>(a),
                  static_cast<unsigned long long>(b));
    return buf;
}

json saved_run(cli& t, const std::vector<std::string>& run, const std::string& file) {
    std::vector<std::string> args = {"run"};
    args.insert(args.end(), run.begin(), run.end());
    args.insert(args.end(), {"--no-shrink", "--save-replay", file});
    const result r = kverify(args);
    EXPECT_EQ(r.status, 1) << r.out << r.err;
    (void)t;
    return json::parse(slurp(file));
}

TEST_F(cli, a_replay_file_carries_a_fingerprint_and_an_edited_one_is_refused) {
    const json saved = saved_run(*this, {"kernel/local-cas-two-cpus-unchecked"}, path("cex.json"));
    ASSERT_TRUE(saved.contains("fingerprint")) << saved.dump();
    EXPECT_EQ(saved.at("fingerprint"), fingerprint_of(saved)) << "the manual's definition";
    // the twin: the untouched file replays and reproduces
    const result ok = kverify({"replay", path("cex.json")});
    EXPECT_EQ(ok.status, 1) << ok.out << ok.err;
    EXPECT_NE(ok.out.find("the trace is identical"), std::string::npos) << ok.out;

    const auto refused = [&](const char* what, json edited, const std::string& message) {
        SCOPED_TRACE(what);
        spit(path("edited.json"), edited.dump());
        const result r = kverify({"replay", path("edited.json")});
        expect_usage_error(r, message);
        EXPECT_EQ(r.out.find("does not reproduce"), std::string::npos) << r.out;
    };
    json j = saved;
    j["replay"] = "7 x";
    refused("garbage string", j, "the fingerprint does not match");
    j = saved;
    std::string s = j["replay"];
    s[s.size() / 2] = s[s.size() / 2] == '1' ? '2' : '1';
    j["replay"] = s;
    refused("edited string", j, "the fingerprint does not match");
    j = saved;
    j["search"] = "bounded:1";
    refused("changed search", j, "the fingerprint does not match");
    j = saved;
    j["check"] = "kernel/local-cas-two-cpus";
    refused("another check", j, "the fingerprint does not match");
    j = saved;
    j.erase("fingerprint");
    refused("no fingerprint", j, "no fingerprint");
}

TEST_F(cli, a_relacy_string_the_engine_cannot_run_is_refused_not_passed) {
    const json saved = saved_run(*this, {"kernel/local-cas-two-cpus-unchecked"}, path("cex.json"));
    // Strings that pass the fingerprint (recomputed here) but are no execution of the search.
    for (const std::string& bad : {std::string("7 x"), std::string("18446744073709551615 0"),
                                   std::string("0 5 1 0 0"), std::string("3 1 2 7 0")}) {
        SCOPED_TRACE(bad);
        json j = saved;
        j["replay"] = bad;
        j["fingerprint"] = fingerprint_of(j);
        spit(path("forged.json"), j.dump());
        const result r = kverify({"replay", path("forged.json")});
        expect_usage_error(r, "the saved execution cannot be run");
        EXPECT_EQ(r.out.find("does not reproduce"), std::string::npos) << r.out;
    }
}

TEST_F(cli, a_dpor_string_of_another_program_is_refused_with_exit_2) {
    const json a = saved_run(*this, {"pcpu_stat/mut-read-write/irq1-mig0", "--engine", "dpor-sc"},
                             path("a.json"));
    const result ok = kverify({"replay", path("a.json")});
    EXPECT_EQ(ok.status, 1) << ok.out << ok.err;  // the twin: its own string replays
    for (const std::string& bad : {std::string("garbage"), std::string("r9.9")}) {
        SCOPED_TRACE(bad);
        json j = a;
        j["replay"] = bad;
        j["fingerprint"] = fingerprint_of(j);
        spit(path("forged.json"), j.dump());
        const result r = kverify({"replay", path("forged.json")});
        expect_usage_error(r, "the saved execution cannot be run");
        EXPECT_EQ(r.out.find("does not reproduce"), std::string::npos) << r.out;
    }
}

// A string retargeted to another check passes the fingerprint (recomputed): what the replay
// then runs is an execution of another program, as after impl/ changed under a saved file.
json retargeted(const json& saved, const std::string& check) {
    json j = saved;
    j["check"] = check;
    j["fingerprint"] = fingerprint_of(j);
    return j;
}

TEST_F(cli, a_replay_is_one_execution_and_says_so) {
    const json saved = saved_run(*this, {"objpool/v6.15/c2-o1-np"}, path("cex.json"));
    const result ok = kverify({"replay", path("cex.json")});
    EXPECT_EQ(ok.status, 1) << ok.out << ok.err;  // the twin: it reproduces
    EXPECT_NE(ok.out.find("replay: execution " + std::to_string(saved.at("executions").get<int>()) +
                          " of search exhaustive  result: loss"),
              std::string::npos)
        << ok.out;
    // fix-acquire-last's repair runs Relacy's same decisions without the violation: one execution
    // passes, and the output says that this is no verdict on the check (never "verdict: pass").
    spit(path("fixed.json"), retargeted(saved, "objpool/fix-acquire-last/c2-o1-np").dump());
    const result p = kverify({"replay", path("fixed.json")});
    EXPECT_EQ(p.status, 0) << p.out << p.err;
    EXPECT_NE(p.out.find("result: no violation"), std::string::npos) << p.out;
    EXPECT_NE(p.out.find("does not reproduce"), std::string::npos) << p.out;
    EXPECT_NE(p.out.find("not a verdict on the check"), std::string::npos) << p.out;
    EXPECT_EQ(p.out.find("verdict:"), std::string::npos) << p.out;
}

TEST_F(cli, a_dpor_string_the_memory_model_forbids_is_refused_not_reported) {
    // v6.15's lost object reads `last` without acquire; in fix-acquire-last the same decisions
    // make a read see an entry older than one that happens before it: RC11 forbids that graph.
    const json saved =
        saved_run(*this, {"objpool/v6.15/c2-o1-np", "--engine", "dpor-rc11"}, path("cex.json"));
    const result ok = kverify({"replay", path("cex.json")});
    EXPECT_EQ(ok.status, 1) << ok.out << ok.err;  // the twin: on its own program it reproduces
    EXPECT_NE(ok.out.find("the trace is identical"), std::string::npos) << ok.out;
    spit(path("fixed.json"), retargeted(saved, "objpool/fix-acquire-last/c2-o1-np").dump());
    const result r = kverify({"replay", path("fixed.json")});
    expect_usage_error(r, "the memory model forbids");
    EXPECT_EQ(r.out.find("result: loss"), std::string::npos) << r.out;
}

TEST_F(cli, an_lkmm_counterexample_is_saved_only_when_its_string_replays) {
    // A read that waits for its write: the same graph, its events in another order.
    saved_run(*this, {"objpool/v6.15/c2-o1-np", "--engine", "dpor-lkmm"}, path("cex.json"));
    const result p = kverify({"replay", path("cex.json")});
    EXPECT_EQ(p.status, 1) << p.out << p.err;
    EXPECT_NE(p.out.find("result: loss"), std::string::npos) << p.out;
    EXPECT_NE(p.out.find("the execution graph is the one saved"), std::string::npos) << p.out;
    // Load buffering proper (reads waiting in a cycle) cannot run from a string: not saved.
    const result lb = kverify(
        {"run", "litmus/lb/relaxed", "--engine", "dpor-lkmm", "--save-replay", path("lb.json")});
    EXPECT_EQ(lb.status, 1) << lb.out << lb.err;
    EXPECT_NE(lb.out.find("not saved to"), std::string::npos) << lb.out;
    EXPECT_NE(lb.out.find("load buffering"), std::string::npos) << lb.out;
    EXPECT_FALSE(std::ifstream(path("lb.json")).good());
}

}  // namespace
