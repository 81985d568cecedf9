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

namespace kverify::dpor::detail {

namespace {

enum tag : std::uint32_t {
    t_r = 1u << 0,       // a read (RMW read halves, lock reads, failed cas reads included)
    t_w = 1u << 1,       // a write (init, RMW write halves, unlocks included)
    t_f = 1u << 2,       // a fence
    t_iw = 1u << 3,      // an initial write (a location's constructor)
    t_once = 1u << 4,    // ONCE
    t_acq = 1u << 5,     // ACQUIRE (before the bell's filter)
    t_rel = 1u << 6,     // RELEASE (before the filter)
    t_mb = 1u << 7,      // MB (before the filter)
    t_noret = 1u << 8,   // NORETURN
    t_rmw = 1u << 9,     // an event of an RMW instruction (both halves, and a failed cas's read)
    t_lkr = 1u << 10,    // spin_lock's read half
    t_lkw = 1u << 11,    // spin_lock's write half
    t_ul = 1u << 12,     // spin_unlock
    t_lf = 1u << 13,     // a failed trylock
    t_scacc = 1u << 14,  // a seq_cst load or store of the engine's own: between two smp_mb()
    t_plain = 1u << 15,  // a plain access
    t_fmb = 1u << 16,
    t_frmb = 1u << 17,
    t_fwmb = 1u << 18,
    t_fba = 1u << 19,   // smp_mb__before_atomic
    t_faa = 1u << 20,   // smp_mb__after_atomic
    t_fas = 1u << 21,   // smp_mb__after_spinlock
    t_faul = 1u << 22,  // smp_mb__after_unlock_lock
    t_fbar = 1u << 23,  // barrier()
};

std::uint32_t access_tag(lk p) {
    switch (p) {
        case lk::once:
            return t_once;
        case lk::acquire:
            return t_acq;
        case lk::release:
            return t_rel;
        case lk::mb:
            return t_mb;
        case lk::noreturn:
            return t_noret;
        default:
            return 0;
    }
}

// The LKMM tags of one graph event (its kind, its primitive, and for `automatic` its C11 order).
std::uint32_t tags_of(const event& e) {
    if (e.kind == ek::fence) {
        switch (e.prim) {
            case lk::f_mb:
                return t_f | t_fmb;
            case lk::f_rmb:
                return t_f | t_frmb;
            case lk::f_wmb:
                return t_f | t_fwmb;
            case lk::f_before_atomic:
                return t_f | t_fba;
            case lk::f_after_atomic:
                return t_f | t_faa;
            case lk::f_after_spinlock:
                return t_f | t_fas;
            case lk::f_after_unlock_lock:
                return t_f | t_faul;
            case lk::f_barrier:
                return t_f | t_fbar;
            default:
                break;
        }
        switch (e.order) {  // automatic: the C11 fences of the primitive mapping
            case mo::seq_cst:
            case mo::acq_rel:
                return t_f | t_fmb;
            case mo::acquire:
                return t_f | t_frmb;
            case mo::release:
                return t_f | t_fwmb;
            default:
                return t_f | t_fbar;
        }
    }
    std::uint32_t t = e.is_read() ? t_r : t_w;
    if (e.init) return t | t_iw;
    if (e.order == mo::plain) return t | t_plain;
    const bool rmw = e.rmw != rmw_op::none;
    switch (e.prim) {   // lock events are not RMW instructions' events (lock.cat)
        case lk::lock:  // a failed attempt (trylock) reads without ordering: LF
            if (e.is_read() && !e.rmw_succeeds()) return t | t_lf;
            return t | (e.is_read() ? t_lkr : t_lkw);
        case lk::unlock:
            return t | t_ul;
        case lk::lock_fail:
            return t | t_lf;
        default:
            break;
    }
    if (rmw) t |= t_rmw;
    if (e.prim != lk::automatic) return t | access_tag(e.prim);
    if (rmw) {
        if (e.full || e.order == mo::seq_cst) return t | t_mb;
        if (e.order == mo::acq_rel) return t | (e.is_read() ? t_acq : t_rel);
        if (e.order == mo::acquire) return t | t_acq;
        if (e.order == mo::release) return t | t_rel;
        return t | t_once;
    }
    const mo o = e.is_read() ? e.read_order() : e.order;
    if (o == mo::acquire) return t | t_acq;
    if (o == mo::release) return t | t_rel;
    if (o == mo::seq_cst) return t | t_once | t_scacc;
    return t | t_once;
}

// The events of a graph numbered for the relations, and the base relations.
struct frame {
    std::size_t n = 0;
    std::vector<eid> ids;
    std::vector<std::uint32_t> tags;
    std::vector<std::vector<std::size_t>> index;  // per thread, per event: its number or npos
    static constexpr std::size_t npos = ~std::size_t{0};

    evset set(std::uint32_t any_of) const {
        evset s(n);
        for (std::size_t k = 0; k < n; ++k)
            if (tags[k] & any_of) s.add(k);
        return s;
    }
};

frame number_events(const graph& g) {
    frame f;
    f.index.resize(g.th.size());
    for (unsigned t = 0; t < g.th.size(); ++t) {
        f.index[t].assign(g.th[t].size(), frame::npos);
        for (std::uint32_t i = 0; i < g.th[t].size(); ++i) {
            const event& e = g.th[t][i];
            if (!e.is_access() && e.kind != ek::fence) continue;
            f.index[t][i] = f.n++;
            f.ids.push_back(eid{std::uint16_t(t), i});
            f.tags.push_back(tags_of(e));
        }
    }
    return f;
}

}  // namespace

namespace {

// Everything below, for the consistency axioms and for the flags on plain accesses. Returns
// false as soon as an axiom fails (coherence, atomicity, happens-before, propagation,
// plain-coherence); with `flags`, computes them on a consistent graph.
bool lkmm_check(const graph& g, lkmm_flags* flags) {
    const frame f = number_events(g);
    const std::size_t n = f.n;
    if (n == 0) return true;
    auto num = [&](eid e) { return f.index[e.t][e.i]; };
    auto at = [&](std::size_t k) -> const event& { return g.at(f.ids[k]); };
    const bool spawned = g.spawn_at != UINT32_MAX;

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
    for (std::size_t a = 0; a < n; ++a)
        for (std::size_t b = 0; b < n; ++b) {
            const eid x = f.ids[a], y = f.ids[b];
            if (x.t == y.t && x.i < y.i) po.add(a, b);
            if (x.t != y.t) ext.add(a, b);
            if (spawned && x.t != y.t) {
                // spawn: the harness's events before the tasks start; join: after they end.
                if (x.t == 0 && x.i < g.spawn_at) sj.add(a, b);
                if (y.t == 0 && y.i >= g.spawn_at) sj.add(a, b);
            }
            if (at(a).is_access() && at(b).is_access() && at(a).loc == at(b).loc) loc.add(a, b);
        }
    for (std::size_t k = 0; k < n; ++k) {
        const event& e = at(k);
        if (e.is_read()) {
            // (A graph being checked for a revisit may hold a read whose write half, or whose
            // write, the revisit is about to place: only what is there counts.)
            if (e.rf.valid() && e.rf.i < g.th[e.rf.t].size() && num(e.rf) != frame::npos)
                rf.add(num(e.rf), k);
            if (e.rmw != rmw_op::none && e.rmw_succeeds()) {
                const eid w{f.ids[k].t, f.ids[k].i + 1};
                if (w.i < g.th[w.t].size() && g.at(w).is_write() && g.at(w).rmw != rmw_op::none) {
                    rmw.add(k, num(w));
                    if (e.op) rmw_data.add(k, num(w));
                }
            }
        }
    }
    for (const auto& kv : g.co)
        for (std::size_t i = 0; i < kv.second.size(); ++i)
            for (std::size_t j = i + 1; j < kv.second.size(); ++j)
                co.add(num(kv.second[i]), num(kv.second[j]));
    const relation fr = rf.inverse().seq(co);
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

    // fencerel(K) = po ; [K] ; po
    auto fencerel = [&](std::uint32_t kind) {
        const relation thru = relation::id(f.set(kind));
        return po.seq(thru).seq(po);
    };
    const relation Mid = relation::id(M);

    // ---- fences ----
    const relation acq_po = relation::id(Acquire).seq(po).to(M);
    const relation po_rel = Mid.seq(po).to(Release);
    const relation po_unlock_lock_po =
        po.to(UL).seq(po | rf).to(LKR).seq(po);  // po ; [UL] ; (po | rf) ; [LKR] ; po
    const relation rmb = fencerel(t_frmb).from(R4rmb).to(R4rmb);
    const relation wmb = fencerel(t_fwmb).from(W).to(W);
    const relation id_rmw = relation::id(RMW);
    relation mb = fencerel(t_fmb).from(M).to(M);
    mb |= Mid.seq(po).to(Mb & R);
    mb |= relation::id(Mb & W).seq(po).to(M);
    mb |= Mid.seq(fencerel(t_fba)).seq(id_rmw).seq(po.opt()).to(M);
    mb |= Mid.seq(po.opt()).seq(id_rmw).seq(fencerel(t_faa)).to(M);
    mb |= Mid.seq(po.opt()).to(LKW).seq(fencerel(t_fas)).to(M);
    mb |= Mid.seq(po_unlock_lock_po).to(f.set(t_faul)).seq(po).to(M);
    // The engine's own seq_cst words (the kernel layer's masks): as if between two smp_mb().
    mb |= Mid.seq(po).to(SCacc) | relation::id(SCacc).seq(po).to(M);
    // Spawn and join order everything, as a full fence between threads would.
    const relation strong_fence = mb | sj;
    const relation nonrw_fence = strong_fence | po_rel | acq_po;
    const relation fence = nonrw_fence | wmb | rmb;

    // ---- preserved program order ----
    const relation dep = addr | data;
    const relation rwdep = (dep | ctrl).to(W);
    const relation overwrite = co | fr;
    const relation overwrite_int = overwrite - ext;
    const relation to_w = rwdep | overwrite_int | addr.to(plain).seq(wmb);
    const relation to_r = addr.to(R) | dep.to(Marked).seq(rfi);
    const relation ppo = to_r | to_w | (fence - ext) | (po_unlock_lock_po - ext);

    // ---- propagation ----
    const relation mk = relation::id(Marked);
    auto a_cumul = [&](const relation& r) { return rfe.to(Marked).opt().seq(r); };
    const relation rmw_sequence = rf.seq(rmw).star();
    const relation cumul_fence =
        mk.seq(a_cumul(strong_fence | po_rel) | wmb | po_unlock_lock_po).seq(mk).seq(rmw_sequence);
    const relation prop =
        mk.seq((overwrite & ext).opt()).seq(cumul_fence.star()).seq(mk).seq(rfe.opt()).seq(mk);

    // ---- happens-before: acyclic ----
    const relation prop_int = (prop - relation::identity(n)) - ext;
    const relation hb = mk.seq(ppo | rfe | prop_int | sj).seq(mk);
    if (!hb.acyclic()) return false;

    // ---- propagation: acyclic ----
    const relation pb = prop.seq(strong_fence).seq(hb.star()).seq(mk);
    if (!pb.acyclic()) return false;

    // ---- plain accesses: plain-coherence, and the flags (no RCU: rb is empty) ----
    if (plain.empty() && !flags) return true;
    const evset IWs = f.set(t_iw);
    const evset Noreturn_c = evset(n) | (f.set(~0u) - Noreturn);  // ~Noreturn
    const relation xbstar = (hb | pb).star();
    const relation vis = cumul_fence.star().seq(rfe.opt()).seq(mk).seq(
        strong_fence.seq(mk).seq(xbstar) | (xbstar - ext));
    const relation rmb_nr = relation::id(R4rmb).seq(fencerel(t_frmb)).to(Noreturn_c);
    const relation nr_rmb = relation::id(Noreturn_c).seq(fencerel(t_frmb)).to(R4rmb);
    const relation w_pre_bounded = mk.seq((addr | fence).opt());
    const relation r_pre_bounded = mk.seq((addr | nonrw_fence | rmb_nr).opt());
    const relation w_post_bounded = fence.opt().seq(mk).seq(rmw_sequence);
    const relation r_post_bounded = (nonrw_fence | nr_rmb).opt().seq(mk);
    const relation ww_vis = fence | strong_fence.seq(xbstar).seq(w_pre_bounded) |
                            w_post_bounded.seq(vis).seq(w_pre_bounded);
    const relation wr_vis = fence | strong_fence.seq(xbstar).seq(r_pre_bounded) |
                            w_post_bounded.seq(vis).seq(r_pre_bounded);
    const relation rw_xbstar = fence | r_post_bounded.seq(xbstar).seq(w_pre_bounded);
    const relation pre_race = ext & (relation::cross(plain, M) | relation::cross(M - IWs, plain));
    const relation wr_incoh = pre_race & rf & rw_xbstar.inverse();
    const relation rw_incoh = pre_race & fr & wr_vis.inverse();
    const relation ww_incoh = pre_race & co & ww_vis.inverse();
    if (!(wr_incoh | rw_incoh | ww_incoh).empty()) return false;
    if (!flags) return true;
    const relation ww_nonrace =
        ww_vis & (relation::cross(Marked, W) | rw_xbstar) & (relation::cross(W, Marked) | wr_vis);
    const relation ww_race = (pre_race & co) - ww_nonrace;
    const relation wr_race = ((pre_race & co.opt().seq(rf)) - wr_vis) - rw_xbstar.inverse();
    const relation rw_race = (pre_race & fr) - rw_xbstar;
    flags->data_race = !(ww_race | wr_race | rw_race).empty();
    // mixed-accesses: a plain write and a marked access of one location in one thread with no
    // barrier between them.
    const evset barrier_set =
        f.set(t_fbar | t_frmb | t_fwmb | t_fmb | t_fba | t_faa) | Mb | Acquire | Release;
    const relation barrier =
        po.seq(relation::id(barrier_set)).seq(po) | po.to(Release) | relation::id(Acquire).seq(po);
    const evset plain_w = plain & W;
    const relation mixed = relation::id(plain_w).seq(po_loc - barrier).to(Marked) |
                           mk.seq(po_loc - barrier).to(plain_w);
    flags->mixed_accesses = !mixed.empty();
    return true;
}

}  // namespace

bool lkmm_consistent(const graph& g) { return lkmm_check(g, nullptr); }

bool lkmm_flags_of(const graph& g, lkmm_flags& flags) {
    flags = lkmm_flags{};
    return lkmm_check(g, &flags);
}

namespace {

class lkmm final : public consistency {
public:
    // Coherence (SC per location) bounds a new access by what its thread saw of the location
    // before it (and, for a task, what the harness did before the tasks started; for the
    // harness after the join, what every task did): the latest co position among them. The
    // other axioms are checked on each alternative graph (graph_consistent).
    std::size_t frontier(const execution& x, eid id, std::uintptr_t loc,
                         const hclock&) const override {
        const graph& g = x.g;
        std::size_t lo = 0;
        auto see = [&](eid e) {
            const event& ev = g.at(e);
            if (!ev.is_access() || ev.loc != loc) return;
            lo = std::max(lo, g.co_index(ev.is_write() ? e : ev.rf));
        };
        for (std::uint32_t i = 0; i < id.i && i < g.th[id.t].size(); ++i) see(eid{id.t, i});
        if (g.spawn_at != UINT32_MAX) {
            if (id.t != 0) {
                for (std::uint32_t i = 0; i < g.spawn_at && i < g.th[0].size(); ++i) see(eid{0, i});
            } else if (id.i >= g.spawn_at) {
                for (unsigned t = 1; t < g.th.size(); ++t)
                    for (std::uint32_t i = 0; i < g.th[t].size(); ++i)
                        see(eid{std::uint16_t(t), i});
            }
        }
        return lo;
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
