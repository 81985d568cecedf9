// SPDX-License-Identifier: GPL-2.0-only
// The Linux kernel memory model (tools/memory-model: linux-kernel.cat with its bell and def files,
// in the lkmmv2 form herdtools7 carries) for the dpor engine: its axioms (coherence, atomicity,
// happens-before, propagation) computed on the execution graph from their definitions, relation
// by relation, over the graph's events with the kernel primitive of each (event::prim) and the
// dependencies the program declared. RCU is not modeled. How the engine's own events map onto
// the LKMM's (the harness, spawn and join, seq_cst words) is model/kernel/MAPPING.md's LKMM
// column; in short: the harness's events before the tasks start, and after they all end, are
// ordered with every task event as by a full fence.
#include "model/dpor/lkmm.hpp"

#include <algorithm>

#include "model/dpor/consistency.hpp"
#include "model/dpor/lkmm_frame.hpp"

namespace kverify::dpor::detail {

using namespace lkmm_impl;

namespace {

bool lkmm_axioms(const graph& g, const frame& f, lkmm_flags* flags);

// The numbered events of g, or of the graph a revisit builds from it (number_events), in the
// one frame of this thread that the entry points below share: its buffers are kept from one
// graph to the next.
frame& numbered(const graph& g, const std::vector<std::vector<char>>* keep = nullptr, eid r = {},
                eid w = {}) {
    thread_local frame f;
    number_events(g, keep, r, w, f);
    return f;
}

// The consistency axioms and the flags on plain accesses: coherence on every event, the rest on
// the tasks' events alone where that decides the same (tasks_only). Returns false as soon as an
// axiom fails (coherence, atomicity, happens-before, propagation, plain-coherence); with
// `flags`, computes them on a consistent graph.
bool lkmm_check(const graph& g, const frame& f, lkmm_flags* flags) {
    if (f.n == 0) return true;
    if (!coherence_may_hold(f)) return false;
    if (!flags && f.spawn_at != UINT32_MAX) {
        thread_local frame tasks;
        tasks_only(f, tasks);
        return lkmm_axioms(g, tasks, nullptr);
    }
    return lkmm_axioms(g, f, flags);
}

// The axioms after coherence's (which coherence_may_hold has decided), on the events of f.
bool lkmm_axioms(const graph& g, const frame& f, lkmm_flags* flags) {
    const std::size_t n = f.n;
    if (n == 0) return true;
    auto at = [&](std::size_t k) -> const event& { return f.ev(k); };
    const bool spawned = f.spawn_at != UINT32_MAX;

    // ---- sets ----
    const evset R = f.set(t_r), W = f.set(t_w);
    const evset M = R | W;
    const evset RMW = f.set(t_rmw);
    const evset LKR = f.set(t_lkr), LKW = f.set(t_lkw), UL = f.set(t_ul);
    const evset plain = f.set(t_plain);
    const evset Marked = evset(n) | (f.set(~0u) - plain);  // every non-plain event, fences too
    const evset SCacc = f.set(t_scacc);

    // ---- base relations ----
    relation po(n), sj(n), rf(n), co(n), loc(n), rmw(n), rmw_data(n), ext(n);
    // The numbers run thread by thread in program order: a thread's events are one range.
    std::vector<std::size_t> start_of(n), end_of(n);
    for (std::size_t a = 0, b = 0; a < n; a = b) {
        for (b = a; b < n && f.ids[b].t == f.ids[a].t; ++b) {
        }
        for (std::size_t k = a; k < b; ++k) {
            start_of[k] = a;
            end_of[k] = b;
        }
    }
    // spawn: the harness's events before the tasks start, to every task event; join: every task
    // event to the harness's events after they end, numbers [join_from, end of thread 0).
    const std::size_t end0 = n > 0 && f.ids[0].t == 0 ? end_of[0] : 0;
    std::size_t join_from = 0;
    while (join_from < end0 && f.ids[join_from].i < f.spawn_at) ++join_from;
    for (std::size_t a = 0; a < n; ++a) {
        const eid x = f.ids[a];
        po.add_range(a, a + 1, end_of[a]);
        ext.add_range(a, 0, start_of[a]);
        ext.add_range(a, end_of[a], n);
        if (!spawned) continue;
        if (x.t == 0 && x.i < f.spawn_at) {
            sj.add_range(a, 0, start_of[a]);
            sj.add_range(a, end_of[a], n);
        } else if (x.t != 0) {
            sj.add_range(a, join_from, end0);
        }
    }
    {  // loc: the accesses of one location, a row per location
        const auto& acc = f.by_loc;
        for (std::size_t b = 0, e = 0; b < acc.size(); b = e) {
            evset same(n);
            for (e = b; e < acc.size() && acc[e].first == acc[b].first; ++e)
                same.add(acc[e].second);
            for (std::size_t x = b; x < e; ++x) loc.add_row(acc[x].second, same);
        }
    }
    for (std::size_t k = 0; k < n; ++k) {
        const event& e = at(k);
        if (e.is_read()) {
            // (A graph being checked for a revisit may hold a read whose write half, or whose
            // write, the revisit is about to place: only what is there counts.)
            if (f.num(e.rf) != frame::npos) rf.add(f.num(e.rf), k);
            if (e.rmw != rmw_op::none && e.rmw_succeeds()) {
                const std::size_t w = f.num(eid{f.ids[k].t, f.ids[k].i + 1});
                if (w != frame::npos && at(w).is_write() && at(w).rmw != rmw_op::none) {
                    rmw.add(k, w);
                    if (e.op) rmw_data.add(k, w);
                }
            }
        }
    }
    for (const auto& list : f.co)
        for (std::size_t i = 0; i < list.size(); ++i)
            for (std::size_t j = i + 1; j < list.size(); ++j) co.add(list[i], list[j]);
    relation fr = rf.inverse().seq(co);
    if (!f.reads_harness.empty())  // tasks_only: fr from the reads of a harness write
        for (std::size_t k = 0; k < n; ++k)
            if (f.reads_harness[k]) fr.add_row(k, W & loc.row(k));
    const relation rfe = rf & ext, rfi = rf - ext, coe = co & ext, fre = fr & ext;
    const relation po_loc = po & loc;

    // ---- coherence and atomicity (first: the cheapest axioms, and a graph failing them ----
    // ---- needs none of the relations below) ----
    if (!(po_loc | (sj & loc) | rf | co | fr).acyclic()) return false;
    if (!(rmw & fre.seq(coe)).empty()) return false;

    // ---- dependencies: addr, data, ctrl as declared, carried through rfi by data ----
    relation addr0(n), data0(n), ctrl0(n);
    for (std::size_t k = 0; k < n; ++k) {
        const event& e = at(k);
        const dep_rec* d = g.deps_of(e);
        if (!d) continue;
        const unsigned t = f.ids[k].t;
        auto add_all = [&](relation& r, const std::vector<std::uint32_t>& from) {
            for (std::uint32_t i : from)
                if (i < f.index[t].size() && f.index[t][i] != frame::npos) r.add(f.index[t][i], k);
        };
        add_all(addr0, d->addr);
        add_all(ctrl0, d->ctrl);
        if (e.is_write()) add_all(data0, d->data);  // an RMW's data dependencies: its write half
    }
    data0 |= rmw_data;  // an atomic_op's write is computed from its read
    const relation carry_dep = data0.seq(rfi).star();
    const relation addr = carry_dep.seq(addr0), data = carry_dep.seq(data0),
                   ctrl = carry_dep.seq(ctrl0);

    // ---- the bell's filtered sets ----
    const evset failed_rmw = RMW - rmw.domain() - rmw.range();
    const evset Acquire = ((f.set(t_acq) - W) - failed_rmw) | LKR;
    const evset Release = ((f.set(t_rel) - R) - failed_rmw) | UL;
    const evset Mb = f.set(t_mb) - failed_rmw;
    const evset Noreturn = f.set(t_noret) - W;
    const evset R4rmb = R - Noreturn;

    // fencerel(K) = po ; [K] ; po. (Below, [S] ; r is r.from(S) and r ; [S] is r.to(S), and
    // a term that is empty for want of its fences is left out of its union.)
    // By rows: a's row is what follows the first event of `thru` after a in its thread.
    auto po_thru_po = [&](const evset& thru) {
        relation r(n);
        for (std::size_t e = n; e > 0;) {
            const std::size_t s = start_of[e - 1], end = e;
            std::size_t next = end;  // the first K event after the row's event, or none
            for (std::size_t a = end; a-- > s;) {
                if (next < end) r.add_range(a, next + 1, end);
                if (thru.has(a)) next = a;
            }
            e = s;
        }
        return r;
    };
    auto fencerel = [&](std::uint32_t kind) { return po_thru_po(f.set(kind)); };
    const relation po_opt = po.opt();

    // ---- fences ----
    const relation acq_po = po.from(Acquire).to(M);
    const relation po_rel = po.from(M).to(Release);
    const relation po_unlock_lock_po =
        UL.empty() ? relation(n)
                   : po.to(UL).seq(po | rf).to(LKR).seq(po);  // po ; [UL] ; (po | rf) ; [LKR] ; po
    const relation rmb = fencerel(t_frmb).from(R4rmb).to(R4rmb);
    const relation wmb = fencerel(t_fwmb).from(W).to(W);
    relation mb = fencerel(t_fmb).from(M).to(M);
    mb |= po.from(M).to(Mb & R);
    mb |= po.from(Mb & W).to(M);
    if (const relation fba = fencerel(t_fba); !fba.empty())
        mb |= fba.from(M).to(RMW).seq(po_opt).to(M);
    if (const relation faa = fencerel(t_faa); !faa.empty())
        mb |= po_opt.from(M).to(RMW).seq(faa).to(M);
    if (const relation fas = fencerel(t_fas); !fas.empty())
        mb |= po_opt.from(M).to(LKW).seq(fas).to(M);
    if (const evset faul = f.set(t_faul); !faul.empty())
        mb |= po_unlock_lock_po.from(M).to(faul).seq(po).to(M);
    // The engine's own seq_cst words (the kernel layer's masks): as if between two smp_mb().
    mb |= po.from(M).to(SCacc) | po.from(SCacc).to(M);
    // Spawn and join order everything, as a full fence between threads would.
    const relation strong_fence = mb | sj;
    const relation nonrw_fence = strong_fence | po_rel | acq_po;
    const relation fence = nonrw_fence | wmb | rmb;

    // ---- preserved program order ----
    const relation dep = addr | data;
    const relation rwdep = (dep | ctrl).to(W);
    const relation overwrite = co | fr;
    const relation overwrite_int = overwrite - ext;
    relation to_w = rwdep | overwrite_int;
    if (!wmb.empty()) to_w |= addr.to(plain).seq(wmb);
    const relation to_r = addr.to(R) | dep.to(Marked).seq(rfi);
    const relation ppo = to_r | to_w | (fence - ext) | (po_unlock_lock_po - ext);

    // ---- happens-before without prop: a cycle there is one of hb (below), found before ----
    // ---- prop's closures are computed ----
    const relation hb_base = (ppo | rfe | sj).from(Marked).to(Marked);
    if (!hb_base.acyclic()) return false;

    // ---- propagation ----
    auto a_cumul = [&](const relation& r) { return rfe.to(Marked).opt().seq(r); };
    const relation rmw_sequence = rf.seq(rmw).star();
    const relation cumul_fence = (a_cumul(strong_fence | po_rel) | wmb | po_unlock_lock_po)
                                     .from(Marked)
                                     .to(Marked)
                                     .seq(rmw_sequence);
    const relation cumul_star = cumul_fence.star();
    const relation prop =
        (overwrite & ext).opt().from(Marked).seq(cumul_star).to(Marked).seq(rfe.opt()).to(Marked);

    // ---- happens-before: acyclic ----
    const relation prop_int = (prop - relation::identity(n)) - ext;
    const relation hb = hb_base | prop_int.from(Marked).to(Marked);
    if (!hb.acyclic()) return false;

    // ---- propagation: acyclic ----
    // pb = prop ; strong-fence ; hb* ; [Marked] is acyclic iff P | hb is, with P = prop ;
    // strong-fence ; [Marked]: hb is acyclic (above), so a cycle of P | hb has a P edge, and
    // its P edges each with the hb path after it are pb edges (an hb edge starts at a Marked
    // event); and each pb edge is a P edge and an hb path. For the same reason
    // (hb | pb)* = (hb | P)* (below), and hb* is never needed.
    const relation prop_sf = prop.seq(strong_fence).to(Marked);
    if (!(prop_sf | hb).acyclic()) return false;

    // ---- plain accesses: plain-coherence, and the flags (no RCU: rb is empty) ----
    if (plain.empty() && !flags) return true;
    const relation mk = relation::id(Marked);
    const evset IWs = f.set(t_iw);
    const evset Noreturn_c = evset(n) | (f.set(~0u) - Noreturn);  // ~Noreturn
    const relation xbstar = (hb | prop_sf).star();                // (hb | pb)*
    const relation pre_race = ext & (relation::cross(plain, M) | relation::cross(M - IWs, plain));
    const relation rmb_nr = relation::id(R4rmb).seq(fencerel(t_frmb)).to(Noreturn_c);
    const relation nr_rmb = relation::id(Noreturn_c).seq(fencerel(t_frmb)).to(R4rmb);
    // Plain-coherence and the data-race flag are judged on few pairs (pre-race: a plain access
    // and a conflicting one of another thread, related by rf, fr or co), each against a row of
    // rw-xbstar, wr-vis or ww-vis: computed here as the image of one event through the relations
    // of its definition, instead of those relations whole (products over every pair of events).
    const relation xbstar_int = xbstar - ext;
    const relation w_pre_rel = addr | fence, r_pre_rel = addr | nonrw_fence | rmb_nr;
    const relation r_post_rel = nonrw_fence | nr_rmb;
    auto one = [&](std::size_t b) {
        evset s(n);
        s.add(b);
        return s;
    };
    // v ; [Marked] ; rel?: w-pre-bounded and r-pre-bounded
    auto pre = [&](const evset& v, const relation& rel) {
        const evset m = v & Marked;
        return m | rel.image(m);
    };
    // v ; vis
    auto vis_of = [&](const evset& v) {
        const evset v1 = cumul_star.image(v);
        const evset v2 = (v1 | rfe.image(v1)) & Marked;
        return xbstar.image(strong_fence.image(v2) & Marked) | xbstar_int.image(v2);
    };
    // b's rows of w-post-bounded (fence? ; [Marked] ; rmw-sequence) and r-post-bounded
    // ((nonrw-fence | nr-rmb)? ; [Marked])
    auto w_post = [&](std::size_t b) {
        return rmw_sequence.image((one(b) | fence.row(b)) & Marked);
    };
    auto r_post = [&](std::size_t b) { return (one(b) | r_post_rel.row(b)) & Marked; };
    // b's row of ww-vis (with w-pre-bounded) or wr-vis (with r-pre-bounded)
    auto vis_row = [&](std::size_t b, const relation& pre_rel) {
        return fence.row(b) | pre(xbstar.image(strong_fence.row(b)), pre_rel) |
               pre(vis_of(w_post(b)), pre_rel);
    };
    auto ww_vis_row = [&](std::size_t b) { return vis_row(b, w_pre_rel); };
    auto wr_vis_row = [&](std::size_t b) { return vis_row(b, r_pre_rel); };
    auto rw_xbstar_row = [&](std::size_t b) {
        return fence.row(b) | pre(xbstar.image(r_post(b)), w_pre_rel);
    };
    // Whether some (a, b) of cand has pred(a, b).
    auto any_pair = [&](const relation& cand, auto pred) {
        for (std::size_t a = 0; a < n; ++a) {
            bool found = false;
            cand.for_each_in_row(a, [&](std::size_t b) { found = found || pred(a, b); });
            if (found) return true;
        }
        return false;
    };
    const relation pre_rf = pre_race & rf, pre_fr = pre_race & fr, pre_co = pre_race & co;
    // wr-incoh, rw-incoh, ww-incoh: the pair reversed is in rw-xbstar, wr-vis, ww-vis.
    if (any_pair(pre_rf, [&](std::size_t a, std::size_t b) { return rw_xbstar_row(b).has(a); }) ||
        any_pair(pre_fr, [&](std::size_t a, std::size_t b) { return wr_vis_row(b).has(a); }) ||
        any_pair(pre_co, [&](std::size_t a, std::size_t b) { return ww_vis_row(b).has(a); })) {
        return false;
    }
    if (!flags) return true;
    // ww-race: pre-race & co, less ww-nonrace = ww-vis & (Marked * W | rw-xbstar) &
    // (W * Marked | wr-vis); wr-race: pre-race & co? ; rf, less wr-vis and rw-xbstar^-1;
    // rw-race: pre-race & fr, less rw-xbstar.
    auto ww_race = [&](std::size_t a, std::size_t b) {
        const bool nonrace = ww_vis_row(a).has(b) &&
                             ((Marked.has(a) && W.has(b)) || rw_xbstar_row(a).has(b)) &&
                             ((W.has(a) && Marked.has(b)) || wr_vis_row(a).has(b));
        return !nonrace;
    };
    auto wr_race = [&](std::size_t a, std::size_t b) {
        return !wr_vis_row(a).has(b) && !rw_xbstar_row(b).has(a);
    };
    auto rw_race = [&](std::size_t a, std::size_t b) { return !rw_xbstar_row(a).has(b); };
    flags->data_race = any_pair(pre_co, ww_race) ||
                       any_pair(pre_race & co.opt().seq(rf), wr_race) || any_pair(pre_fr, rw_race);
    // mixed-accesses: a plain write and a marked access of one location in one thread with no
    // barrier between them.
    const evset barrier_set =
        f.set(t_fbar | t_frmb | t_fwmb | t_fmb | t_fba | t_faa) | Mb | Acquire | Release;
    const relation barrier =
        po_thru_po(barrier_set) | po.to(Release) | relation::id(Acquire).seq(po);
    const evset plain_w = plain & W;
    const relation mixed = relation::id(plain_w).seq(po_loc - barrier).to(Marked) |
                           mk.seq(po_loc - barrier).to(plain_w);
    flags->mixed_accesses = !mixed.empty();
    return true;
}

}  // namespace

bool lkmm_consistent(const graph& g) { return lkmm_check(g, numbered(g), nullptr); }

bool lkmm_consistent_whole(const graph& g) {
    const frame& f = numbered(g);
    if (f.n == 0) return true;
    return coherence_may_hold(f) && lkmm_axioms(g, f, nullptr);
}

bool lkmm_revisit_consistent(const graph& g, const std::vector<std::vector<char>>& keep, eid r,
                             eid w, lkmm_key* key) {
    if (!revisit_coherence_may_hold(g, keep, r, w)) return false;
    const frame& f = numbered(g, &keep, r, w);
    if (!lkmm_check(g, f, nullptr)) return false;
    if (key) *key = key_of(g, f);
    return true;
}

bool lkmm_consistent_known(const graph& g, const lkmm_key& known) {
    const frame& f = numbered(g);
    return key_of(g, f) == known || lkmm_check(g, f, nullptr);
}

bool lkmm_flags_of(const graph& g, lkmm_flags& flags) {
    flags = lkmm_flags{};
    // Both flags need a plain access (an initialising write is none): without one there is
    // nothing to compute, and the explorer calls this on every complete execution.
    bool plain = false;
    for (const auto& t : g.th)
        for (const event& e : t)
            plain = plain || (e.is_access() && !e.init && e.order == mo::plain);
    if (!plain) return true;
    return lkmm_check(g, numbered(g), &flags);
}

// The lowest place in loc's coherence order a new read at `id` may read from: that of the last
// access to loc before it in its thread, in the harness's setup (for a task), or in each task
// (for the harness's teardown). Coherence makes the places of one thread's accesses to a location
// rise along program order (CoWW, CoWR, CoRW, CoRR), so each thread's part is scanned backwards
// to its last access there, not whole (the setup of a model's harness is most of the events, and
// this runs for every new read).
std::size_t lkmm_frontier(const graph& g, eid id, std::uintptr_t loc) {
    std::size_t lo = 0;
    const auto it = g.co.find(loc);
    if (it == g.co.end()) return 0;
    const std::vector<eid>& list = it->second;  // (looked up once)
    auto last = [&](std::uint16_t t, std::uint32_t end) {
        for (std::uint32_t i = std::min<std::uint32_t>(end, g.th[t].size()); i-- > 0;) {
            const event& ev = g.th[t][i];
            if (!ev.is_access() || ev.loc != loc) continue;
            lo = std::max(lo, graph::index_in(list, ev.is_write() ? eid{t, i} : ev.rf));
            return;
        }
    };
    last(id.t, id.i);
    if (g.spawn_at != UINT32_MAX) {
        if (id.t != 0) {
            last(0, g.spawn_at);
        } else if (id.i >= g.spawn_at) {
            for (unsigned t = 1; t < g.th.size(); ++t) last(std::uint16_t(t), UINT32_MAX);
        }
    }
    return lo;
}

namespace {

class lkmm final : public consistency {
public:
    std::size_t frontier(const execution& x, eid id, std::uintptr_t loc,
                         const hclock&) const override {
        return lkmm_frontier(x.g, id, loc);
    }
    std::size_t fenced_frontier(const execution&, std::uintptr_t, const hclock&,
                                std::size_t lo) const override {
        return lo;  // a fully ordered cas's ordering is in the axioms
    }
    bool graph_consistent(const graph& g) const override { return lkmm_consistent(g); }
    // A new event reading the newest write, or written newest in coherence, cannot close a cycle
    // (it has no outgoing edge yet): what runs from a consistent graph stays consistent.
    bool run_consistent(const execution&, bool) const override { return true; }
};

}  // namespace

std::unique_ptr<consistency> make_lkmm() { return std::make_unique<lkmm>(); }

}  // namespace kverify::dpor::detail
