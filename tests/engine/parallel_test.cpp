// SPDX-License-Identifier: GPL-2.0-only
// One search on several threads (options::threads), on generated programs under RC11 and SC: on
// 2, 3 and 4 threads the search explores every complete and blocked execution of the one-thread
// search exactly once (compared as multisets of graphs, so a duplicate shows), reports the same
// first violation (class, replay, index, blocked executions before it), the same violation per
// class when it looks for all of them, and the same verdict under an execution limit; a part of
// a split search on threads is that part. The threads share the work.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "tests/engine/ir.hpp"

namespace kverify::dpor::test {
namespace {

options on_threads(memory_model m, unsigned threads) {
    options o;
    o.model = m;
    o.trace = false;
    o.threads = threads;
    return o;
}

TEST(EngineParallel, EveryThreadCountExploresTheOneThreadSearchOnce) {
    std::mt19937 rng(20261202);
    unsigned checked = 0;
    for (int k = 0; k < 120; ++k) {
        const prog p = random_prog(rng, 3, 4);
        for (const memory_model m : {memory_model::rc11, memory_model::sc}) {
            const engine_run one = run_on_engine(p, on_threads(m, 1));
            ASSERT_TRUE(one.res.violations.empty()) << to_text(p);
            for (unsigned n = 2; n <= 4; ++n) {
                SCOPED_TRACE("program " + std::to_string(k) + " under " + to_string(m) + " on " +
                             std::to_string(n) + " threads: " + to_text(p));
                const engine_run par = run_on_engine(p, on_threads(m, n));
                ASSERT_TRUE(par.res.complete);
                EXPECT_EQ(par.res.threads, n);
                EXPECT_EQ(par.res.executions, one.res.executions);
                EXPECT_EQ(par.res.blocked, one.res.blocked);
                EXPECT_EQ(count_of(par.res.graphs), count_of(one.res.graphs));
                EXPECT_EQ(count_of(par.res.blocked_graphs), count_of(one.res.blocked_graphs));
                ASSERT_EQ(par.res.thread_share.size(), n);
                std::uint64_t sum = 0;
                for (std::uint64_t s : par.res.thread_share) sum += s;
                EXPECT_EQ(sum, one.res.executions + one.res.blocked);
                if (::testing::Test::HasFailure()) return;
            }
        }
        ++checked;
    }
    EXPECT_EQ(checked, 120u);
}

// Waits revisited in place (options::in_place_revisits: a run starts again from its graph's start,
// and a later alternative undoes them) on threads and in the parts of a split search: programs
// full of declared waits explore on 2 and 3 threads, and in 2 and 3 parts between them, every
// complete and blocked execution of the one-thread search once.
TEST(EngineParallel, WaitsRevisitedInPlaceOnThreadsAndInParts) {
    std::mt19937 rng(20261207);
    unsigned in_place = 0;
    for (int k = 0; k < 200; ++k) {
        const prog p = random_prog(rng, 3, 4, 2, false);
        for (const memory_model m : {memory_model::rc11, memory_model::sc}) {
            const engine_run one = run_on_engine(p, on_threads(m, 1), {}, true);
            ASSERT_TRUE(one.res.violations.empty()) << to_text(p);
            in_place += one.res.in_place > 0;
            for (unsigned n = 2; n <= 3; ++n) {
                SCOPED_TRACE("program " + std::to_string(k) + " under " + to_string(m) + ", " +
                             std::to_string(n) + " threads or parts: " + to_text(p));
                const engine_run par = run_on_engine(p, on_threads(m, n), {}, true);
                EXPECT_EQ(par.res.executions, one.res.executions);
                EXPECT_EQ(par.res.blocked, one.res.blocked);
                EXPECT_EQ(count_of(par.res.graphs), count_of(one.res.graphs));
                EXPECT_EQ(count_of(par.res.blocked_graphs), count_of(one.res.blocked_graphs));
                multiset graphs, blocked;
                for (unsigned i = 1; i <= n; ++i) {
                    options o = on_threads(m, 1);
                    o.split_part = i;
                    o.split_parts = n;
                    const engine_run part = run_on_engine(p, o, {}, true);
                    for (const std::string& g : part.res.graphs) ++graphs[g];
                    for (const std::string& g : part.res.blocked_graphs) ++blocked[g];
                }
                EXPECT_EQ(graphs, count_of(one.res.graphs));
                EXPECT_EQ(blocked, count_of(one.res.blocked_graphs));
                if (::testing::Test::HasFailure()) return;
            }
        }
    }
    EXPECT_GE(in_place, 25u);  // the programs do revisit waits in place
}

// The threads share the work (one thread exploring everything would pass the checks above): with
// the calling thread slowed down, the others take most subtrees. The twin: the calling thread's
// share alone is not the search.
TEST(EngineParallel, TheThreadsShareTheWork) {
    std::mt19937 rng(20261203);
    const std::thread::id caller = std::this_thread::get_id();
    const auto slow_caller = [caller](const outcome&) {
        if (std::this_thread::get_id() == caller)
            std::this_thread::sleep_for(std::chrono::microseconds(300));
    };
    unsigned big = 0, shared = 0;
    for (int k = 0; k < 400 && big < 8; ++k) {
        const prog p = random_prog(rng, 3, 4);
        const engine_run one = run_on_engine(p, on_threads(memory_model::rc11, 1));
        const std::uint64_t all = one.res.executions + one.res.blocked;
        if (all < 64 || all > 2000) continue;
        ++big;
        const engine_run par = run_on_engine(p, on_threads(memory_model::rc11, 3), slow_caller);
        SCOPED_TRACE(to_text(p));
        ASSERT_EQ(par.res.thread_share.size(), 3u);
        EXPECT_EQ(par.res.executions + par.res.blocked, all);
        const std::uint64_t others = par.res.thread_share[1] + par.res.thread_share[2];
        EXPECT_LT(par.res.thread_share[0], all);
        shared += others > par.res.thread_share[0];
    }
    EXPECT_EQ(big, 8u);
    EXPECT_GE(shared, 6u);
}

TEST(EngineParallel, TheReportedViolationIsTheOneThreadSearchs) {
    std::mt19937 rng(11);
    unsigned violating = 0, late = 0;
    for (int k = 0; k < 80; ++k) {
        const prog p = random_prog(rng, 3, 4);
        const auto at_end = fail_on_some(5);
        for (const memory_model m : {memory_model::rc11, memory_model::sc}) {
            const engine_run one = run_on_engine(p, on_threads(m, 1), at_end);
            if (one.res.violations.empty()) continue;
            ++violating;
            const violation& wv = one.res.violations.front();
            late += wv.at_execution > 8;
            for (unsigned n = 2; n <= 4; ++n) {
                SCOPED_TRACE("program " + std::to_string(k) + " under " + to_string(m) + " on " +
                             std::to_string(n) + " threads: " + to_text(p));
                // Several runs: which thread finds what first is timing; the report is not.
                for (int again = 0; again < 3; ++again) {
                    const engine_run par = run_on_engine(p, on_threads(m, n), at_end);
                    ASSERT_EQ(par.res.violations.size(), 1u);
                    const violation& pv = par.res.violations.front();
                    EXPECT_EQ(pv.cls, wv.cls);
                    EXPECT_EQ(pv.replay, wv.replay);
                    EXPECT_EQ(pv.at_execution, wv.at_execution);
                    EXPECT_EQ(pv.split_chunk, 0u);
                    EXPECT_EQ(par.res.executions, one.res.executions);
                    EXPECT_EQ(par.res.blocked, one.res.blocked);
                    if (::testing::Test::HasFailure()) return;
                }
            }
        }
    }
    EXPECT_GT(violating, 40u);
    EXPECT_GT(late, 10u);  // violations beyond the first chunk too
}

TEST(EngineParallel, EveryClassFirstAsOnOneThread) {
    std::mt19937 rng(12);
    unsigned several = 0;
    for (int k = 0; k < 150; ++k) {
        const prog p = random_prog(rng, 3, 4);
        const auto at_end = [](const outcome& o) {
            const std::uint64_t h = outcome_hash(o);
            if (h % 5 == 0) rt::fail("five", "a chosen outcome", src_loc("parallel_test", 0, ""));
            if (h % 7 < 2) rt::fail("seven", "a chosen outcome", src_loc("parallel_test", 0, ""));
        };
        options opt = on_threads(memory_model::rc11, 1);
        opt.all_violations = true;
        const engine_run one = run_on_engine(p, opt, at_end);
        if (one.res.violations.empty()) continue;
        several += one.res.violations.size() > 1;
        for (unsigned n = 2; n <= 4; ++n) {
            SCOPED_TRACE("program " + std::to_string(k) + " on " + std::to_string(n) +
                         " threads: " + to_text(p));
            opt.threads = n;
            const engine_run par = run_on_engine(p, opt, at_end);
            ASSERT_EQ(par.res.violations.size(), one.res.violations.size());
            for (std::size_t v = 0; v < one.res.violations.size(); ++v) {
                EXPECT_EQ(par.res.violations[v].cls, one.res.violations[v].cls);
                EXPECT_EQ(par.res.violations[v].replay, one.res.violations[v].replay);
                EXPECT_EQ(par.res.violations[v].at_execution, one.res.violations[v].at_execution);
            }
            EXPECT_EQ(par.res.executions, one.res.executions);
            EXPECT_EQ(par.res.blocked, one.res.blocked);
            if (::testing::Test::HasFailure()) return;
        }
    }
    EXPECT_GT(several, 20u);  // programs with both classes
}

// An execution limit is the search's, not each thread's: below the search's size the verdict is
// inconclusive on every thread count, at or above it the search completes.
TEST(EngineParallel, AnExecutionLimitIsTheWholeSearchs) {
    std::mt19937 rng(13);
    unsigned limited = 0;
    for (int k = 0; k < 100; ++k) {
        const prog p = random_prog(rng, 3, 4);
        const engine_run one = run_on_engine(p, on_threads(memory_model::rc11, 1));
        const std::uint64_t all = one.res.executions + one.res.blocked;
        if (all < 8) continue;
        ++limited;
        for (unsigned n = 1; n <= 4; ++n) {
            SCOPED_TRACE("program " + std::to_string(k) + " on " + std::to_string(n) +
                         " threads: " + to_text(p));
            options opt = on_threads(memory_model::rc11, n);
            opt.max_executions = all / 2;
            const engine_run cut = run_on_engine(p, opt);
            EXPECT_FALSE(cut.res.complete);
            EXPECT_NE(cut.res.incomplete_reason.find("execution limit"), std::string::npos);
            opt.max_executions = all + 1;
            EXPECT_TRUE(run_on_engine(p, opt).res.complete);
        }
        if (::testing::Test::HasFailure()) return;
    }
    EXPECT_GT(limited, 20u);
}

// A part of a split search on several threads is that part on one thread: the same chunks, counts
// and violation (what merge joins).
// A thread whose own chunks are done helps with the chunk another thread still explores: it
// takes the subtrees at the second cut nobody took yet (parallel.cpp). With the other thread
// slowed down, the calling thread finishes first and helps it; the search is still the one-thread
// search (every graph once, the same counts), helpers counted runs, and a violation reported is the
// one-thread search's first.
TEST(EngineParallel, AThreadThatIsDoneHelpsWithAChunkAnotherStillExplores) {
    std::mt19937 rng(20261205);
    const auto slow_other = [](const outcome& o) {  // some subtrees are slow, others not
        if (outcome_hash(o) % 32 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(3));
    };
    unsigned big = 0, helped = 0, violating = 0;
    // Ten programs at least, more (up to 40) until two of them were helped with: whether a
    // thread helps depends on the OS's timing of two threads on a shared machine.
    for (int k = 0; k < 6000 && big < 40 && (big < 10 || helped < 2); ++k) {
        const prog p = random_prog(rng, 3, 4);
        const engine_run one = run_on_engine(p, on_threads(memory_model::rc11, 1));
        const std::uint64_t all = one.res.executions + one.res.blocked;
        if (all < 1000 || all > 10000) continue;
        ++big;
        SCOPED_TRACE(to_text(p));
        options two = on_threads(memory_model::rc11, 2);
        two.help_levels = 1;  // (shallow: many subtrees to help with)
        const engine_run par = run_on_engine(p, two, slow_other);
        ASSERT_TRUE(par.res.complete);
        EXPECT_EQ(par.res.executions, one.res.executions);
        EXPECT_EQ(par.res.blocked, one.res.blocked);
        EXPECT_EQ(count_of(par.res.graphs), count_of(one.res.graphs));
        EXPECT_EQ(count_of(par.res.blocked_graphs), count_of(one.res.blocked_graphs));
        helped += par.res.helped_runs > 0;
        // The same program with a violation on some outcomes: the first one of one thread.
        const auto at_end = fail_on_some(7);
        const engine_run wv = run_on_engine(p, on_threads(memory_model::rc11, 1), at_end);
        if (wv.res.violations.empty()) continue;
        ++violating;
        const auto slow_and_fail = [&](const outcome& o) {
            slow_other(o);
            at_end(o);
        };
        const engine_run pv = run_on_engine(p, two, slow_and_fail);
        ASSERT_EQ(pv.res.violations.size(), 1u);
        EXPECT_EQ(pv.res.violations[0].replay, wv.res.violations[0].replay);
        EXPECT_EQ(pv.res.violations[0].at_execution, wv.res.violations[0].at_execution);
        EXPECT_EQ(pv.res.executions, wv.res.executions);
        EXPECT_EQ(pv.res.blocked, wv.res.blocked);
    }
    EXPECT_GE(big, 10u);
    EXPECT_GE(helped, 2u);  // (timing: about half of them, measured once; fewer on a busy machine)
    EXPECT_GE(violating, 4u);
}

TEST(EngineParallel, APartOfASplitSearchOnThreadsIsThePart) {
    std::mt19937 rng(14);
    unsigned checked = 0;
    for (int k = 0; k < 40; ++k) {
        const prog p = random_prog(rng, 3, 4);
        const auto at_end = fail_on_some(9);
        for (unsigned i = 1; i <= 3; ++i) {
            options opt = on_threads(memory_model::sc, 1);
            opt.split_part = i;
            opt.split_parts = 3;
            const engine_run one = run_on_engine(p, opt, at_end);
            opt.threads = 3;
            const engine_run par = run_on_engine(p, opt, at_end);
            SCOPED_TRACE("program " + std::to_string(k) + " part " + std::to_string(i) + ": " +
                         to_text(p));
            EXPECT_EQ(par.res.executions, one.res.executions);
            EXPECT_EQ(par.res.blocked, one.res.blocked);
            EXPECT_EQ(par.res.split_depth, one.res.split_depth);
            EXPECT_EQ(par.res.split_roots, one.res.split_roots);
            ASSERT_EQ(par.res.split_chunks.size(), one.res.split_chunks.size());
            for (std::size_t c = 0; c < one.res.split_chunks.size(); ++c) {
                EXPECT_EQ(par.res.split_chunks[c].index, one.res.split_chunks[c].index);
                EXPECT_EQ(par.res.split_chunks[c].executions, one.res.split_chunks[c].executions);
                EXPECT_EQ(par.res.split_chunks[c].blocked, one.res.split_chunks[c].blocked);
            }
            ASSERT_EQ(par.res.violations.size(), one.res.violations.size());
            if (!one.res.violations.empty()) {
                EXPECT_EQ(par.res.violations[0].replay, one.res.violations[0].replay);
                EXPECT_EQ(par.res.violations[0].at_execution, one.res.violations[0].at_execution);
                EXPECT_EQ(par.res.violations[0].split_chunk, one.res.violations[0].split_chunk);
            }
            if (::testing::Test::HasFailure()) return;
        }
        ++checked;
    }
    EXPECT_EQ(checked, 40u);
}

// (Under the LKMM: tests/engine/parallel_lkmm_test.cpp.)
TEST(EngineParallel, ZeroThreadsAreRefused) {
    prog p;
    p.init = {0};
    p.threads = {{instr{}}, {instr{}}};
    EXPECT_THROW(run_on_engine(p, on_threads(memory_model::rc11, 0)), std::invalid_argument);
    EXPECT_EQ(run_on_engine(p, on_threads(memory_model::sc, 3)).res.threads, 3u);
}

}  // namespace
}  // namespace kverify::dpor::test
