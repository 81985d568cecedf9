// SPDX-License-Identifier: GPL-2.0-only
// The LKMM check's shortcuts, each held to what it stands for on random graphs with a harness
// before the spawn and after the join.
// The check decides everything after coherence on the tasks' events alone (model/dpor/
// lkmm_frame.cpp, tasks_only): held to the check on every event, the harness's included,
// consistent and not (1675 and 28325 of the 30000). Its twin: the same graphs with the harness
// simply dropped (a task's read of a harness write then reads nothing, and loses its from-reads
// edges) must come out otherwise on some of them (5945), so the graphs reach what the reduction has
// to keep; the reduction without those from-reads edges (lkmm.cpp, reads_harness) fails at graph
// 167.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "model/dpor/graph.hpp"
#include "model/dpor/lkmm.hpp"
#include "model/dpor/lkmm_frame.hpp"

namespace kverify::dpor::detail {
namespace {

constexpr std::uintptr_t locations[] = {0x1000, 0x2000, 0x3000};

class random_graphs {
public:
    explicit random_graphs(std::uint64_t seed) : rng_(seed) {}

    graph next() {
        graph g;
        const unsigned nloc = 2 + pick(2), tasks = 2 + pick(2);
        g.th.resize(1 + tasks);
        std::vector<event>& h = g.th[0];
        for (unsigned l = 0; l < nloc; ++l) {
            event e = access(ek::write, locations[l]);
            e.init = true;
            e.val = 0;
            h.push_back(e);
        }
        if (coin(60)) h.push_back(access(ek::write, any_loc(nloc)));  // the harness's setup
        if (coin(30)) h.push_back(access(ek::read, any_loc(nloc)));
        g.spawn_at = std::uint32_t(h.size());
        for (unsigned t = 1; t <= tasks; ++t) {
            const unsigned len = 2 + pick(4);
            while (g.th[t].size() < len) add_task_event(g, t, nloc);
        }
        for (unsigned k = pick(3); k > 0; --k)  // the harness after the join
            h.push_back(access(ek::read, any_loc(nloc)));
        // Values: each write its own, reads-from and coherence at random.
        value_t v = 1;
        for (auto& th : g.th)
            for (event& e : th)
                if (e.is_write() && !e.init) e.val = v++;
        for (unsigned l = 0; l < nloc; ++l) {
            std::vector<eid> writes;
            for (unsigned t = 0; t < g.th.size(); ++t)
                for (std::uint32_t i = 0; i < g.th[t].size(); ++i)
                    if (g.th[t][i].is_write() && g.th[t][i].loc == locations[l] && !g.th[t][i].init)
                        writes.push_back(eid{std::uint16_t(t), i});
            std::shuffle(writes.begin(), writes.end(), rng_);
            writes.insert(writes.begin(), eid{0, l});  // the initial write first
            g.co[locations[l]] = writes;
        }
        for (auto& th : g.th)
            for (event& e : th) {
                if (!e.is_read()) continue;
                const std::vector<eid>& ws = g.co.at(e.loc);
                e.rf = ws[pick(unsigned(ws.size()))];
                e.val = g.at(e.rf).val;
            }
        return g;
    }

    unsigned pick(unsigned n) { return unsigned(rng_() % n); }
    bool coin(unsigned percent) { return pick(100) < percent; }

private:
    std::uintptr_t any_loc(unsigned nloc) { return locations[pick(nloc)]; }

    event access(ek kind, std::uintptr_t loc) {
        event e;
        e.kind = kind;
        e.loc = loc;
        e.order = mo::relaxed;
        return e;
    }

    // A read, a write, a fence or an RMW (both halves), with its annotation and, now and then,
    // dependencies on the thread's earlier reads.
    void add_task_event(graph& g, unsigned t, unsigned nloc) {
        std::vector<event>& th = g.th[t];
        const unsigned what = pick(20);
        event e;
        if (what < 3) {
            e.kind = ek::fence;
            const lk fences[] = {lk::f_mb, lk::f_rmb, lk::f_wmb};
            e.prim = fences[pick(3)];
            th.push_back(e);
            return;
        }
        const bool read = what < 10, rmw = what >= 17;
        e = access(read || rmw ? ek::read : ek::write, any_loc(nloc));
        switch (pick(6)) {
            case 0:
                e.order = mo::plain;
                break;
            case 1:
                e.prim = read || rmw ? lk::acquire : lk::release;
                break;
            case 2:
                e.order = read || rmw ? mo::acquire : mo::release;
                break;
            default:
                e.prim = lk::once;
                break;
        }
        if (rmw) {
            e.order = mo::relaxed;
            e.prim = coin(50) ? lk::mb : lk::once;
            e.rmw = rmw_op::add;
            e.arg = 1;
        }
        add_deps(g, t, e);
        th.push_back(e);
        if (rmw) {
            event w = e;
            w.kind = ek::write;
            w.deps = 0;
            th.push_back(w);
        }
    }

    void add_deps(graph& g, unsigned t, event& e) {
        std::vector<std::uint32_t> reads;
        for (std::uint32_t i = 0; i < g.th[t].size(); ++i)
            if (g.th[t][i].is_read()) reads.push_back(i);
        if (reads.empty() || !coin(40)) return;
        dep_rec d;
        for (std::vector<std::uint32_t>* list : {&d.addr, &d.data, &d.ctrl})
            if (coin(40)) list->push_back(reads[pick(unsigned(reads.size()))]);
        if (d.addr.empty() && d.data.empty() && d.ctrl.empty()) return;
        g.deps.push_back(std::make_shared<const dep_rec>(d));
        e.deps = std::uint32_t(g.deps.size());
    }

    std::mt19937_64 rng_;
};

// g without its harness: its events gone, a read of one of them reading nothing.
graph without_harness(const graph& g) {
    graph n = g;
    n.th[0].clear();
    n.spawn_at = UINT32_MAX;
    for (auto& th : n.th)
        for (event& e : th)
            if (e.is_read() && e.rf.t == 0) e.rf = eid{};
    for (auto& kv : n.co)
        kv.second.erase(
            std::remove_if(kv.second.begin(), kv.second.end(), [](eid w) { return w.t == 0; }),
            kv.second.end());
    return n;
}

TEST(LkmmTasksOnly, DecidesAsTheCheckOnEveryEvent) {
    random_graphs gen(20261205);
    unsigned consistent = 0, inconsistent = 0, naive_differs = 0;
    for (unsigned k = 0; k < 30000; ++k) {
        const graph g = gen.next();
        const bool whole = lkmm_consistent_whole(g);
        ASSERT_EQ(lkmm_consistent(g), whole) << "graph " << k << ":\n" << g.canonical();
        (whole ? consistent : inconsistent) += 1;
        if (lkmm_consistent_whole(without_harness(g)) != whole) ++naive_differs;
    }
    // Both answers, many times; and graphs where the harness decides.
    EXPECT_GT(consistent, 1000u);
    EXPECT_GT(inconsistent, 1000u);
    EXPECT_GT(naive_differs, 100u);
}

// A backward revisit's graph is not checked again when its key is the candidate's
// (lkmm_consistent_known): equal graphs must have equal keys whatever the order of the graph's
// coherence map, and a change to anything the axioms read must change the key. (key_of hashing
// the coherence orders in the map's order fails at graph 0, and without the control
// dependencies at graph 1.)
lkmm_key key(const graph& g) {
    lkmm_impl::frame f;
    lkmm_impl::number_events(g, nullptr, {}, {}, f);
    return lkmm_impl::key_of(g, f);
}

TEST(LkmmKey, EqualGraphsHaveEqualKeysAndEachChangeAnother) {
    random_graphs gen(5122026);
    unsigned changed[4] = {0, 0, 0, 0};
    for (unsigned k = 0; k < 3000; ++k) {
        const graph g = gen.next();
        const lkmm_key base = key(g);
        std::vector<std::uintptr_t> locs;  // the coherence map built anew, in both orders
        for (const auto& kv : g.co) locs.push_back(kv.first);
        for (const bool reversed : {false, true}) {
            graph same = g;
            same.co.clear();
            same.co.reserve(97);
            for (std::size_t j = 0; j < locs.size(); ++j) {
                const std::uintptr_t l = locs[reversed ? locs.size() - 1 - j : j];
                same.co[l] = g.co.at(l);
            }
            ASSERT_TRUE(key(same) == base) << "graph " << k;
        }
        for (unsigned t = 1; t < g.th.size(); ++t)
            for (std::uint32_t i = 0; i < g.th[t].size(); ++i) {
                const event& e = g.th[t][i];
                const eid x{std::uint16_t(t), i};
                if (e.is_read() && g.co.at(e.loc).size() > 1) {  // another write read
                    graph m = g;
                    const auto& ws = g.co.at(e.loc);
                    m.at(x).rf = ws[(graph::index_in(ws, e.rf) + 1) % ws.size()];
                    EXPECT_FALSE(key(m) == base) << "graph " << k << ", rf of " << t << "." << i;
                    ++changed[0];
                }
                if (e.kind == ek::fence || e.prim == lk::once) {  // another primitive
                    graph m = g;
                    m.at(x).prim = e.kind == ek::fence ? (e.prim == lk::f_mb ? lk::f_wmb : lk::f_mb)
                                                       : (e.is_read() ? lk::acquire : lk::release);
                    EXPECT_FALSE(key(m) == base) << "graph " << k << ", kind of " << t << "." << i;
                    ++changed[1];
                }
                if (e.deps && g.th[t][0].is_read()) {  // another control dependency
                    graph m = g;
                    dep_rec d = *g.deps_of(e);
                    if (!d.ctrl.empty() && d.ctrl[0] == 0)
                        d.ctrl.erase(d.ctrl.begin());
                    else
                        d.ctrl.insert(d.ctrl.begin(), 0);
                    m.deps.push_back(std::make_shared<const dep_rec>(d));
                    m.at(x).deps = std::uint32_t(m.deps.size());
                    EXPECT_FALSE(key(m) == base) << "graph " << k << ", deps of " << t << "." << i;
                    ++changed[2];
                }
            }
        for (const auto& kv : g.co)  // two writes in the other order
            if (kv.second.size() > 2) {
                graph m = g;
                std::swap(m.co[kv.first][1], m.co[kv.first][2]);
                EXPECT_FALSE(key(m) == base) << "graph " << k << ", coherence";
                ++changed[3];
            }
    }
    for (const unsigned c : changed) EXPECT_GT(c, 500u);
}

}  // namespace
}  // namespace kverify::dpor::detail
