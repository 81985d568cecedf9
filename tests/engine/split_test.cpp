// SPDX-License-Identifier: GPL-2.0-only
// One search in parts (options::split_parts), on generated programs under RC11 and SC: the parts
// explore every complete and blocked execution of the whole search exactly once between them
// (compared as multisets of graphs, so a duplicate shows), and the first violation of the whole
// search, its index and the blocked executions before it follow from the parts' chunk counts.
// The twin: the parts without one of them miss executions.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "tests/engine/ir.hpp"

namespace kverify::dpor::test {
namespace {

void add(multiset& into, const std::vector<std::string>& graphs) {
    for (const std::string& g : graphs) ++into[g];
}

options split_options(memory_model m, unsigned part, unsigned parts) {
    options o;
    o.model = m;
    o.trace = false;
    o.split_part = part;
    o.split_parts = parts;
    return o;
}

TEST(EngineSplit, PartsExploreTheWholeSearchOnceBetweenThem) {
    std::mt19937 rng(20261201);
    unsigned checked = 0, big = 0, big_and_spread = 0;
    for (int k = 0; k < 150; ++k) {
        const prog p = random_prog(rng, 3, 4);
        for (const memory_model m : {memory_model::rc11, memory_model::sc}) {
            options whole_opt;
            whole_opt.model = m;
            whole_opt.trace = false;
            const engine_run whole = run_on_engine(p, whole_opt);
            ASSERT_TRUE(whole.res.violations.empty()) << to_text(p);
            for (unsigned n = 2; n <= 4; ++n) {
                SCOPED_TRACE("program " + std::to_string(k) + " under " + to_string(m) + " in " +
                             std::to_string(n) + " parts: " + to_text(p));
                multiset graphs, blocked, all_but_last;
                std::uint64_t executions = 0, blocked_n = 0;
                bool every_part_works = true;
                for (unsigned i = 1; i <= n; ++i) {
                    const engine_run part = run_on_engine(p, split_options(m, i, n));
                    ASSERT_TRUE(part.res.complete);
                    EXPECT_EQ(part.res.graphs.size(), part.res.executions);
                    executions += part.res.executions;
                    blocked_n += part.res.blocked;
                    add(graphs, part.res.graphs);
                    add(blocked, part.res.blocked_graphs);
                    if (i < n) add(all_but_last, part.res.graphs);
                    if (i < n) add(all_but_last, part.res.blocked_graphs);
                    std::uint64_t in_chunks = 0;
                    for (const auto& c : part.res.split_chunks) {
                        EXPECT_EQ(c.index % n, i - 1) << "a part counted another's chunk";
                        in_chunks += c.executions + c.blocked;
                    }
                    EXPECT_EQ(in_chunks, part.res.executions + part.res.blocked);
                    every_part_works &= part.res.executions + part.res.blocked > 0;
                }
                EXPECT_EQ(executions, whole.res.executions);
                EXPECT_EQ(blocked_n, whole.res.blocked);
                EXPECT_EQ(graphs, count_of(whole.res.graphs));
                EXPECT_EQ(blocked, count_of(whole.res.blocked_graphs));
                // The twin: without the last part, what it explored is missing.
                multiset whole_all = count_of(whole.res.graphs);
                add(whole_all, whole.res.blocked_graphs);
                // (the graphs: a run cut at a stale wait counts as blocked and leaves none)
                const std::uint64_t last =
                    whole.res.graphs.size() + whole.res.blocked_graphs.size();
                std::uint64_t kept = 0;
                for (const auto& kv : all_but_last) kept += kv.second;
                if (kept < last) {
                    EXPECT_NE(all_but_last, whole_all);
                }
                if (n == 4 && last >= 16) {
                    ++big;
                    big_and_spread += every_part_works;
                }
                if (::testing::Test::HasFailure()) return;
            }
        }
        ++checked;
    }
    EXPECT_EQ(checked, 150u);
    // The parts share the work (one part exploring everything would pass the checks above): on
    // searches of 16 executions or more, in most of them every one of 4 parts has some.
    EXPECT_GT(big, 20u);
    EXPECT_GT(big_and_spread * 4, big * 3) << big_and_spread << " of " << big;
}

// The first violation of the whole search, found from the parts as merge does: the part with the
// lowest violation chunk reports it; its index is every execution counted in the chunks before
// it (of all parts), those of its own chunk before it, and itself.
TEST(EngineSplit, TheWholeSearchsFirstViolationFollowsFromTheParts) {
    std::mt19937 rng(7);
    unsigned violating = 0;
    for (int k = 0; k < 80; ++k) {
        const prog p = random_prog(rng, 3, 4);
        // A violation on some outcomes: those whose results hash to 0 modulo 3.
        const auto at_end = [](const outcome& o) {
            const std::uint64_t h = outcome_hash(o);
            if (h % 3 == 0) rt::fail("outcome", "a chosen outcome", src_loc("split_test", 0, ""));
        };
        for (const memory_model m : {memory_model::rc11, memory_model::sc}) {
            options whole_opt;
            whole_opt.model = m;
            whole_opt.trace = false;
            const engine_run whole = run_on_engine(p, whole_opt, at_end);
            if (whole.res.violations.empty()) continue;
            ++violating;
            const violation& wv = whole.res.violations.front();
            for (unsigned n = 2; n <= 4; ++n) {
                SCOPED_TRACE("program " + std::to_string(k) + " under " + to_string(m) + " in " +
                             std::to_string(n) + " parts: " + to_text(p));
                std::map<std::uint64_t, std::pair<std::uint64_t, std::uint64_t>> chunks;
                const violation* first = nullptr;
                std::vector<engine_run> parts;
                for (unsigned i = 1; i <= n; ++i)
                    parts.push_back(run_on_engine(p, split_options(m, i, n), at_end));
                for (const engine_run& part : parts) {
                    for (const auto& c : part.res.split_chunks)
                        chunks[c.index] = {c.executions, c.blocked};
                    if (!part.res.violations.empty() &&
                        (!first || part.res.violations.front().split_chunk < first->split_chunk))
                        first = &part.res.violations.front();
                }
                ASSERT_NE(first, nullptr) << "no part found the violation";
                std::uint64_t index = 1, blocked = 0;
                for (const auto& [c, counts] : chunks)
                    if (c <= first->split_chunk) {
                        index += counts.first + counts.second;
                        blocked += counts.second;
                    }
                EXPECT_EQ(index, wv.at_execution);
                EXPECT_EQ(blocked, whole.res.blocked);
                EXPECT_EQ(first->replay, wv.replay);
                EXPECT_EQ(first->cls, wv.cls);
                if (::testing::Test::HasFailure()) return;
            }
        }
    }
    EXPECT_GT(violating, 40u);
}

TEST(EngineSplit, BadPartsAreRefused) {
    prog p;
    p.init = {0};
    p.threads = {{instr{}}, {instr{}}};
    EXPECT_THROW(run_on_engine(p, split_options(memory_model::rc11, 0, 4)), std::invalid_argument);
    EXPECT_THROW(run_on_engine(p, split_options(memory_model::rc11, 5, 4)), std::invalid_argument);
    EXPECT_THROW(run_on_engine(p, split_options(memory_model::lkmm, 3, 2)), std::invalid_argument);
    EXPECT_NO_THROW(run_on_engine(p, split_options(memory_model::lkmm, 1, 2)));
    EXPECT_NO_THROW(run_on_engine(p, split_options(memory_model::sc, 2, 2)));
}

}  // namespace
}  // namespace kverify::dpor::test
