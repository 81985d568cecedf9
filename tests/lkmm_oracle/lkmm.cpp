// SPDX-License-Identifier: GPL-2.0-only
// The LKMM's sets, relations and checks on one candidate (lkmm.hpp). Each definition is the
// cat file's, in its order, with the cat's name in snake_case; `r?`, `r*`, `r+` are opt(),
// star(), plus(), `[S]` is on(S), `S*T` product(S, T), `r \ s` is r - s.
#include "tests/lkmm_oracle/lkmm.hpp"

namespace kverify::lkmm_oracle {

using litmus::access;
using litmus::fence_kind;

const char* to_string(mutation m) {
    static const char* const names[] = {
        "none",           "no-coherence",        "no-atomic",    "no-happens-before",
        "no-propagation", "no-plain-coherence",  "no-addr",      "no-data",
        "no-ctrl",        "ctrl-forward-closed", "no-carry-dep", "no-rmw-data"};
    return names[unsigned(m)];
}

namespace {

// The event sets herd7 gives the model, with the bell's and lock.cat's names.
struct base_sets {
    event_set IW, R, W, M, F;
    event_set ONCE, ACQUIRE, RELEASE, MB, NORETURN, RMW;
    event_set LKR, LKW, UL, LF, RL, RU;
    event_set Rmb, Wmb, Barrier, Before_atomic, After_atomic, After_spinlock, After_unlock_lock;
};

base_sets make_sets(const candidate& c) {
    base_sets s;
    for (event_set* x : {&s.IW,
                         &s.R,
                         &s.W,
                         &s.M,
                         &s.F,
                         &s.ONCE,
                         &s.ACQUIRE,
                         &s.RELEASE,
                         &s.MB,
                         &s.NORETURN,
                         &s.RMW,
                         &s.LKR,
                         &s.LKW,
                         &s.UL,
                         &s.LF,
                         &s.RL,
                         &s.RU,
                         &s.Rmb,
                         &s.Wmb,
                         &s.Barrier,
                         &s.Before_atomic,
                         &s.After_atomic,
                         &s.After_spinlock,
                         &s.After_unlock_lock})
        *x = event_set(c.n);
    for (unsigned e = 0; e < c.n; ++e) {
        const event* v = c.ev[e];
        if (!v) {
            s.IW.add(e);
            s.W.add(e);
            continue;
        }
        if (v->kind == ev_kind::fence) {
            s.F.add(e);
            switch (v->fence) {
                case fence_kind::mb:
                    s.MB.add(e);  // smp_mb is F[MB]: the same tag as a fully ordered RMW's
                    break;
                case fence_kind::rmb:
                    s.Rmb.add(e);
                    break;
                case fence_kind::wmb:
                    s.Wmb.add(e);
                    break;
                case fence_kind::before_atomic:
                    s.Before_atomic.add(e);
                    break;
                case fence_kind::after_atomic:
                    s.After_atomic.add(e);
                    break;
                case fence_kind::after_spinlock:
                    s.After_spinlock.add(e);
                    break;
                case fence_kind::after_unlock_lock:
                    s.After_unlock_lock.add(e);
                    break;
                case fence_kind::barrier:
                    s.Barrier.add(e);
                    break;
            }
            continue;
        }
        (v->kind == ev_kind::read ? s.R : s.W).add(e);
        switch (v->lock) {
            case lock_role::lkr:
                s.LKR.add(e);
                continue;
            case lock_role::lkw:
                s.LKW.add(e);
                continue;
            case lock_role::ul:
                s.UL.add(e);
                continue;
            case lock_role::lf:
                s.LF.add(e);
                continue;
            case lock_role::rl:
                s.RL.add(e);
                s.LF.add(e);  // lock.cat: let LF = LF | RL
                continue;
            case lock_role::ru:
                s.RU.add(e);
                continue;
            case lock_role::none:
                break;
        }
        if (v->atomic) s.RMW.add(e);
        switch (v->tag) {
            case access::once:
                s.ONCE.add(e);
                break;
            case access::acquire:
                s.ACQUIRE.add(e);
                break;
            case access::release:
                s.RELEASE.add(e);
                break;
            case access::mb:
                s.MB.add(e);
                break;
            case access::noreturn:
                s.NORETURN.add(e);
                break;
            case access::plain:
                break;
        }
    }
    s.M = s.R | s.W;
    return s;
}

relation same_loc(const candidate& c) {
    relation r(c.n);
    for (unsigned a = 0; a < c.n; ++a)
        for (unsigned b = 0; b < c.n; ++b)
            if (c.is_mem(a) && c.is_mem(b) && c.loc(a) == c.loc(b)) r.add(a, b);
    return r;
}

relation same_thread(const candidate& c) {
    relation r(c.n);
    for (unsigned a = 0; a < c.n; ++a)
        for (unsigned b = 0; b < c.n; ++b)
            if (c.thread[a] == c.thread[b]) r.add(a, b);
    return r;
}

// lock.cat's critical: each LKW with the UL that ends its critical section.
relation critical(const relation& po_loc, const base_sets& s) {
    return seq(seq(relation::on(s.LKW), po_loc), relation::on(s.UL)) -
           seq(seq(po_loc, relation::on(s.LKW | s.UL)), po_loc);
}

relation lk_rmw(const relation& po, const relation& po_loc, const base_sets& s) {
    return seq(seq(relation::on(s.LKR), po_loc), relation::on(s.LKW)) - seq(po, po);
}

}  // namespace

void merge_locks(candidate& c) {
    const base_sets s = make_sets(c);
    if ((s.LKR | s.LKW | s.UL).empty()) return;  // then every term below is empty
    const relation po_loc = c.po & same_loc(c);
    const relation crit = critical(po_loc, s);
    c.co = (c.co | crit | seq(crit.inverse(), c.co)).plus();
    const relation lk = lk_rmw(c.po, po_loc, s);
    const relation singlestep = c.co - seq(c.co, c.co);
    c.rf = c.rf | seq(seq(relation::on(s.IW | s.UL), singlestep), lk.inverse());
    c.rmw = c.rmw | lk;
}

model_verdict check_lkmm(const candidate& c, mutation m) {
    model_verdict v;
    const unsigned n = c.n;
    const base_sets s = make_sets(c);
    const relation id = relation::identity(n);
    const relation& po = c.po;
    const relation& rf = c.rf;
    const relation& co = c.co;
    const relation& rmw = c.rmw;  // with lk-rmw (merge_locks)
    const relation loc = same_loc(c);
    const relation po_loc = po & loc;
    const relation internal = same_thread(c);
    const relation external = relation::product(event_set::all(n), event_set::all(n)) - internal;
    auto on = [](const event_set& x) { return relation::on(x); };
    auto fail = [&](const char* name) {
        v.failed = name;
        return v;
    };

    // The cat's checks in an order that rejects most candidates soonest (the order does not
    // change which executions are consistent, only the name of the first failed check).
    // ---- coherence and atomicity ----
    const relation fr = seq(rf.inverse(), co);
    const relation rfe = rf & external, rfi = rf & internal;
    const relation coe = co & external, fre = fr & external;
    const relation com = rf | co | fr;
    if (m != mutation::no_coherence && !(po_loc | com).acyclic()) return fail("coherence");
    if (m != mutation::no_atomic && !(rmw & seq(fre, coe)).empty()) return fail("atomic");

    // ---- lock.cat's checks ----
    const relation crit = critical(po_loc, s);
    const relation ul_between = seq(seq(po_loc, on(s.UL)), po_loc);
    if (!(seq(seq(on(s.LKW), po_loc), on(s.LKR)) - ul_between).empty()) return fail("lock-nest");
    if (!(seq(seq(on(s.LKW), po_loc), on(s.RU)) - ul_between).empty())
        return fail("nested-is-locked");
    const event_set unmatched_lkw = s.LKW - crit.domain();
    if (!(seq(seq(on(unmatched_lkw), loc), on(unmatched_lkw)) - id).empty())
        return fail("unmatched-locks");

    // ---- linux-kernel.bell ----
    const event_set failed_rmw = s.RMW - (rmw.domain() | rmw.range());
    const event_set Acquire = (s.ACQUIRE - s.W - failed_rmw) | s.LKR;  // lock.cat adds LKR
    const event_set Release = (s.RELEASE - s.R - failed_rmw) | s.UL;   // and UL
    const event_set Mb = s.MB - failed_rmw;
    const event_set Noreturn = s.NORETURN - s.W;
    const event_set Marked = s.M.complement() | s.IW | s.ONCE | s.RELEASE | s.ACQUIRE | s.MB |
                             s.RMW | s.LKR | s.LKW | s.UL | s.LF | s.RL | s.RU;
    const event_set Plain = s.M - Marked;

    relation addr0 = c.addr, data0 = c.data, ctrl0 = c.ctrl;
    if (m == mutation::no_addr) addr0 = relation(n);
    if (m == mutation::no_data) data0 = relation(n);
    if (m == mutation::no_ctrl) ctrl0 = relation(n);
    if (m == mutation::ctrl_forward_closed) ctrl0 = ctrl0 | seq(ctrl0, po);
    if (m == mutation::no_rmw_data) data0 = data0 - rmw;
    const relation carry_dep = m == mutation::no_carry_dep ? id : seq(data0, rfi).star();
    const relation addr = seq(carry_dep, addr0);
    const relation ctrl = seq(carry_dep, ctrl0);
    const relation data = seq(carry_dep, data0);

    // ---- linux-kernel.cat: basic relations ----
    const relation acq_po = seq(seq(on(Acquire), po), on(s.M));
    const relation po_rel = seq(seq(on(s.M), po), on(Release));
    const relation po_unlock_lock_po = seq(seq(seq(seq(po, on(s.UL)), po | rf), on(s.LKR)), po);
    const event_set R4rmb = s.R - Noreturn;
    const relation rmb = seq(seq(on(R4rmb), fencerel(po, s.Rmb)), on(R4rmb));
    const relation wmb = seq(seq(on(s.W), fencerel(po, s.Wmb)), on(s.W));
    const relation mb =
        seq(seq(on(s.M), fencerel(po, Mb)), on(s.M)) | seq(seq(on(s.M), po), on(Mb & s.R)) |
        seq(seq(on(Mb & s.W), po), on(s.M)) |
        seq(seq(seq(seq(on(s.M), fencerel(po, s.Before_atomic)), on(s.RMW)), po.opt()), on(s.M)) |
        seq(seq(seq(seq(on(s.M), po.opt()), on(s.RMW)), fencerel(po, s.After_atomic)), on(s.M)) |
        seq(seq(seq(seq(on(s.M), po.opt()), on(s.LKW)), fencerel(po, s.After_spinlock)), on(s.M)) |
        seq(seq(seq(seq(on(s.M), po_unlock_lock_po), on(s.After_unlock_lock)), po), on(s.M));
    const relation& strong_fence = mb;  // gp is empty without RCU
    const relation nonrw_fence = strong_fence | po_rel | acq_po;
    const relation fence = nonrw_fence | wmb | rmb;
    const relation barrier = fencerel(po, s.Barrier | s.Rmb | s.Wmb | Mb | s.Before_atomic |
                                              s.After_atomic | Acquire | Release) |
                             seq(po, on(Release)) | seq(on(Acquire), po);

    // ---- preserved program order, propagation, happens-before ----
    const relation dep = addr | data;
    const relation rwdep = seq(dep | ctrl, on(s.W));
    const relation overwrite = co | fr;
    const relation to_w = rwdep | (overwrite & internal) | seq(seq(addr, on(Plain)), wmb);
    const relation to_r = seq(addr, on(s.R)) | seq(seq(dep, on(Marked)), rfi);
    const relation ppo = to_r | to_w | (fence & internal) | (po_unlock_lock_po & internal);
    auto a_cumul = [&](const relation& r) { return seq(seq(rfe, on(Marked)).opt(), r); };
    const relation rmw_sequence = seq(rf, rmw).star();
    const relation cumul_fence = seq(
        seq(seq(on(Marked), a_cumul(strong_fence | po_rel) | wmb | po_unlock_lock_po), on(Marked)),
        rmw_sequence);
    const relation prop = seq(
        seq(seq(seq(seq(on(Marked), (overwrite & external).opt()), cumul_fence.star()), on(Marked)),
            rfe.opt()),
        on(Marked));
    const relation hb = seq(seq(on(Marked), ppo | rfe | ((prop - id) & internal)), on(Marked));
    if (m != mutation::no_happens_before && !hb.acyclic()) return fail("happens-before");
    const relation pb = seq(seq(seq(prop, strong_fence), hb.star()), on(Marked));
    if (m != mutation::no_propagation && !pb.acyclic()) return fail("propagation");
    // rcu: rb is empty without RCU, so `irreflexive rb` holds.

    // ---- plain accesses ----
    const relation mixed = seq(seq(on(Plain & s.W), po_loc - barrier), on(Marked)) |
                           seq(seq(on(Marked), po_loc - barrier), on(Plain & s.W));
    if (!Plain.empty()) {  // otherwise pre-race is empty, and so are the incoh and race sets
        const relation xbstar = (hb | pb).star();
        const relation vis = seq(seq(seq(cumul_fence.star(), rfe.opt()), on(Marked)),
                                 seq(seq(strong_fence, on(Marked)), xbstar) | (xbstar & internal));
        const relation w_pre_bounded = seq(on(Marked), (addr | fence).opt());
        const relation r_pre_bounded =
            seq(on(Marked), (addr | nonrw_fence |
                             seq(seq(on(R4rmb), fencerel(po, s.Rmb)), on(Noreturn.complement())))
                                .opt());
        const relation w_post_bounded = seq(seq(fence.opt(), on(Marked)), rmw_sequence);
        const relation r_post_bounded =
            seq((nonrw_fence | seq(seq(on(Noreturn.complement()), fencerel(po, s.Rmb)), on(R4rmb)))
                    .opt(),
                on(Marked));
        const relation ww_vis = fence | seq(seq(strong_fence, xbstar), w_pre_bounded) |
                                seq(seq(w_post_bounded, vis), w_pre_bounded);
        const relation wr_vis = fence | seq(seq(strong_fence, xbstar), r_pre_bounded) |
                                seq(seq(w_post_bounded, vis), r_pre_bounded);
        const relation rw_xbstar = fence | seq(seq(r_post_bounded, xbstar), w_pre_bounded);
        const relation pre_race =
            external & (relation::product(Plain, s.M) | relation::product(s.M - s.IW, Plain));
        const relation wr_incoh = pre_race & rf & rw_xbstar.inverse();
        const relation rw_incoh = pre_race & fr & wr_vis.inverse();
        const relation ww_incoh = pre_race & co & ww_vis.inverse();
        if (m != mutation::no_plain_coherence && !(wr_incoh | rw_incoh | ww_incoh).empty())
            return fail("plain-coherence");
        const relation ww_nonrace = ww_vis & (relation::product(Marked, s.W) | rw_xbstar) &
                                    (relation::product(s.W, Marked) | wr_vis);
        const relation ww_race = (pre_race & co) - ww_nonrace;
        const relation wr_race = (pre_race & seq(co.opt(), rf)) - wr_vis - rw_xbstar.inverse();
        const relation rw_race = (pre_race & fr) - rw_xbstar;
        if (!(ww_race | wr_race | rw_race).empty()) v.flags.insert("data-race");
    }
    if (!mixed.empty()) v.flags.insert("mixed-accesses");
    if (!(s.UL - crit.range()).empty()) v.flags.insert("unmatched-unlock");
    v.consistent = true;
    return v;
}

}  // namespace kverify::lkmm_oracle
