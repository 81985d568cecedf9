// SPDX-License-Identifier: GPL-2.0-only
// The execution graph's own bookkeeping (model/dpor/graph.cpp): an event inserted in the middle
// of a thread (an RMW's write half, under the LKMM) moves every reference to the events after
// it, dependencies of every kind included; its twin, an event appended at the end, moves none.
#include <gtest/gtest.h>

#include <memory>

#include "model/dpor/graph.hpp"

namespace kverify::dpor::detail {
namespace {

// Thread 1: four reads, the last with dependencies of every kind on the first and the third.
graph four_reads() {
    graph g;
    g.th.resize(2);
    event w;
    w.kind = ek::write;
    w.init = true;
    w.loc = 0x1000;
    g.th[0].push_back(w);
    g.co[0x1000] = {eid{0, 0}};
    for (int k = 0; k < 4; ++k) {
        event r;
        r.kind = ek::read;
        r.loc = 0x1000;
        r.rf = eid{0, 0};
        g.th[1].push_back(r);
    }
    dep_rec d;
    d.addr = {0, 2};
    d.data = {0, 2};
    d.ctrl = {0, 2};
    auto opaque = std::make_shared<opaque_list_node>();
    opaque->all = {0, 2};
    opaque->added = {0, 2};
    d.opaque = opaque;
    g.deps.push_back(std::make_shared<const dep_rec>(d));
    g.th[1][3].deps = 1;
    return g;
}

TEST(GraphInsert, MovesEveryDependencyOfTheEventsAfterIt) {
    graph g = four_reads();
    event x;
    x.kind = ek::fence;
    g.insert_event(1, 2, x);  // before the third read: it and the fourth move by one
    const dep_rec* d = g.deps_of(g.th[1][4]);
    ASSERT_NE(d, nullptr);
    const dep_list moved{0, 3};
    EXPECT_EQ(d->addr, moved);
    EXPECT_EQ(d->data, moved);
    EXPECT_EQ(d->ctrl, moved);
    EXPECT_EQ(d->opaque_list(), moved);
}

TEST(GraphInsert, AtTheEndMovesNothing) {
    graph g = four_reads();
    event x;
    x.kind = ek::fence;
    g.insert_event(1, 4, x);
    const dep_rec* d = g.deps_of(g.th[1][3]);
    ASSERT_NE(d, nullptr);
    const dep_list same{0, 2};
    EXPECT_EQ(d->ctrl, same);
    EXPECT_EQ(d->opaque_list(), same);
}

}  // namespace
}  // namespace kverify::dpor::detail
