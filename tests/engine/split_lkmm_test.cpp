// SPDX-License-Identifier: GPL-2.0-only
// One search in parts under the LKMM (model/dpor/split.cpp): the parts overlap, and each lists the
// executions it counted by fingerprint. On generated programs in 2 to 4 parts, the union of the
// lists (model/check/split.hpp, what merge counts) is the whole search's counts, and the union of
// the parts' graphs is the set of the whole search's; a part counts each of its graphs once. The
// parts do overlap on some programs (so summing their counts, as under RC11, would be wrong),
// and without one part the union misses executions. A violation: the owner of the lowest chunk
// any part reports reports the whole search's first one, and the union of what was counted
// before it gives its index and the blocked executions before it.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "model/check/split.hpp"
#include "tests/engine/ir.hpp"

namespace kverify::dpor::test {
namespace {

options lkmm_part(unsigned part, unsigned parts) {
    options o;
    o.model = memory_model::lkmm;
    o.trace = false;
    o.split_part = part;
    o.split_parts = parts;
    return o;
}

model::split_info listed(const result& r) {
    model::split_info s;
    for (const result::counted_end& e : r.counted_ends)
        s.ends.push_back({e.a, e.b, e.chunk, static_cast<model::counted_end::kind_t>(e.kind)});
    return s;
}

std::set<std::string> as_set(const std::vector<std::string>& graphs) {
    return {graphs.begin(), graphs.end()};
}

TEST(EngineSplitLkmm, TheUnionOfThePartsIsTheWholeSearch) {
    std::mt19937 rng(20261207);
    unsigned checked = 0, overlapping = 0, big = 0, missed = 0, splits = 0;
    for (int k = 0; k < 60; ++k) {
        const prog p = straight_line(rng);
        options whole_opt = lkmm_part(0, 0);
        const engine_run whole = run_on_engine(p, whole_opt);
        ASSERT_TRUE(whole.res.complete) << whole.res.incomplete_reason << to_text(p);
        ASSERT_TRUE(whole.res.violations.empty()) << to_text(p);
        EXPECT_TRUE(whole.res.counted_ends.empty()) << "a whole search lists nothing";
        big += whole.res.executions >= 50;
        bool overlap = false;
        for (unsigned n = 2; n <= 4; ++n) {
            SCOPED_TRACE("program " + std::to_string(k) + " in " + std::to_string(n) +
                         " parts: " + to_text(p));
            std::vector<model::split_info> lists;
            std::set<std::string> graphs, blocked;
            std::uint64_t summed = 0;
            for (unsigned i = 1; i <= n; ++i) {
                const engine_run part = run_on_engine(p, lkmm_part(i, n));
                ASSERT_TRUE(part.res.complete) << part.res.incomplete_reason;
                ASSERT_TRUE(part.res.violations.empty());
                // Each of a part's graphs once, each listed once, in its part's chunks.
                EXPECT_EQ(as_set(part.res.graphs).size(), part.res.graphs.size());
                EXPECT_EQ(part.res.counted_ends.size(), part.res.executions + part.res.blocked);
                std::uint64_t in_chunks = 0;
                for (const auto& c : part.res.split_chunks) {
                    EXPECT_EQ(c.index % n, i - 1) << "a part counted another's chunk";
                    in_chunks += c.executions + c.blocked;
                }
                EXPECT_EQ(in_chunks, part.res.executions + part.res.blocked);
                summed += part.res.executions;
                for (const std::string& g : part.res.graphs) graphs.insert(g);
                for (const std::string& g : part.res.blocked_graphs) blocked.insert(g);
                lists.push_back(listed(part.res));
            }
            std::vector<const model::split_info*> by_part;
            for (const model::split_info& s : lists) by_part.push_back(&s);
            const model::union_counts u = model::join_counted(by_part);
            EXPECT_EQ(u.executions, whole.res.executions);
            EXPECT_EQ(u.blocked, whole.res.blocked);
            EXPECT_EQ(graphs, as_set(whole.res.graphs));
            EXPECT_EQ(blocked, as_set(whole.res.blocked_graphs));
            overlap = overlap || summed > whole.res.executions;
            // The twin: without the last part, the union misses what only it counted.
            by_part.pop_back();
            const model::union_counts less = model::join_counted(by_part);
            missed += less.executions + less.blocked < u.executions + u.blocked;
            ++splits;
            if (::testing::Test::HasFailure()) return;
        }
        overlapping += overlap;
        ++checked;
    }
    EXPECT_EQ(checked, 60u);
    EXPECT_GE(big, 6u);          // searches with enough subtrees to split
    EXPECT_GE(overlapping, 5u);  // parts that overlap: a sum of their counts would be wrong
    // The last part counts some executions no other part does, in a third of the splits or more
    // (the small searches' last parts have none of their own).
    EXPECT_GT(missed * 3, splits) << missed << " of " << splits;
}

TEST(EngineSplitLkmm, TheWholeSearchsFirstViolationFollowsFromTheParts) {
    std::mt19937 rng(31);
    unsigned violating = 0, late = 0, cut = 0;
    for (int k = 0; k < 150; ++k) {
        const prog p = straight_line(rng);
        const auto at_end = fail_on_some(13);
        const engine_run whole = run_on_engine(p, lkmm_part(0, 0), at_end);
        if (whole.res.violations.empty()) continue;
        ++violating;
        const violation& wv = whole.res.violations.front();
        late += wv.at_execution > 8;
        for (unsigned n = 2; n <= 4; ++n) {
            SCOPED_TRACE("program " + std::to_string(k) + " in " + std::to_string(n) +
                         " parts: " + to_text(p));
            std::vector<engine_run> parts;
            for (unsigned i = 1; i <= n; ++i)
                parts.push_back(run_on_engine(p, lkmm_part(i, n), at_end));
            // As merge picks it: the lowest chunk, its owner's.
            const violation* first = nullptr;
            unsigned first_part = 0;
            for (unsigned i = 0; i < n; ++i) {
                const result& r = parts[i].res;
                if (r.violations.empty()) continue;
                const violation& v = r.violations.front();
                const auto rank = [n](const violation& x, unsigned part) {
                    return std::make_pair(x.split_chunk,
                                          x.split_chunk % n != part || x.counted_elsewhere);
                };
                if (!first || rank(v, i) < rank(*first, first_part)) {
                    first = &v;
                    first_part = i;
                }
            }
            ASSERT_NE(first, nullptr) << "no part found the violation";
            ASSERT_FALSE(first->counted_elsewhere) << "the chunk's owner did not report it";
            EXPECT_EQ(first->split_chunk % n, first_part);
            std::vector<model::split_info> lists;
            for (const engine_run& r : parts) lists.push_back(listed(r.res));
            std::vector<const model::split_info*> by_part;
            for (const model::split_info& s : lists) by_part.push_back(&s);
            const model::union_counts u = model::join_counted(by_part, first->split_chunk);
            EXPECT_EQ(u.executions + u.blocked + 1, wv.at_execution);
            EXPECT_EQ(u.blocked, whole.res.blocked);
            EXPECT_EQ(first->cls, wv.cls);
            EXPECT_EQ(first->replay, wv.replay);
            cut += first->split_chunk > 0;
            if (::testing::Test::HasFailure()) return;
        }
    }
    EXPECT_GT(violating, 30u);
    EXPECT_GT(late, 5u);  // found past the first few executions too
    EXPECT_GT(cut, 5u);   // and past the first subtree
}

// Two parts that say one execution ended two ways are refused, not counted.
TEST(EngineSplitLkmm, PartsThatDisagreeAreRefused) {
    model::split_info a, b;
    a.ends.push_back({1, 2, 0, model::counted_end::complete});
    b.ends.push_back({1, 2, 1, model::counted_end::blocked});
    EXPECT_THROW(model::join_counted({&a, &b}), std::invalid_argument);
    b.ends.back().kind = model::counted_end::complete;
    const model::union_counts u = model::join_counted({&a, &b});
    EXPECT_EQ(u.executions, 1u);
    EXPECT_EQ(u.blocked, 0u);
    // Up to a chunk: those of the chunks after it do not count.
    a.ends.push_back({3, 4, 2, model::counted_end::stale});
    EXPECT_EQ(model::join_counted({&a, &b}, 1).blocked, 0u);
    const model::union_counts all = model::join_counted({&a, &b});
    EXPECT_EQ(all.blocked, 1u);
    EXPECT_EQ(all.stale, 1u);
}

}  // namespace
}  // namespace kverify::dpor::test
