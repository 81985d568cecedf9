// SPDX-License-Identifier: GPL-2.0-only
// Sequential consistency for the dpor engine: po | rf | co | fr (with spawn and join) acyclic. A
// new access may read or follow only writes no later one in its SC-prefix hides (by reachability,
// kept per event as a clock for the rest of the run); a revisited or alternative graph is checked
// whole.
#include "model/dpor/consistency.hpp"

namespace kverify::dpor::detail {
namespace {

// Predecessors of position (t, i) by program order, spawn and join, as the graph stands.
template <class F>
void po_preds(const graph& gr, unsigned nthreads, unsigned t, std::uint32_t i, F push) {
    if (i > 0)
        push(eid{std::uint16_t(t), i - 1});
    else if (t != 0 && gr.spawn_at != UINT32_MAX && gr.spawn_at > 0)
        push(eid{0, gr.spawn_at - 1});
    if (t == 0 && gr.spawn_at != UINT32_MAX && i == gr.spawn_at)
        for (unsigned u = 1; u < nthreads; ++u)
            if (!gr.th[u].empty()) push(eid{std::uint16_t(u), std::uint32_t(gr.th[u].size() - 1)});
}

// The direct predecessors of event y through po | rf | co | fr | spawn | join (fr: the reads run
// so far that read y's coherence predecessor).
template <class F>
void sc_preds(const execution& x, eid y, F push) {
    const graph& gr = x.g;
    po_preds(gr, x.nthreads, y.t, y.i, push);
    const event& ey = gr.at(y);
    if (ey.is_read()) push(ey.rf);
    if (ey.is_write()) {
        const auto& list = gr.co.at(ey.loc);
        const std::size_t k = gr.co_index(y);
        if (k > 0) {
            push(list[k - 1]);
            for (eid q : x.locs.at(ey.loc).readers)
                if (gr.at(q).rf == list[k - 1]) push(q);
        }
    }
}

// SC: the events from which a new event of thread e.t at index e.i is reachable through
// po | rf | co | fr | spawn | join, one flag per event in thread-major order (by search; the
// fallback of sc::frontier when its clocks meet a cycle).
std::vector<char> sc_reaching(const execution& x, eid e) {
    const graph& gr = x.g;
    const unsigned nthreads = x.nthreads;
    std::vector<std::size_t> base(nthreads + 1, 0);
    for (unsigned t = 0; t < nthreads; ++t) base[t + 1] = base[t] + gr.th[t].size();
    std::vector<char> seen(base[nthreads], 0);
    std::vector<eid> work;
    auto push = [&](eid y) {
        if (!y.valid() || y.i >= gr.th[y.t].size()) return;
        char& s = seen[base[y.t] + y.i];
        if (!s) {
            s = 1;
            work.push_back(y);
        }
    };
    po_preds(gr, nthreads, e.t, e.i, push);
    while (!work.empty()) {
        const eid y = work.back();
        work.pop_back();
        sc_preds(x, y, push);
    }
    return seen;
}

// SC consistency of a whole graph: po | rf | co | fr | spawn | join is acyclic (Kahn's algorithm
// on the edges in one flat array). It runs on every alternative, so its buffers are kept from
// call to call.
class acyclicity {
public:
    bool operator()(const graph& gr) {
        const unsigned n = unsigned(gr.th.size());
        base_.assign(n + 1, 0);
        for (unsigned t = 0; t < n; ++t) base_[t + 1] = base_[t] + gr.th[t].size();
        const std::size_t total = base_[n];
        auto id = [&](eid x) { return base_[x.t] + x.i; };
        edges_.clear();
        for (unsigned t = 0; t < n; ++t)
            for (std::uint32_t i = 0; i + 1 < gr.th[t].size(); ++i)
                edges_.emplace_back(base_[t] + i, base_[t] + i + 1);
        if (gr.spawn_at != UINT32_MAX) {
            for (unsigned u = 1; u < n; ++u) {
                if (gr.th[u].empty()) continue;
                if (gr.spawn_at > 0) edges_.emplace_back(base_[0] + gr.spawn_at - 1, base_[u]);
                if (gr.spawn_at < gr.th[0].size())
                    edges_.emplace_back(base_[u] + gr.th[u].size() - 1, base_[0] + gr.spawn_at);
            }
        }
        next_.assign(total, none);  // each write's successor in coherence
        for (const auto& kv : gr.co)
            for (std::size_t k = 0; k + 1 < kv.second.size(); ++k) {
                edges_.emplace_back(id(kv.second[k]), id(kv.second[k + 1]));
                if (gr.at(kv.second[k]).loc == kv.first)
                    next_[id(kv.second[k])] = id(kv.second[k + 1]);
            }
        for (unsigned t = 0; t < n; ++t)
            for (std::uint32_t i = 0; i < gr.th[t].size(); ++i) {
                const event& e = gr.th[t][i];
                if (!e.is_read()) continue;
                edges_.emplace_back(id(e.rf), base_[t] + i);
                if (next_[id(e.rf)] != none) edges_.emplace_back(base_[t] + i, next_[id(e.rf)]);
            }
        // Successors as one array, indexed by where each node's start.
        start_.assign(total + 1, 0);
        indeg_.assign(total, 0);
        for (const auto& ed : edges_) {
            ++start_[ed.first + 1];
            ++indeg_[ed.second];
        }
        for (std::size_t v = 0; v < total; ++v) start_[v + 1] += start_[v];
        succ_.resize(edges_.size());
        fill_.assign(start_.begin(), start_.end() - 1);
        for (const auto& ed : edges_) succ_[fill_[ed.first]++] = ed.second;
        work_.clear();
        for (std::size_t v = 0; v < total; ++v)
            if (indeg_[v] == 0) work_.push_back(v);
        std::size_t seen = 0;
        while (!work_.empty()) {
            const std::size_t v = work_.back();
            work_.pop_back();
            ++seen;
            for (std::size_t k = start_[v]; k < start_[v + 1]; ++k)
                if (--indeg_[succ_[k]] == 0) work_.push_back(succ_[k]);
        }
        return seen == total;
    }

private:
    static constexpr std::size_t none = ~std::size_t{0};
    std::vector<std::size_t> base_, next_, start_, fill_, succ_, work_;
    std::vector<unsigned> indeg_;
    std::vector<std::pair<std::size_t, std::size_t>> edges_;
};

class sc final : public consistency {
public:
    // The latest co position among the writes of `loc` that reach the new event, directly or by
    // a read of them that does.
    std::size_t frontier(const execution& x, eid id, std::uintptr_t loc,
                         const hclock&) const override {
        vclock reach;
        bool ok = true;
        po_preds(x.g, x.nthreads, id.t, id.i, [&](eid p) {
            if (ok && p.valid() && p.i < x.g.th[p.t].size() && (ok = reach_of(x, p)))
                reach.join(reach_[p.t][p.i]);
        });
        if (!ok) return frontier_by_search(x, id, loc);
        // What reaches it, from the location's coherence order and its reads (in the live phase,
        // where new events are added, every read of the graph has run).
        const auto& list = x.g.co.at(loc);
        std::size_t lo = 0;
        for (std::size_t k = 0; k < list.size(); ++k)
            if (reach.covers(list[k])) lo = k;
        for (eid q : x.locs.at(loc).readers) {
            if (!reach.covers(q)) continue;
            const eid w = x.g.at(q).rf;
            lo = std::max(lo, x.g.at(w).loc != loc ? x.g.co_index(w) : graph::index_in(list, w));
        }
        return lo;
    }
    std::size_t fenced_frontier(const execution&, std::uintptr_t, const hclock&,
                                std::size_t lo) const override {
        return lo;  // every access is seq_cst already
    }
    bool graph_consistent(const graph& g) const override { return acyclic_(g); }
    // The graph a run replays was checked whole before the run (graph_consistent), and nothing
    // the replay does changes it (a decoded string's graph is checked when its replay ends,
    // explorer::check_decoded_run); a new event reading the newest write, or written newest in
    // coherence, has no outgoing edge: what runs from a consistent graph stays consistent.
    bool run_consistent(const execution&, bool) const override { return true; }

private:
    std::size_t frontier_by_search(const execution& x, eid id, std::uintptr_t loc) const {
        const std::vector<char> reach = sc_reaching(x, id);
        std::size_t lo = 0, idx = 0;
        for (unsigned t = 0; t < x.nthreads; ++t)
            for (std::uint32_t i = 0; i < x.g.th[t].size(); ++i, ++idx) {
                const event& e = x.g.th[t][i];
                if (!reach[idx] || !e.is_access() || e.loc != loc) continue;
                lo = std::max(lo, x.g.co_index(e.is_write() ? eid{std::uint16_t(t), i} : e.rf));
            }
        return lo;
    }

    // What reaches event e, e included (a set closed under program order: a prefix of every
    // thread), into reach_[e.t][e.i]; false if e lies on a cycle. New events are added only
    // where the replay ended (the live phase), and each new edge of po | rf | co | fr points
    // to the new event (a new read reads the newest write, a new write goes last in
    // coherence): what reaches an event already in the graph never changes for the rest of
    // the run, so each event's set is computed once per run, not searched at every event.
    bool reach_of(const execution& x, eid e) const {
        if (x.run != run_) {
            run_ = x.run;
            for (auto& s : state_) s.clear();
        }
        state_.resize(x.g.th.size());  // (the graph grew since the last call: new events)
        reach_.resize(x.g.th.size());
        for (unsigned t = 0; t < x.g.th.size(); ++t) {
            state_[t].resize(x.g.th[t].size(), 0);
            if (reach_[t].size() < state_[t].size()) reach_[t].resize(state_[t].size());
        }
        auto state = [&](eid y) -> std::uint8_t& { return state_[y.t][y.i]; };
        auto in_graph = [&](eid y) { return y.valid() && y.i < x.g.th[y.t].size(); };
        // 0: not known, 1: its predecessors are being computed (on the path), 2: known
        work_.assign(1, e);
        while (!work_.empty()) {
            const eid y = work_.back();
            std::uint8_t& s = state(y);
            if (s == 2) {
                work_.pop_back();
                continue;
            }
            if (s == 0) {
                s = 1;
                bool cycle = false;
                sc_preds(x, y, [&](eid p) {
                    if (!in_graph(p)) return;
                    const std::uint8_t sp = state(p);
                    if (sp == 1) cycle = true;
                    if (sp == 0) work_.push_back(p);
                });
                if (cycle) {
                    run_ = 0;  // (forget the run's states: they are half-made)
                    return false;
                }
                continue;
            }
            vclock r;
            sc_preds(x, y, [&](eid p) {
                if (in_graph(p)) r.join(reach_[p.t][p.i]);
            });
            r.c[y.t] = std::max(r.c[y.t], y.i + 1);
            reach_[y.t][y.i] = r;
            state(y) = 2;
            work_.pop_back();
        }
        return true;
    }
    mutable acyclicity acyclic_;
    mutable std::uint64_t run_ = 0;
    mutable std::vector<std::vector<std::uint8_t>> state_;
    mutable std::vector<std::vector<vclock>> reach_;
    mutable std::vector<eid> work_;
};

}  // namespace

std::unique_ptr<consistency> make_sc() { return std::make_unique<sc>(); }

}  // namespace kverify::dpor::detail
