// SPDX-License-Identifier: GPL-2.0-only
// One search under the LKMM on several threads (parallel.cpp, "Under the LKMM"): the threads share
// the sets of starts and executions explored, so on generated programs on 2 and 3 threads the
// search counts every complete and blocked execution of the one-thread search exactly once
// (multisets of graphs: a duplicate shows), and a violation found on threads is reported as one
// thread finds it (the search runs again on one), also when the search looks for one class only.
// Without the run again on one thread, both violation tests fail. The fingerprints that make the
// sets shareable name no address of an explorer's: equal on two explorers whose locations and
// arenas lie elsewhere, and different for a graph that differs (a value, a pointer's offset, a
// location that holds pointers not declared so).
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>
#include <vector>

#include "model/dpor/explorer.hpp"
#include "tests/engine/ir.hpp"

namespace kverify::dpor::test {
namespace {

options lkmm_on(unsigned threads) {
    options o;
    o.model = memory_model::lkmm;
    o.trace = false;
    o.threads = threads;
    return o;
}

TEST(EngineParallelLkmm, EveryThreadCountExploresTheOneThreadSearchOnce) {
    std::mt19937 rng(20261206);
    unsigned checked = 0, big = 0;
    for (int k = 0; k < 150; ++k) {
        const prog p = straight_line(rng);
        const engine_run one = run_on_engine(p, lkmm_on(1));
        ASSERT_TRUE(one.res.complete) << one.res.incomplete_reason << to_text(p);
        ASSERT_TRUE(one.res.violations.empty()) << to_text(p);
        big += one.res.executions >= 50;
        for (unsigned n = 2; n <= 3; ++n) {
            SCOPED_TRACE("program " + std::to_string(k) + " on " + std::to_string(n) +
                         " threads: " + to_text(p));
            const engine_run par = run_on_engine(p, lkmm_on(n));
            ASSERT_TRUE(par.res.complete) << par.res.incomplete_reason;
            EXPECT_EQ(par.res.threads, n);
            EXPECT_FALSE(par.res.rerun_on_one);
            EXPECT_EQ(par.res.executions, one.res.executions);
            EXPECT_EQ(par.res.blocked, one.res.blocked);
            EXPECT_EQ(count_of(par.res.graphs), count_of(one.res.graphs));
            EXPECT_EQ(count_of(par.res.blocked_graphs), count_of(one.res.blocked_graphs));
            std::uint64_t sum = 0;
            for (std::uint64_t s : par.res.thread_share) sum += s;
            EXPECT_EQ(sum, one.res.executions + one.res.blocked);
            if (::testing::Test::HasFailure()) return;
        }
        ++checked;
    }
    EXPECT_EQ(checked, 150u);
    EXPECT_GE(big, 15u);  // searches with enough subtrees for the threads to share
}

TEST(EngineParallelLkmm, TheReportedViolationIsTheOneThreadSearchs) {
    std::mt19937 rng(21);
    unsigned violating = 0, late = 0;
    for (int k = 0; k < 80; ++k) {
        const prog p = straight_line(rng);
        const auto at_end = fail_on_some(5);
        const engine_run one = run_on_engine(p, lkmm_on(1), at_end);
        if (one.res.violations.empty()) continue;
        ++violating;
        const violation& wv = one.res.violations.front();
        late += wv.at_execution > 8;
        for (unsigned n = 2; n <= 3; ++n) {
            SCOPED_TRACE("program " + std::to_string(k) + " on " + std::to_string(n) +
                         " threads: " + to_text(p));
            const engine_run par = run_on_engine(p, lkmm_on(n), at_end);
            EXPECT_TRUE(par.res.rerun_on_one);
            ASSERT_EQ(par.res.violations.size(), 1u);
            const violation& pv = par.res.violations.front();
            EXPECT_EQ(pv.cls, wv.cls);
            EXPECT_EQ(pv.replay, wv.replay);
            EXPECT_EQ(pv.at_execution, wv.at_execution);
            EXPECT_TRUE(par.res.complete);
            EXPECT_EQ(par.res.executions, one.res.executions);
            EXPECT_EQ(par.res.blocked, one.res.blocked);
            if (::testing::Test::HasFailure()) return;
        }
    }
    EXPECT_GT(violating, 30u);
    EXPECT_GT(late, 5u);  // found past the first few executions too
}

// Looking for one class only (options::stop_class): the other class's violations do not end
// the search, on threads as on one.
TEST(EngineParallelLkmm, OneClassLookedForAsOnOneThread) {
    std::mt19937 rng(23);
    unsigned found = 0, other_first = 0;
    const auto at_end = [](const outcome& o) {
        const std::uint64_t h = outcome_hash(o);
        if (h % 3 == 0) rt::fail("three", "a chosen outcome", src_loc("parallel_lkmm_test", 0, ""));
        if (h % 7 == 1) rt::fail("seven", "a chosen outcome", src_loc("parallel_lkmm_test", 0, ""));
    };
    for (int k = 0; k < 160; ++k) {
        const prog p = straight_line(rng);
        options opt = lkmm_on(1);
        opt.stop_class = "seven";
        const engine_run one = run_on_engine(p, opt, at_end);
        if (one.res.violations.empty()) continue;
        ++found;
        other_first += run_on_engine(p, lkmm_on(1), at_end).res.violations.front().cls == "three";
        for (unsigned n = 2; n <= 3; ++n) {
            SCOPED_TRACE("program " + std::to_string(k) + " on " + std::to_string(n) +
                         " threads: " + to_text(p));
            opt.threads = n;
            const engine_run par = run_on_engine(p, opt, at_end);
            ASSERT_EQ(par.res.violations.size(), 1u);
            EXPECT_EQ(par.res.violations[0].cls, "seven");
            EXPECT_EQ(par.res.violations[0].replay, one.res.violations[0].replay);
            EXPECT_EQ(par.res.violations[0].at_execution, one.res.violations[0].at_execution);
            EXPECT_EQ(par.res.executions, one.res.executions);
            if (::testing::Test::HasFailure()) return;
        }
    }
    EXPECT_GT(found, 20u);
    EXPECT_GT(other_first, 5u);  // where the other class comes first
}

TEST(EngineParallelLkmm, AnExecutionLimitRunsOnOneThread) {
    std::mt19937 rng(22);
    const prog p = straight_line(rng);
    options opt = lkmm_on(3);
    opt.max_executions = 2;
    EXPECT_EQ(run_on_engine(p, opt).res.threads, 1u);
}

// ---- the fingerprints ----

using detail::eid;
using detail::ek;
using detail::event;
using detail::graph;
using detail::pointer_names;

event init_write(std::uintptr_t loc, value_t v) {
    event w;
    w.kind = ek::write;
    w.init = true;
    w.loc = loc;
    w.val = v;
    return w;
}

// Thread 0 initialises a counter and a pointer (to offset `off` of arena 1); thread 1 reads the
// counter's initial value and stores `v` to it, and reads the pointer. The locations at `counter`
// and `ptr`, arena 1 at `arena1`.
graph two_locations(std::uintptr_t counter, std::uintptr_t ptr, std::uintptr_t arena1,
                    std::uintptr_t off, value_t v) {
    graph g;
    g.th.resize(2);
    g.th[0].push_back(init_write(counter, 0));
    g.th[0].push_back(init_write(ptr, arena1 + off));
    g.co[counter] = {eid{0, 0}, eid{1, 1}};
    g.co[ptr] = {eid{0, 1}};
    event r;
    r.kind = ek::read;
    r.loc = counter;
    r.rf = eid{0, 0};
    g.th[1].push_back(r);
    event w;
    w.kind = ek::write;
    w.loc = counter;
    w.val = v;
    g.th[1].push_back(w);
    event rp;
    rp.kind = ek::read;
    rp.loc = ptr;
    rp.rf = eid{0, 1};
    rp.val = arena1 + off;
    g.th[1].push_back(rp);
    return g;
}

pointer_names names_of(const char* arena0, const char* arena1, std::uintptr_t ptr, bool declared) {
    pointer_names n;
    n.add_arena(arena0);
    n.add_arena(arena1);
    if (declared) n.add_location(ptr);
    return n;
}

TEST(EngineParallelLkmm, AFingerprintNamesNoAddress) {
    // Two explorers: their arenas, and the program's locations, lie elsewhere (the second's
    // locations in the other order by address).
    static char a0[2][64], a1[2][64];
    const auto base = [](const char* p) { return reinterpret_cast<std::uintptr_t>(p); };
    const pointer_names first = names_of(a0[0], a1[0], 0x2000, true);
    const pointer_names second = names_of(a0[1], a1[1], 0x5000, true);
    const graph g1 = two_locations(0x1000, 0x2000, base(a1[0]), 16, 1);
    const graph g2 = two_locations(0x9000, 0x5000, base(a1[1]), 16, 1);
    EXPECT_EQ(detail::graph_fingerprint(g1, first), detail::graph_fingerprint(g2, second));

    // The twins: another value, another offset in the arena, and a pointer not declared so.
    EXPECT_NE(detail::graph_fingerprint(two_locations(0x1000, 0x2000, base(a1[0]), 16, 2), first),
              detail::graph_fingerprint(g2, second));
    EXPECT_NE(detail::graph_fingerprint(two_locations(0x1000, 0x2000, base(a1[0]), 24, 1), first),
              detail::graph_fingerprint(g2, second));
    EXPECT_NE(detail::graph_fingerprint(g1, names_of(a0[0], a1[0], 0x2000, false)),
              detail::graph_fingerprint(g2, names_of(a0[1], a1[1], 0x5000, false)));
}

}  // namespace
}  // namespace kverify::dpor::test
