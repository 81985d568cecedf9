// SPDX-License-Identifier: GPL-2.0-only
// RC11 (Lahav, Vafeiadis, Kang, Hur, Dreyer, PLDI 2017) for the dpor engine: reads and coherence
// placement bounded by the happens-before prefix (coherence, with hb kept as vector clocks by the
// run), and the SC axiom (psc acyclic) checked from its definition when seq_cst events run in two
// threads or more. No load buffering: the explorer only builds porf-acyclic graphs.
#include <functional>

#include "model/dpor/consistency.hpp"

namespace kverify::dpor::detail {
namespace {

// The coherence frontier of a new access on `loc`: the latest co position among the writes in
// its happens-before prefix `pre` or read by a read there. Restricted to `keep` when given.
std::size_t hb_frontier(const execution& x, std::uintptr_t loc, const hclock& pre,
                        const std::vector<std::uint32_t>* keep) {
    const auto& list = x.g.co.at(loc);
    auto in = [&](eid e) { return !keep || e.i < (*keep)[e.t]; };
    const loc_rt& l = x.locs.at(loc);
    if (!l.foreign_rf) {
        // From the newest write down: the first one in the prefix, then, above it, the first
        // one a read in the prefix reads (each write knows its readers: ev_rt).
        std::size_t lo = list.size();
        while (lo-- > 0)
            if (in(list[lo]) && pre.covers(list[lo])) break;
        if (lo == std::size_t(-1)) lo = 0;
        for (std::size_t k = list.size(); k-- > lo + 1;)
            for (eid q = x.view(list[k]).first_reader; q.valid(); q = x.view(q).next_reader)
                if (in(q) && pre.covers(q) && x.g.at(q).loc == loc) return k;
        return lo;
    }
    std::size_t lo = 0;
    for (std::size_t k = 0; k < list.size(); ++k)
        if (in(list[k]) && pre.covers(list[k])) lo = std::max(lo, k);
    // A write's place is looked for in `list` itself (graph::co_index would look its location
    // up again), once per run of readers of the same write.
    eid last;
    std::size_t last_k = 0;
    for (eid q : l.readers) {
        if (!in(q) || !pre.covers(q)) continue;
        const eid w = x.g.at(q).rf;
        if (w != last) {
            last = w;
            last_k = x.g.at(w).loc != loc ? x.g.co_index(w) : graph::index_in(list, w);
        }
        lo = std::max(lo, last_k);
    }
    return lo;
}

// A node of psc: an event run so far, or a seq_cst fence of a fully ordered cas (below).
struct psc_node {
    eid e;    // the event, or the event the virtual fence is attached to
    int pos;  // program order within the thread
    std::int64_t cover;
    hclock vc;  // what happens before it (itself included for events)
    bool fence, sc;
};

// The check's lists, kept from call to call (it runs after every run of the kernel rows with
// seq_cst events in two tasks: allocating them each time was a tenth of such a search).
struct psc_scratch {
    std::vector<psc_node> nodes;
    std::vector<std::size_t> rank, sck;
    std::vector<long> first_other, last_other;
    std::vector<std::vector<std::size_t>> from, to;
    std::vector<char> edge;
    std::vector<int> colour;
};

// RC11's SC axiom on the run so far: psc (Lahav et al. 2017) is acyclic over the seq_cst events,
//   psc = ([Esc] | [Fsc]; hb?); scb; ([Esc] | hb?; [Fsc])  |  [Fsc]; (hb | hb; eco; hb); [Fsc]
//   scb = po | po|!=loc; hb; po|!=loc | hb|loc | co | fr
// computed from its definition over the events run so far. SC events confined to one thread
// cannot form a cycle (a cycle needs an edge back against program order), so the usual case of
// the kernel rows (fully ordered cmpxchg in the harness only) costs nothing; rows whose tasks
// read the seq_cst CPU masks (migration, hotplug) pay it after every run, hence the lists kept
// and no scan quadratic in the nodes.
bool psc_acyclic(const execution& x) {
    // First whether seq_cst events ran in two threads at all (most runs of the kernel rows: no),
    // before any node is built.
    unsigned sc_threads = 0;
    for (unsigned t = 0; t < x.nthreads; ++t)
        for (std::uint32_t i = 0; i < x.g.th[t].size(); ++i) {
            const eid id{std::uint16_t(t), i};
            if (!x.done(id)) break;
            const event& e = x.g.at(id);
            if (e.kind != ek::choice && e.kind != ek::block && (e.is_sc() || e.fenced())) {
                ++sc_threads;
                break;
            }
        }
    if (sc_threads < 2) return true;
    // The nodes: every event run so far (but choices and blocks), and the two seq_cst fences of
    // each successful fully ordered cas (kernel try_cmpxchg: fence; cas; fence), which exist only
    // when it succeeds and are not graph events. A node has a thread, a place in program order
    // (pos: 2i for event i, 2i - 1 for a fence right before it, 2i + 1 for one right after it),
    // the happens-before position others must cover to have it before them (cover), and its own
    // happens-before clock.
    using node = psc_node;
    thread_local psc_scratch scratch;
    std::vector<node>& nodes = scratch.nodes;
    nodes.clear();
    for (unsigned t = 0; t < x.nthreads; ++t) {
        for (std::uint32_t i = 0; i < x.g.th[t].size(); ++i) {
            const eid id{std::uint16_t(t), i};
            if (!x.done(id)) break;
            const event& e = x.g.at(id);
            if (e.kind == ek::choice || e.kind == ek::block) continue;
            if (e.fenced() && e.is_read()) {  // the fence before the read half
                hclock v = x.hb_before(id);
                v.join(x.acquired_before(id));
                nodes.push_back(node{id, 2 * int(i) - 1, 2 * std::int64_t(i) + 1, v, true, true});
            }
            nodes.push_back(node{id, 2 * int(i), 2 * std::int64_t(i) + 2, x.view(id).hb,
                                 e.kind == ek::fence, e.is_sc()});
            if (e.fenced() && e.is_write()) {  // the fence after the write half
                hclock v = x.view(id).hb;
                v.join(x.acquired_before(id));
                nodes.push_back(node{id, 2 * int(i) + 1, 2 * std::int64_t(i) + 3, v, true, true});
            }
        }
    }
    const std::size_t n = nodes.size();
    auto is_access = [&](std::size_t k) {
        return !nodes[k].fence && x.g.at(nodes[k].e).is_access();
    };
    auto is_fence = [&](std::size_t k) { return nodes[k].fence; };
    // rank: a write at co position p is 2p, a read of it 2p + 1; for accesses to one location,
    // eco(x, y) <=> rank(x) < rank(y).
    std::vector<std::size_t>& rank = scratch.rank;
    rank.assign(n, 0);
    for (std::size_t k = 0; k < n; ++k) {
        if (!is_access(k)) continue;
        const event& e = x.g.at(nodes[k].e);
        rank[k] = e.is_write() ? 2 * x.g.co_index(nodes[k].e) : 2 * x.g.co_index(e.rf) + 1;
    }
    auto same_loc = [&](std::size_t a, std::size_t b) {
        return is_access(a) && is_access(b) && x.g.at(nodes[a].e).loc == x.g.at(nodes[b].e).loc;
    };
    auto hbk = [&](std::size_t a, std::size_t b) {
        return a != b && std::int64_t(nodes[b].vc.c[nodes[a].e.t]) >= nodes[a].cover;
    };
    auto pok = [&](std::size_t a, std::size_t b) {
        return nodes[a].e.t == nodes[b].e.t && nodes[a].pos < nodes[b].pos;
    };
    // first po-successor at another location, last po-predecessor at another location: the
    // nodes of a thread are consecutive, in program order, so the nearest one is found by
    // walking from the node (a few steps: the next node at another location is usually next).
    std::vector<long>& first_other = scratch.first_other;
    std::vector<long>& last_other = scratch.last_other;
    first_other.assign(n, -1);
    last_other.assign(n, -1);
    for (std::size_t a = 0; a < n; ++a) {
        for (std::size_t c = a + 1; c < n && nodes[c].e.t == nodes[a].e.t; ++c)
            if (!same_loc(a, c)) {
                first_other[a] = long(c);
                break;
            }
        for (std::size_t c = a; c-- > 0 && nodes[c].e.t == nodes[a].e.t;)
            if (!same_loc(c, a)) {
                last_other[a] = long(c);
                break;
            }
    }
    auto scb = [&](std::size_t a, std::size_t b) {
        if (a == b) return false;
        if (pok(a, b)) return true;
        if (same_loc(a, b)) {
            if (hbk(a, b)) return true;
            if (x.g.at(nodes[b].e).is_write() && rank[a] < rank[b]) return true;  // co | fr
            return false;
        }
        const long c = first_other[a], d = last_other[b];
        return c >= 0 && d >= 0 && (c == d || hbk(std::size_t(c), std::size_t(d)));
    };
    std::vector<std::size_t>& sck = scratch.sck;
    sck.clear();
    for (std::size_t k = 0; k < n; ++k)
        if (nodes[k].sc) sck.push_back(k);
    const std::size_t m = sck.size();
    // psc_base's ends: a node itself, and for a fence the nodes happens-before after it (from)
    // or before it (to).
    std::vector<std::vector<std::size_t>>& from = scratch.from;
    std::vector<std::vector<std::size_t>>& to = scratch.to;
    if (from.size() < m) {
        from.resize(m);
        to.resize(m);
    }
    for (std::size_t i = 0; i < m; ++i) {
        const std::size_t a = sck[i];
        from[i].clear();
        to[i].clear();
        from[i].push_back(a);
        to[i].push_back(a);
        if (!is_fence(a)) continue;
        for (std::size_t k = 0; k < n; ++k) {
            if (hbk(a, k)) from[i].push_back(k);
            if (hbk(k, a)) to[i].push_back(k);
        }
    }
    std::vector<char>& edge = scratch.edge;
    edge.assign(m * m, 0);
    for (std::size_t i = 0; i < m; ++i)
        for (std::size_t j = 0; j < m; ++j) {
            if (i == j) continue;
            const std::size_t a = sck[i], b = sck[j];
            bool e = false;
            // psc_base: e1 in {a} (and hb-successors of a fence a), e2 in {b} (and hb-predecessors
            // of a fence b), scb(e1, e2).
            for (std::size_t e1 : from[i]) {
                for (std::size_t e2 : to[j])
                    if (scb(e1, e2)) {
                        e = true;
                        break;
                    }
                if (e) break;
            }
            // psc_F: fences, hb | hb; eco; hb
            if (!e && is_fence(a) && is_fence(b)) {
                e = hbk(a, b);
                for (std::size_t p = 0; p < n && !e; ++p) {
                    if (!is_access(p) || !hbk(a, p)) continue;
                    for (std::size_t q = 0; q < n && !e; ++q)
                        if (same_loc(p, q) && rank[p] < rank[q] && hbk(q, b)) e = true;
                }
            }
            edge[i * m + j] = e;
        }
    std::vector<int>& colour = scratch.colour;
    colour.assign(m, 0);
    std::function<bool(std::size_t)> dfs = [&](std::size_t v) {
        colour[v] = 1;
        for (std::size_t u = 0; u < m; ++u) {
            if (!edge[v * m + u]) continue;
            if (colour[u] == 1) return false;
            if (colour[u] == 0 && !dfs(u)) return false;
        }
        colour[v] = 2;
        return true;
    };
    for (std::size_t v = 0; v < m; ++v)
        if (colour[v] == 0 && !dfs(v)) return false;
    return true;
}

class rc11 final : public consistency {
public:
    std::size_t frontier(const execution& x, eid, std::uintptr_t loc,
                         const hclock& pre) const override {
        return hb_frontier(x, loc, pre, nullptr);
    }
    std::size_t fenced_frontier(const execution& x, std::uintptr_t loc, const hclock& fenced,
                                std::size_t) const override {
        return hb_frontier(x, loc, fenced, nullptr);
    }
    bool revisit_consistent(const execution& x, eid r, eid w,
                            const std::vector<std::uint32_t>& keep) const override {
        const event& re = x.g.at(r);
        const event& we = x.g.at(w);
        hclock pre = x.hb_before(r);
        event probe = re;
        probe.val = we.val;
        if (probe.fenced()) pre.join(x.acquired_before(r));  // its leading seq_cst fence
        return x.g.co_index(w) >= hb_frontier(x, we.loc, pre, &keep);
    }
    bool graph_consistent(const graph&) const override { return true; }
    bool run_consistent(const execution& x, bool) const override { return psc_acyclic(x); }
};

}  // namespace

std::unique_ptr<consistency> make_rc11() { return std::make_unique<rc11>(); }

std::unique_ptr<consistency> make_consistency(memory_model m) {
    switch (m) {
        case memory_model::sc:
            return make_sc();
        case memory_model::lkmm:
            return make_lkmm();
        case memory_model::rc11:
            break;
    }
    return make_rc11();
}

}  // namespace kverify::dpor::detail
