// SPDX-License-Identifier: GPL-2.0-only
// Sequential consistency for the dpor engine: po | rf | co | fr (with spawn and join) acyclic. A
// new access may read or follow only writes no later one in its SC-prefix hides (by reachability);
// a revisited or alternative graph is checked whole.
#include "model/dpor/consistency.hpp"

namespace kverify::dpor::detail {
namespace {

// SC: the events from which a new event of thread e.t at index e.i is reachable through
// po | rf | co | fr | spawn | join, one flag per event in thread-major order.
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
    // Predecessors of position (t, i) by program order, spawn and join.
    auto push_po_preds = [&](unsigned t, std::uint32_t i) {
        if (i > 0)
            push(eid{std::uint16_t(t), i - 1});
        else if (t != 0 && gr.spawn_at != UINT32_MAX && gr.spawn_at > 0)
            push(eid{0, gr.spawn_at - 1});
        if (t == 0 && gr.spawn_at != UINT32_MAX && i == gr.spawn_at)
            for (unsigned u = 1; u < nthreads; ++u)
                if (!gr.th[u].empty())
                    push(eid{std::uint16_t(u), std::uint32_t(gr.th[u].size() - 1)});
    };
    push_po_preds(e.t, e.i);
    while (!work.empty()) {
        const eid y = work.back();
        work.pop_back();
        const event& ey = gr.at(y);
        push_po_preds(y.t, y.i);
        if (ey.is_read()) push(ey.rf);
        if (ey.is_write()) {
            const auto& list = gr.co.at(ey.loc);
            const std::size_t k = gr.co_index(y);
            if (k > 0) {
                push(list[k - 1]);
                for (eid q : x.locs.at(ey.loc).readers)  // fr: readers of the co-predecessor
                    if (gr.at(q).rf == list[k - 1]) push(q);
            }
        }
    }
    return seen;
}

// SC consistency of a whole graph: po | rf | co | fr | spawn | join is acyclic.
bool sc_acyclic(const graph& gr) {
    const unsigned n = unsigned(gr.th.size());
    std::vector<std::size_t> base(n + 1, 0);
    for (unsigned t = 0; t < n; ++t) base[t + 1] = base[t] + gr.th[t].size();
    const std::size_t total = base[n];
    std::vector<std::vector<std::size_t>> succ(total);
    auto id = [&](eid x) { return base[x.t] + x.i; };
    for (unsigned t = 0; t < n; ++t)
        for (std::uint32_t i = 0; i + 1 < gr.th[t].size(); ++i)
            succ[base[t] + i].push_back(base[t] + i + 1);
    if (gr.spawn_at != UINT32_MAX) {
        for (unsigned u = 1; u < n; ++u) {
            if (gr.th[u].empty()) continue;
            if (gr.spawn_at > 0) succ[base[0] + gr.spawn_at - 1].push_back(base[u]);
            if (gr.spawn_at < gr.th[0].size())
                succ[base[u] + gr.th[u].size() - 1].push_back(base[0] + gr.spawn_at);
        }
    }
    for (const auto& kv : gr.co)
        for (std::size_t k = 0; k + 1 < kv.second.size(); ++k)
            succ[id(kv.second[k])].push_back(id(kv.second[k + 1]));
    for (unsigned t = 0; t < n; ++t)
        for (std::uint32_t i = 0; i < gr.th[t].size(); ++i) {
            const event& e = gr.th[t][i];
            if (!e.is_read()) continue;
            succ[id(e.rf)].push_back(base[t] + i);
            const eid nx = gr.co_next(e.rf);
            if (nx.valid()) succ[base[t] + i].push_back(id(nx));
        }
    std::vector<unsigned> indeg(total, 0);
    for (const auto& s : succ)
        for (std::size_t v : s) ++indeg[v];
    std::vector<std::size_t> work;
    for (std::size_t v = 0; v < total; ++v)
        if (indeg[v] == 0) work.push_back(v);
    std::size_t seen = 0;
    while (!work.empty()) {
        const std::size_t v = work.back();
        work.pop_back();
        ++seen;
        for (std::size_t u : succ[v])
            if (--indeg[u] == 0) work.push_back(u);
    }
    return seen == total;
}

class sc final : public consistency {
public:
    // The latest co position among the writes of `loc` that reach the new event, directly or by
    // a read of them that does.
    std::size_t frontier(const execution& x, eid id, std::uintptr_t loc,
                         const hclock&) const override {
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
    std::size_t fenced_frontier(const execution&, std::uintptr_t, const hclock&,
                                std::size_t lo) const override {
        return lo;  // every access is seq_cst already
    }
    bool graph_consistent(const graph& g) const override { return sc_acyclic(g); }
    bool run_consistent(const execution& x, bool replay_done) const override {
        return !replay_done || sc_acyclic(x.g);
    }
};

}  // namespace

std::unique_ptr<consistency> make_sc() { return std::make_unique<sc>(); }

}  // namespace kverify::dpor::detail
