// SPDX-License-Identifier: GPL-2.0-only
// The events of a graph numbered for the LKMM's relations: the LKMM's tags of each (its kind,
// its kernel primitive, for `automatic` its C11 order), the numbering of a graph or of the graph
// a load-buffering revisit would build, the tasks' events alone, and coherence checked location
// by location before any relation is built (lkmm_frame.hpp).
#include "model/dpor/lkmm_frame.hpp"

#include <algorithm>

namespace kverify::dpor::detail::lkmm_impl {

namespace {

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

}  // namespace

void number_events(const graph& g, const std::vector<std::vector<char>>* keep, eid r, eid w,
                   frame& f) {
    f.n = 0;
    f.ids.clear();
    f.evs.clear();
    f.patched.clear();
    f.tags.clear();
    f.reads_harness.clear();
    f.index.resize(g.th.size());
    auto kept = [&](unsigned t, std::uint32_t i) {
        return !keep || (i < (*keep)[t].size() && (*keep)[t][i] && g.th[t][i].kind != ek::hole);
    };
    f.spawn_at = g.spawn_at;
    if (keep && !g.th.empty() && f.spawn_at != UINT32_MAX) {
        std::uint32_t len = 0;  // thread 0's length once cut
        for (std::uint32_t i = 0; i < g.th[0].size(); ++i)
            if (kept(0, i)) len = i + 1;
        if (len < f.spawn_at) f.spawn_at = UINT32_MAX;
    }
    for (unsigned t = 0; t < g.th.size(); ++t) {
        f.index[t].assign(g.th[t].size(), frame::npos);
        for (std::uint32_t i = 0; i < g.th[t].size(); ++i) {
            const event& e = g.th[t][i];
            if (!e.is_access() && e.kind != ek::fence) continue;
            if (!kept(t, i)) continue;
            f.index[t][i] = f.n++;
            f.ids.push_back(eid{std::uint16_t(t), i});
            f.evs.push_back(&e);
        }
    }
    std::size_t lists = 0;
    for (const auto& kv : g.co) {
        if (f.co.size() == lists) f.co.emplace_back();
        std::vector<std::size_t>& list = f.co[lists];
        list.clear();
        for (eid x : kv.second)
            if (f.num(x) != frame::npos) list.push_back(f.num(x));
        if (!list.empty()) ++lists;
    }
    f.co.resize(lists);
    if (keep) {
        f.patched.reserve(f.n);
        thread_local std::vector<std::size_t> copy_of;  // per number: its copy's place + 1, or 0
        copy_of.assign(f.n, 0);
        auto patch = [&](std::size_t k) -> event& {
            if (!copy_of[k]) {
                f.patched.push_back(*f.evs[k]);
                copy_of[k] = f.patched.size();
                f.evs[k] = &f.patched.back();
            }
            return f.patched[copy_of[k] - 1];
        };
        // The newest kept write of each location, for the reads whose write is gone.
        for (std::size_t k = 0; k < f.n; ++k) {
            const event& e = f.ev(k);
            if (!e.is_read() || f.num(e.rf) != frame::npos) continue;
            const auto& list = g.co.at(e.loc);
            for (std::size_t j = list.size(); j-- > 0;)
                if (f.num(list[j]) != frame::npos) {
                    event& p = patch(k);
                    p.rf = list[j];
                    p.val = f.ev(f.num(list[j])).val;
                    break;
                }
        }
        // (A cas dropped before r in its thread drops r too, lb.cpp: close_keep; the graph is
        // then checked without it, and the revisit is refused when it is applied.)
        if (f.num(r) != frame::npos) {
            event& re = patch(f.num(r));
            re.rf = w;
            re.val = g.at(w).val;
        }
    }
    for (const event* e : f.evs) f.tags.push_back(tags_of(*e));
    f.by_loc.clear();
    for (std::size_t k = 0; k < f.n; ++k)
        if (f.ev(k).is_access()) f.by_loc.emplace_back(f.ev(k).loc, std::uint32_t(k));
    std::sort(f.by_loc.begin(), f.by_loc.end());
}

// Everything lkmm.cpp reads of a frame and its graph: per number the event's place, its tags
// and fields, the number of its write (a write of the harness's read by a task counts too:
// tasks_only), its dependency lists; the coherence orders by location (f.co's order is the
// graph's map's, which its copies need not keep).
lkmm_key key_of(const graph& g, const frame& f) {
    word_hash h;
    auto add_list = [&](const dep_list& v) {
        h.add(v.size());
        for (const std::uint32_t x : v) h.add(x);
    };
    h.add(f.n);
    h.add(f.spawn_at);
    for (std::size_t k = 0; k < f.n; ++k) {
        const event& e = f.ev(k);
        h.add(std::uint64_t(f.ids[k].t) << 32 | f.ids[k].i);
        h.add(std::uint64_t(f.tags[k]) << 32 | std::uint64_t(e.kind) << 24 |
              std::uint64_t(e.rmw) << 16 | std::uint64_t(e.op) << 8 | e.width);
        h.add(e.loc);
        h.add(e.val);
        h.add(e.arg);
        if (e.is_read()) {
            h.add(f.num(e.rf));
            h.add(e.rf.valid() ? e.rf.t : 0xffff);
        }
        const dep_rec* d = g.deps_of(e);
        h.add(d != nullptr);
        if (d) {
            add_list(d->addr);
            add_list(d->data);
            add_list(d->ctrl);
        }
    }
    thread_local std::vector<std::pair<std::uintptr_t, std::size_t>> lists;
    lists.clear();
    for (std::size_t j = 0; j < f.co.size(); ++j) lists.emplace_back(f.ev(f.co[j][0]).loc, j);
    std::sort(lists.begin(), lists.end());
    for (const auto& l : lists) {
        h.add(f.co[l.second].size());
        for (const std::size_t k : f.co[l.second]) h.add(k);
    }
    return h.get();
}

namespace {

using dfs_stack = std::vector<std::pair<std::uint32_t, std::size_t>>;

// Whether the graph on nodes 0..n-1 with successor lists `adj` has no cycle: depth-first search
// with colours (0 unseen, 1 on the stack, 2 done), in buffers the caller reuses.
bool adjacency_acyclic(const std::vector<std::vector<std::uint32_t>>& adj, std::size_t n,
                       std::vector<std::uint8_t>& colour, dfs_stack& stack) {
    colour.assign(n, 0);
    for (std::uint32_t s = 0; s < n; ++s) {
        if (colour[s]) continue;
        colour[s] = 1;
        stack.assign(1, {s, 0});
        while (!stack.empty()) {
            auto& [v, next] = stack.back();
            if (next == adj[v].size()) {
                colour[v] = 2;
                stack.pop_back();
                continue;
            }
            const std::uint32_t u = adj[v][next++];
            if (colour[u] == 1) return false;
            if (colour[u] == 0) {
                colour[u] = 1;
                stack.emplace_back(u, 0);
            }
        }
    }
    return true;
}

}  // namespace

// Coherence (acyclic po-loc | spawn-join-loc | rf | co | fr) location by location, on a graph
// with an edge set reduced to what makes the same cycles: program order and coherence between
// neighbours, fr from a read to the write right after the one it reads, spawn and join through
// one node each. Every edge found is one of the relations' (or a path of them), so a cycle
// here is one of the axiom's; a graph that passes is checked again with the relations (lkmm.cpp).
// Cheap where those cost a relation over every pair of events, and most revisit candidates
// fail here.
bool coherence_may_hold(const frame& f) {
    const std::size_t n = f.n;
    // (Buffers kept per thread: this runs for every graph checked.)
    const auto& acc = f.by_loc;
    thread_local std::vector<std::uint32_t> co_next, local;
    thread_local std::vector<std::vector<std::uint32_t>> adj;
    thread_local std::vector<std::uint8_t> colour;
    thread_local dfs_stack stack;
    co_next.assign(n, UINT32_MAX);  // the next write in coherence
    for (const auto& list : f.co)
        for (std::size_t j = 0; j + 1 < list.size(); ++j)
            co_next[list[j]] = std::uint32_t(list[j + 1]);
    local.assign(n, UINT32_MAX);
    const bool spawned = f.spawn_at != UINT32_MAX;
    for (std::size_t b = 0, e = 0; b < acc.size(); b = e) {
        for (e = b; e < acc.size() && acc[e].first == acc[b].first; ++e)
            local[acc[e].second] = std::uint32_t(e - b);
        const std::uint32_t m = std::uint32_t(e - b), spawn = m, join = m + 1;
        if (adj.size() < m + 2) adj.resize(m + 2);
        for (std::uint32_t k = 0; k < m + 2; ++k) adj[k].clear();
        auto edge = [&](std::uint32_t from_num, std::uint32_t to_num) {
            if (from_num < n && to_num < n && local[from_num] < m && local[to_num] < m &&
                f.ev(from_num).loc == acc[b].first && f.ev(to_num).loc == acc[b].first)
                adj[local[from_num]].push_back(local[to_num]);
        };
        for (std::size_t x = b; x < e; ++x) {
            const std::uint32_t k = acc[x].second;
            const eid id = f.ids[k];
            if (x + 1 < e && f.ids[acc[x + 1].second].t == id.t) edge(k, acc[x + 1].second);
            if (co_next[k] != UINT32_MAX) edge(k, co_next[k]);
            const event& ev = f.ev(k);
            if (ev.is_read()) {
                const std::size_t w = f.num(ev.rf);
                if (w != frame::npos) {
                    edge(std::uint32_t(w), k);
                    if (co_next[w] != UINT32_MAX) edge(k, co_next[w]);
                }
            }
            if (spawned) {
                if (id.t == 0 && id.i < f.spawn_at) adj[x - b].push_back(spawn);
                if (id.t == 0 && id.i >= f.spawn_at) adj[join].push_back(std::uint32_t(x - b));
                if (id.t != 0) {
                    adj[spawn].push_back(std::uint32_t(x - b));
                    adj[x - b].push_back(join);
                }
            }
        }
        if (!adjacency_acyclic(adj, m + 2, colour, stack)) return false;
        for (std::size_t x = b; x < e; ++x) local[acc[x].second] = UINT32_MAX;
    }
    return true;
}

// The same for the graph a load-buffering revisit builds from g (see lkmm_revisit_consistent),
// without building it, and only at the locations whose reads change there: r's, and those of
// the kept reads whose write is not kept (they read the newest kept write instead). Spawn and
// join are left out. Every edge is one of the candidate graph's (or a path of them), so a cycle
// here is one of the axiom's; elsewhere the kept graph's coherence is what it was, and the full
// check sees all of it.
bool revisit_coherence_may_hold(const graph& g, const std::vector<std::vector<char>>& keep, eid r,
                                eid w) {
    auto kept = [&](eid x) {
        return x.valid() && x.t < keep.size() && x.i < keep[x.t].size() && keep[x.t][x.i] &&
               g.at(x).kind != ek::hole;
    };
    thread_local std::vector<std::uintptr_t> locs;
    thread_local std::vector<eid> members, co_list;
    thread_local std::vector<std::vector<std::uint32_t>> adj;
    thread_local std::vector<std::uint32_t> co_succ;
    thread_local std::vector<std::uint8_t> colour;
    thread_local dfs_stack stack;
    locs.assign(1, g.at(r).loc);
    for (unsigned t = 0; t < g.th.size(); ++t)
        for (std::uint32_t i = 0; i < g.th[t].size(); ++i) {
            const event& e = g.th[t][i];
            if (e.is_read() && kept(eid{std::uint16_t(t), i}) && !kept(e.rf) &&
                std::find(locs.begin(), locs.end(), e.loc) == locs.end())
                locs.push_back(e.loc);
        }
    auto less = [](eid a, eid b) { return a.t != b.t ? a.t < b.t : a.i < b.i; };
    for (const std::uintptr_t loc : locs) {
        members.clear();
        for (unsigned t = 0; t < g.th.size(); ++t)
            for (std::uint32_t i = 0; i < g.th[t].size(); ++i) {
                const eid x{std::uint16_t(t), i};
                if (g.th[t][i].is_access() && g.th[t][i].loc == loc && kept(x))
                    members.push_back(x);
            }
        const std::uint32_t m = std::uint32_t(members.size());
        auto local = [&](eid x) {  // members are in (thread, index) order
            const auto it = std::lower_bound(members.begin(), members.end(), x, less);
            return it != members.end() && *it == x ? std::uint32_t(it - members.begin()) : m;
        };
        co_list.clear();
        const auto co_it = g.co.find(loc);
        if (co_it != g.co.end())
            for (eid x : co_it->second)
                if (kept(x)) co_list.push_back(x);
        adj.resize(m);
        for (auto& a : adj) a.clear();
        auto edge = [&](eid from, eid to) {
            const std::uint32_t a = local(from), b = local(to);
            if (a < m && b < m) adj[a].push_back(b);
        };
        // Per member, the member right after it in coherence (m: none), for fr.
        co_succ.assign(m, m);
        for (std::size_t j = 0; j + 1 < co_list.size(); ++j) {
            edge(co_list[j], co_list[j + 1]);
            const std::uint32_t a = local(co_list[j]);
            if (a < m) co_succ[a] = local(co_list[j + 1]);
        }
        for (std::uint32_t k = 0; k < m; ++k) {
            const eid x = members[k];
            if (k + 1 < m && members[k + 1].t == x.t) edge(x, members[k + 1]);
            const event& e = g.at(x);
            if (!e.is_read()) continue;
            eid from = e.rf;
            if (x == r)
                from = w;
            else if (!kept(from))
                from = co_list.empty() ? eid{} : co_list.back();
            if (!from.valid()) continue;
            edge(from, x);
            const std::uint32_t fl = local(from);
            if (fl < m && co_succ[fl] < m) adj[k].push_back(co_succ[fl]);
        }
        if (!adjacency_acyclic(adj, m, colour, stack)) return false;
    }
    return true;
}

// The tasks' events of f alone: the harness (thread 0, numbered first) left out, and with it
// spawn and join, for the axioms after coherence (lkmm.cpp), on a graph whose coherence holds
// (coherence_may_hold, on every event) and whose tasks have started. The verdicts are the same:
// - No edge of a relation there leaves a task event for a harness event before the spawn, nor
//   a harness event after the join for an event before it. Each relation is built from po, rf,
//   co, fr, sj, the declared dependencies and rmw, with identities, by union, intersection,
//   difference, sequence and closure; an rf, co or fr edge against that order closes a
//   coherence cycle with sj or po-loc, and the other edges follow program order or run from the
//   spawn and to the join. So no path between two task events passes through the harness, and
//   a cycle through a harness event would stay among the harness's events, in program order.
// - The one edge between task events computed through the harness is fr from a task's read of
//   a harness write (before the spawn) to every task write of its location, each of which is
//   after that write in coherence (sj): reads_harness marks those reads (lkmm.cpp adds it).
// - The pairs plain-coherence judges across the spawn or the join are ordered by sj.
// The relations have about a third fewer rows and columns on the objpool checks. Not for the
// flags: mixed-accesses looks inside the harness's thread. Tested against the check on every
// event (tests/engine/lkmm_tasks_only_test.cpp).
void tasks_only(const frame& f, frame& t) {
    std::size_t k0 = 0;  // the harness's events are numbers [0, k0)
    while (k0 < f.n && f.ids[k0].t == 0) ++k0;
    t.n = f.n - k0;
    t.ids.assign(f.ids.begin() + std::ptrdiff_t(k0), f.ids.end());
    t.evs.assign(f.evs.begin() + std::ptrdiff_t(k0), f.evs.end());
    t.tags.assign(f.tags.begin() + std::ptrdiff_t(k0), f.tags.end());
    t.index.resize(f.index.size());
    for (std::size_t th = 0; th < t.index.size(); ++th) {
        t.index[th].assign(f.index[th].begin(), f.index[th].end());
        for (std::size_t& k : t.index[th])
            if (k != frame::npos) k = th == 0 ? frame::npos : k - k0;
    }
    t.reads_harness.assign(t.n, 0);
    for (std::size_t k = 0; k < t.n; ++k) {
        const event& e = t.ev(k);
        if (e.is_read() && e.rf.valid() && e.rf.t == 0 && f.num(e.rf) != frame::npos)
            t.reads_harness[k] = 1;
    }
    std::size_t lists = 0;
    for (const auto& list : f.co) {
        if (t.co.size() == lists) t.co.emplace_back();
        std::vector<std::size_t>& kept = t.co[lists];
        kept.clear();
        for (const std::size_t k : list)
            if (k >= k0) kept.push_back(k - k0);
        if (!kept.empty()) ++lists;
    }
    t.co.resize(lists);
    t.by_loc.clear();  // (the order stays)
    for (const auto& a : f.by_loc)
        if (a.second >= k0) t.by_loc.emplace_back(a.first, std::uint32_t(a.second - k0));
    t.spawn_at = UINT32_MAX;  // so sj is empty
}

}  // namespace kverify::dpor::detail::lkmm_impl
