// SPDX-License-Identifier: GPL-2.0-only
// Litmus tests run through the command's entry point on the dpor engine: the classic shapes
// under RC11 and SC with the observations those models give on the project's mapping (each
// Never next to a Sometimes twin), herd7's output text for every fixture (the expected files
// were checked by hand, execution by execution, and their format against herd7's own
// catalogue), witnesses that count executions rather than states, --judge, and every exit
// status.
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "model/litmus/dpor_backend.hpp"
#include "model/litmus/report.hpp"
#include "tests/litmus_frontend/helpers.hpp"

namespace kverify::litmus {
namespace {

using namespace test_support;

std::string write_temp(const std::string& name, const std::string& text) {
    const std::string path = testing::TempDir() + "litmus_" + name;
    std::ofstream(path, std::ios::binary) << text;
    return path;
}

std::string observe(const std::string& fixture, litmus_model m) {
    const command_run r = run_litmus({fixture_path(fixture)}, with_model(m));
    EXPECT_EQ(r.status, 0) << r.err;
    return observation(r.out);
}

constexpr litmus_model rc11 = litmus_model::rc11;
constexpr litmus_model sc = litmus_model::sc;

TEST(LitmusRun, StoreBufferingIsSometimesUnderRc11AndNeverUnderSc) {
    EXPECT_EQ(observe("sb.litmus", rc11), "Sometimes 1 3");
    EXPECT_EQ(observe("sb.litmus", sc), "Never 0 3");
}

TEST(LitmusRun, StoreBufferingWithSmpMbIsNever) {
    EXPECT_EQ(observe("sb-mb.litmus", rc11), "Never 0 3");
    EXPECT_EQ(observe("sb-mb.litmus", sc), "Never 0 3");
}

TEST(LitmusRun, MessagePassingWithWmbAndRmbIsNeverUnderRc11) {
    // smp_wmb and smp_rmb are C11 release and acquire fences: they synchronise.
    EXPECT_EQ(observe("mp-wmb-rmb.litmus", rc11), "Never 0 3");
    EXPECT_EQ(observe("mp-wmb-rmb.litmus", sc), "Never 0 3");
}

TEST(LitmusRun, MessagePassingWithoutBarriersIsSometimesUnderRc11) {
    EXPECT_EQ(observe("mp-once.litmus", rc11), "Sometimes 1 3");
    EXPECT_EQ(observe("mp-once.litmus", sc), "Never 0 3");
}

TEST(LitmusRun, LoadBufferingIsNeverUnderRc11) {
    // RC11 forbids po | rf cycles: one execution, both loads read the initial values.
    EXPECT_EQ(observe("lb-ctrl.litmus", rc11), "Never 0 1");
    EXPECT_EQ(observe("lb-ctrl.litmus", sc), "Never 0 1");
}

TEST(LitmusRun, TwoPlusTwoWritesIsSometimesUnderRc11AndNeverUnderSc) {
    EXPECT_EQ(observe("2plus2w.litmus", rc11), "Sometimes 1 3");
    EXPECT_EQ(observe("2plus2w.litmus", sc), "Never 0 3");
}

TEST(LitmusRun, PrintsWhatHerdPrintsForEachFixture) {
    const char* const names[] = {"sb",
                                 "sb-mb",
                                 "mp-once",
                                 "mp-wmb-rmb",
                                 "lb-ctrl",
                                 "2plus2w",
                                 "publish-pointer",
                                 "lock-counter",
                                 "cmpxchg-claim",
                                 "atomics",
                                 "xor-unguessed",
                                 "trylock-filter",
                                 "syntax",
                                 "syntax-ext"};
    for (const char* n : names) {
        for (const auto& [m, suffix] : {std::pair{rc11, ".rc11"}, std::pair{sc, ".sc"}}) {
            SCOPED_TRACE(std::string(n) + suffix);
            const command_run r =
                run_litmus({fixture_path(std::string(n) + ".litmus")}, with_model(m));
            EXPECT_EQ(r.status, 0) << r.err;
            EXPECT_EQ(r.out, read_file(fixture_path("expected/" + std::string(n) + suffix)));
        }
    }
}

TEST(LitmusRun, AValueABitwiseRmwReadsIsFoundEvenIfNoConstantNamesIt) {
    // 7 is computed (3 + 4): the guesses start without it, the search runs again with it.
    const command_run r = run_litmus({fixture_path("xor-unguessed.litmus")}, with_model(rc11));
    EXPECT_NE(r.out.find("1:r1=7; [b]=6;"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("1:r1=0; [b]=7;"), std::string::npos) << r.out;
}

TEST(LitmusRun, WitnessesCountExecutionsNotStates) {
    // Two stores of the same value and a reader: 2 final states, 6 executions (2 coherence
    // orders, each with 3 writes to read from).
    const std::string f = write_temp("same-value.litmus",
                                     "C same-value\n{}\n"
                                     "P0(int *x) { WRITE_ONCE(*x, 1); }\n"
                                     "P1(int *x) { WRITE_ONCE(*x, 1); }\n"
                                     "P2(int *x) { int r0; r0 = READ_ONCE(*x); }\n"
                                     "exists (2:r0=1)\n");
    for (litmus_model m : {rc11, sc}) {
        const command_run r = run_litmus({f}, with_model(m));
        EXPECT_NE(r.out.find("States 2\n"), std::string::npos) << r.out;
        EXPECT_EQ(observation(r.out), "Sometimes 4 2");
    }
}

TEST(LitmusRun, WitnessesAreTheEnginesCompleteExecutions) {
    const test t = parse_test("sb", read_file(fixture_path("sb.litmus")));
    const std::vector<rloc> obs = observed_rlocs(t);
    const run_result r = run_on_dpor(t, obs, dpor_run_options{});
    std::uint64_t total = 0;
    for (const auto& f : r.finals) total += f.second;
    EXPECT_EQ(total, r.executions);
    EXPECT_EQ(r.executions, 4u);
}

TEST(LitmusRun, JudgeComparesTheObservationWithTheResultLine) {
    const command_run ok = run_litmus({fixture_path("sb.litmus")}, with_model(rc11, true));
    EXPECT_EQ(ok.status, 0);
    EXPECT_NE(ok.out.find("Result sb Sometimes: ok\n"), std::string::npos) << ok.out;
    const command_run bad = run_litmus({fixture_path("sb.litmus")}, with_model(sc, true));
    EXPECT_EQ(bad.status, 1);
    EXPECT_NE(bad.out.find("Result sb Sometimes: mismatch, observed Never\n"), std::string::npos)
        << bad.out;
}

TEST(LitmusRun, JudgingAFileWithoutAResultLineIsAnError) {
    const std::string f = write_temp("no-result.litmus",
                                     "C no-result\n{}\nP0(int *x) { WRITE_ONCE(*x, 1); }\n"
                                     "exists (x=1)\n");
    const command_run r = run_litmus({f}, with_model(rc11, true));
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(r.err, f + ": no 'Result:' line to judge the observation against\n");
    EXPECT_EQ(run_litmus({f}, with_model(rc11)).status, 0);  // without --judge it runs
    const std::string g = write_temp("odd-result.litmus",
                                     "C odd\n(* Result: Maybe *)\n{}\n"
                                     "P0(int *x) { WRITE_ONCE(*x, 1); }\nexists (x=1)\n");
    const command_run o = run_litmus({g}, with_model(rc11, true));
    EXPECT_EQ(o.status, 2);
    EXPECT_EQ(o.err, g + ":2:12: unknown Result 'Maybe' (Never, Sometimes or Always)\n");
}

// The LKMM differs from RC11 in both directions, and the command says which model it ran:
// load buffering is allowed (RC11 forbids it), and WRC with smp_wmb/smp_rmb too (the C11 fences
// of RC11's mapping order more); SB stays allowed under both.
TEST(LitmusRun, LkmmRunsAndDiffersFromRc11WhereTheModelsDo) {
    const std::string corpus = std::string(LKMM_CORPUS) + "/";
    struct row {
        const char* file;
        const char* lkmm;
        const char* rc11;
    };
    for (const row& r :
         {row{"lb.litmus", "Sometimes", "Never"}, row{"wrc+wmb+rmb.litmus", "Sometimes", "Never"},
          row{"sb.litmus", "Sometimes", "Sometimes"}, row{"mp+wmb+rmb.litmus", "Never", "Never"}}) {
        SCOPED_TRACE(r.file);
        const command_run l = run_litmus({corpus + r.file}, with_model(litmus_model::lkmm));
        const command_run c = run_litmus({corpus + r.file}, with_model(litmus_model::rc11));
        EXPECT_EQ(l.status, 0) << l.err;
        EXPECT_EQ(c.status, 0) << c.err;
        EXPECT_NE(l.out.find(std::string(" ") + r.lkmm + " "), std::string::npos) << l.out;
        EXPECT_NE(c.out.find(std::string(" ") + r.rc11 + " "), std::string::npos) << c.out;
    }
    litmus_model m;
    EXPECT_TRUE(parse_litmus_model("lkmm", m));
    EXPECT_EQ(m, litmus_model::lkmm);
    EXPECT_TRUE(parse_litmus_model("sc", m));
    EXPECT_EQ(m, litmus_model::sc);
    EXPECT_FALSE(parse_litmus_model("tso", m));
}

TEST(LitmusRun, BadFilesExitTwoWithTheirPosition) {
    const command_run missing = run_litmus({"/nonexistent/x.litmus"}, with_model(rc11));
    EXPECT_EQ(missing.status, 2);
    EXPECT_EQ(missing.err, "kverify litmus: cannot read /nonexistent/x.litmus\n");
    const std::string f = write_temp("loop.litmus", "C loop\n{}\nP0(int *x) {\n\twhile (1) ;\n}\n");
    const command_run loop = run_litmus({f}, with_model(rc11));
    EXPECT_EQ(loop.status, 2);
    EXPECT_EQ(loop.out, "");
    EXPECT_EQ(loop.err, f + ":4:2: loops are not supported ('while')\n");
    EXPECT_EQ(run_litmus({}, with_model(rc11)).status, 2);
}

TEST(LitmusRun, WhatTheModelCannotRunIsAnErrorNotAVerdict) {
    const std::string plain =
        write_temp("plain.litmus",
                   "C plain\n{}\nP0(int *x) { *x = 1; }\nP1(int *x) { int r; r = *x; }\n"
                   "exists (1:r=1)\n");
    const command_run p = run_litmus({plain}, with_model(rc11));
    EXPECT_EQ(p.status, 2);
    EXPECT_EQ(p.out, "");
    EXPECT_EQ(p.err, plain +
                         ":3:14: plain C accesses (*p) are not supported under RC11 or SC: "
                         "mark them (READ_ONCE, WRITE_ONCE), or use --model lkmm\n");
    // Under the LKMM the same test runs: a plain write and a plain read of x, unordered, race.
    const command_run l = run_litmus({plain}, with_model(litmus_model::lkmm));
    EXPECT_EQ(l.status, 0) << l.err;
    EXPECT_NE(l.out.find("Flag data-race"), std::string::npos) << l.out;
    // Some execution dereferences an int (the pointer is not published yet): no output.
    const std::string deref =
        write_temp("deref.litmus",
                   "C deref\n{ int *p; }\nP0(int **p, int *y) { WRITE_ONCE(*p, y); }\n"
                   "P1(int **p) { int *r0; int r1; r0 = READ_ONCE(*p); r1 = READ_ONCE(*r0); }\n"
                   "exists (1:r1=0)\n");
    const command_run d = run_litmus({deref}, with_model(sc));
    EXPECT_EQ(d.status, 2);
    EXPECT_EQ(d.out, "");
    EXPECT_EQ(d.err, deref + ":4:68: READ_ONCE at address 0, which is not a location's\n");
    // Its twin with the pointer initialised runs.
    const std::string fine =
        write_temp("deref-ok.litmus",
                   "C deref-ok\n{ int *p = &z; }\nP0(int **p, int *y) { WRITE_ONCE(*p, y); }\n"
                   "P1(int **p) { int *r0; int r1; r0 = READ_ONCE(*p); r1 = READ_ONCE(*r0); }\n"
                   "exists (1:r1=0)\n");
    const command_run k = run_litmus({fine}, with_model(sc));
    EXPECT_EQ(k.status, 0) << k.err;
    EXPECT_EQ(observation(k.out), "Always 2 0");
}

TEST(LitmusRun, ALimitReachedIsInconclusiveNeverAnObservation) {
    litmus_options o = with_model(rc11);
    o.max_executions = 2;
    const command_run r = run_litmus({fixture_path("sb.litmus")}, o);
    EXPECT_EQ(r.status, 3);
    EXPECT_EQ(r.out, "");
    EXPECT_NE(r.err.find("inconclusive: execution limit of 2"), std::string::npos) << r.err;
    o.max_executions = 100;
    EXPECT_EQ(run_litmus({fixture_path("sb.litmus")}, o).status, 0);
}

TEST(LitmusRun, TheWorstStatusOfAllFilesWins) {
    litmus_options judge = with_model(sc, true);
    const std::string good = fixture_path("sb-mb.litmus");  // Never, as its Result says
    const std::string differs = fixture_path("sb.litmus");  // Sometimes, Never under SC
    EXPECT_EQ(run_litmus({good, differs}, judge).status, 1);
    EXPECT_EQ(run_litmus({good, differs, "/nonexistent"}, judge).status, 2);
    judge.max_executions = 1;
    EXPECT_EQ(run_litmus({good}, judge).status, 3);
    const command_run both = run_litmus({good, good}, with_model(sc));
    EXPECT_EQ(both.status, 0);
    EXPECT_EQ(both.out, read_file(fixture_path("expected/sb-mb.sc")) +
                            read_file(fixture_path("expected/sb-mb.sc")));
}

TEST(LitmusRun, ALockNeverReleasedLeavesNoExecution) {
    const std::string f = write_temp("aa.litmus",
                                     "C aa\n{}\nP0(spinlock_t *l) { spin_lock(l); spin_lock(l); }\n"
                                     "exists (true)\n");
    const command_run r = run_litmus({f}, with_model(rc11));
    EXPECT_EQ(r.status, 0);
    EXPECT_NE(r.out.find("States 0\nNo\n"), std::string::npos) << r.out;
    EXPECT_EQ(observation(r.out), "Never 0 0");
    EXPECT_NE(r.err.find("a lock is never released"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace kverify::litmus
