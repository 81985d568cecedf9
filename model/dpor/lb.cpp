// SPDX-License-Identifier: GPL-2.0-only
// The exploration under the LKMM (model/dpor/README.md, Load buffering). The LKMM allows a read
// to read a write that follows it through program order and reads-from (load buffering), as long
// as the write does not depend on the read. So a backward revisit of read r by write w keeps,
// besides the events added before r, w's porf prefix only where it matters: the events w depends
// on (its dependency prefix: through the dependencies the program declared, reads-from and RMW
// pairs) stay as they are; the other events of r's thread after r, and every event that depends
// on one that changes, become holes: places the next run fills anew, with their alternatives,
// as the program produces them (events.cpp). A replay that goes another way than the kept events
// (an undeclared dependency, a branch taken differently before a kept event) marks the search
// incomplete (events.cpp, diverged).
// TruSt's conditions that make every graph come from one place (maximal extensions, frozen
// prefixes) are written for porf-acyclic models; under load buffering they lose graphs (the
// generated tests against herd7 and the oracle show it). So under the LKMM every consistent
// revisit is taken, and what was explored is not explored again: the explorer keeps a
// fingerprint of every complete execution it counts, and of every start of a run (fingerprint.cpp).
// The search is then complete by the same argument as without the reduction, at the price of
// runs that end on an execution already counted (result::replays counts every run).
// Where a run starts: what the subtree of a run explores depends on its graph and on the work
// the alternative left with it (the writes whose revisits are computed when the replay ends, the
// reads a revisit added anew with their alternatives), and not on the order in which the graph's
// events were added, provided that a kept read whose write a revisit deletes is added anew (a
// new stamp, every write it may read as an alternative: apply_lkmm) and that a context's
// alternatives are taken in stamp order (explorer::push_item). So a start is known by those
// (start_fingerprint). Until December 2026 it was known by the graph, the insertion order and
// the flags as well, a read kept so holding its old stamp and no alternatives: equal
// graphs reached in another order were run again, up to hundreds of times each (proofs/engines.md,
// Cost). The evidence that nothing is lost is the differential test against the LKMM oracle on
// generated programs and the unchanged count of every pinned dpor-lkmm row that passes.
#include <algorithm>

#include "model/dpor/explorer.hpp"
#include "model/dpor/lkmm.hpp"

namespace kverify::dpor::detail {

// The porf prefix of event e from the graph alone (the run's clocks do not follow a read to a
// write that has not run yet): per thread the length of the prefix that reaches e through po,
// rf, spawn and join.
vclock explorer::graph_porf(eid e) const {
    const graph& gr = g();
    vclock c;
    c.c[e.t] = e.i + 1;
    for (bool changed = true; changed;) {
        changed = false;
        auto need = [&](unsigned t, std::uint32_t len) {
            if (c.c[t] < len) {
                c.c[t] = len;
                changed = true;
            }
        };
        for (unsigned t = 0; t < nthreads_; ++t) {
            const std::uint32_t len = std::min<std::uint32_t>(c.c[t], gr.th[t].size());
            for (std::uint32_t i = 0; i < len; ++i) {
                const event& x = gr.th[t][i];
                if (x.is_read() && x.rf.valid()) need(x.rf.t, x.rf.i + 1);
            }
            if (len == 0 || gr.spawn_at == UINT32_MAX) continue;
            if (t != 0) need(0, gr.spawn_at);
            if (t == 0 && len > gr.spawn_at)
                for (unsigned u = 1; u < nthreads_; ++u) need(u, std::uint32_t(gr.th[u].size()));
        }
    }
    return c;
}

// The events w's existence, location and value depend on: backwards from w through the declared
// dependencies, reads-from, RMW pairs, and the cas reads and choices before an event in its
// thread (they decide where it is), and w itself.
std::vector<std::vector<char>> explorer::dependency_prefix(eid w) const {
    const graph& gr = g();
    std::vector<std::vector<char>> in(nthreads_);
    for (unsigned t = 0; t < nthreads_; ++t) in[t].assign(gr.th[t].size(), 0);
    std::vector<eid> work{w};
    in[w.t][w.i] = 1;
    // Per thread, the events before this place were looked at for cas reads and choices.
    std::vector<std::uint32_t> scanned(nthreads_, 0);
    // The opaque lists are walked added part by added part, to a part walked already (graph.hpp,
    // opaque_list_node): this walk's number marks them.
    static std::atomic<std::uint64_t> walks{0};
    const std::uint64_t walk = walks.fetch_add(1, std::memory_order_relaxed) + 1;
    auto add = [&](eid x) {
        if (!x.valid() || x.i >= in[x.t].size() || in[x.t][x.i]) return;
        in[x.t][x.i] = 1;
        work.push_back(x);
    };
    while (!work.empty()) {
        const eid x = work.back();
        work.pop_back();
        const event& e = gr.at(x);
        if (e.is_read()) add(e.rf);
        if (e.is_write() && e.rmw != rmw_op::none && x.i > 0) add(eid{x.t, x.i - 1});
        if (const dep_rec* d = gr.deps_of(e)) {
            for (const auto* v : {&d->addr, &d->data, &d->ctrl})
                for (std::uint32_t k : *v) add(eid{x.t, k});
            for (const opaque_list_node* o = d->opaque.get();
                 o && o->walked.load(std::memory_order_relaxed) != walk; o = o->parent.get()) {
                o->walked.store(walk, std::memory_order_relaxed);
                for (std::uint32_t k : o->added) add(eid{x.t, k});
            }
        }
        // Where x is in its thread depends on every cas before it (its write half comes or
        // goes with its outcome) and on every choice before it (it picks the way).
        for (std::uint32_t k = scanned[x.t]; k < x.i; ++k) {
            const event& p = gr.th[x.t][k];
            if ((p.is_read() && p.may_fail()) || p.kind == ek::choice) add(eid{x.t, k});
        }
        scanned[x.t] = std::max(scanned[x.t], x.i);
    }
    return in;
}

// The events that may come out otherwise when read r reads another write: forwards from r through
// the declared dependencies, reads-from, RMW pairs, and after a cas among them the rest of its
// thread (its outcome moves it).
std::vector<std::vector<char>> explorer::dependents(eid r) const {
    const graph& gr = g();
    std::vector<std::vector<char>> d(nthreads_);
    for (unsigned t = 0; t < nthreads_; ++t) d[t].assign(gr.th[t].size(), 0);
    d[r.t][r.i] = 1;
    for (bool changed = true; changed;) {
        changed = false;
        for (unsigned t = 0; t < nthreads_; ++t) {
            bool after_cas = false;  // a cas or claim that may flip comes before, in this thread
            for (std::uint32_t i = 0; i < gr.th[t].size(); ++i) {
                const event& x = gr.th[t][i];
                bool dep = after_cas;
                if (x.is_read() && x.rf.valid() && x.rf.i < d[x.rf.t].size() && d[x.rf.t][x.rf.i])
                    dep = true;
                if (x.is_write() && x.rmw != rmw_op::none && i > 0 && d[t][i - 1]) dep = true;
                if (const dep_rec* dr = gr.deps_of(x))
                    dr->for_each_list([&](const dep_list& v) {
                        for (std::uint32_t k : v)
                            if (k < i && d[t][k]) dep = true;
                    });
                if (dep && !d[t][i]) {
                    d[t][i] = 1;
                    changed = true;
                }
                if (d[t][i] && x.is_read() && x.may_fail()) after_cas = true;
            }
        }
    }
    return d;
}

// Removes from `keep` what cannot stay once r reads another write: what depends on a removed
// event (a declared dependency, an RMW's other half, a read of a removed write; after a cas
// run anew, the rest of its thread). A read whose
// write is gone and that is the last kept event of its thread stays: it reads the newest write,
// as TruSt has it (explorer::apply).
void explorer::close_keep(graph& gr, std::vector<std::vector<char>>& keep, eid r) const {
    auto kept = [&](eid x) {
        return x.valid() && x.i < keep[x.t].size() && keep[x.t][x.i] && gr.at(x).kind != ek::hole;
    };
    for (bool changed = true; changed;) {
        changed = false;
        for (unsigned t = 0; t < nthreads_; ++t) {
            std::uint32_t last = 0;
            for (std::uint32_t i = 0; i < keep[t].size(); ++i)
                if (keep[t][i]) last = i + 1;
            // The first event of t not kept: a list of dependencies (sorted, collect_deps; the
            // moves of graph::insert_event keep the order) that ends before it is all kept.
            std::uint32_t gap = 0;
            while (gap < keep[t].size() && keep[t][gap]) ++gap;
            for (std::uint32_t i = 0; i < keep[t].size(); ++i) {
                if (!keep[t][i] || (t == r.t && i == r.i)) continue;
                const event& x = gr.th[t][i];
                bool drop = x.kind == ek::hole || (x.is_read() && !kept(x.rf) && i + 1 != last) ||
                            (x.is_write() && x.rmw != rmw_op::none && i > 0 && !keep[t][i - 1]) ||
                            (x.is_read() && x.rmw != rmw_op::none && x.rmw_succeeds() &&
                             i + 1 < keep[t].size() && !keep[t][i + 1]);
                if (!drop)  // (the first dependency not kept decides)
                    if (const dep_rec* d = gr.deps_of(x))
                        d->for_each_list([&](const dep_list& v) {
                            if (drop || v.empty() || v.back() < gap) return;
                            for (std::uint32_t k : v)
                                if (k < keep[t].size() && !keep[t][k]) {
                                    drop = true;
                                    break;
                                }
                        });
                if (drop) {
                    keep[t][i] = 0;
                    gap = std::min(gap, i);
                    changed = true;
                    // A cas (or claim) run anew may succeed or fail: what follows it would
                    // move (its write half comes or goes), so it is run anew too.
                    if (x.is_read() && x.may_fail())
                        for (std::uint32_t k = i + 1; k < keep[t].size(); ++k) keep[t][k] = 0;
                }
            }
        }
    }
}

void explorer::lkmm_revisits(eid w) {
    const event& we = ev(w);
    if (we.init) return;
    const loc_rt& l = locs_.at(we.loc);
    const graph& gr = g();
    // w's porf and dependency prefixes: made for the first read that passes the cheap tests
    // below (most writes have none).
    vclock pw;
    std::vector<std::vector<char>> dprefix;
    bool prefixes = false;
    std::vector<eid> readers = l.readers;
    std::vector<std::vector<char>> keep;  // per candidate, reused
    for (eid r : readers) {
        // A read before w in program order (w's own read half among them) or, for a task's
        // read, before the join that w in the harness's code after the tasks follows: reading w
        // would close a cycle of po-loc and rf (coherence). Most candidates are such reads.
        if (r.t == w.t && r.i < w.i) continue;
        if (w.t == 0 && r.t != 0 && gr.spawn_at != UINT32_MAX && w.i >= gr.spawn_at) continue;
        // The harness's setup runs before every task (spawn): a task's write is never read
        // there. (Such a revisit would cut the setup short and lose the spawn point with it,
        // and the consistency check would no longer see the order.)
        if (r.t == 0 && w.t != 0 && (gr.spawn_at == UINT32_MAX || r.i < gr.spawn_at)) continue;
        const event& re = ev(r);
        if (re.kind != ek::read) continue;
        // A read added after w (a hole filled later in the same run) had w among its choices.
        if (re.stamp > we.stamp) continue;
        if (!prefixes) {
            pw = graph_porf(w);
            dprefix = dependency_prefix(w);
            prefixes = true;
        }
        // An RMW whose write half w depends on: r reading w closes rf ; rmw into a cycle through
        // w's prefix. Were r to succeed, each RMW would have to be just after the other in co
        // (atomicity); were it to fail, the write half w depends on would be gone. No such
        // graph exists, and keeping the old write half beside a new one would corrupt it.
        if (re.rmw != rmw_op::none && r.i + 1 < gr.th[r.t].size()) {
            const event& rw = gr.th[r.t][r.i + 1];
            if (rw.is_write() && rw.rmw != rmw_op::none && dprefix[r.t][r.i + 1]) continue;
        }
        // If w depends on r (its value, place or existence), the graph where r reads w exists
        // only if w comes out the same with r's new value: the kept events that depend on r
        // are marked, and a replay where one of them comes out otherwise drops the graph as
        // one no run produces (counted, events.cpp: diverged).
        // Kept: what was added before r, and w's porf prefix; but of r's thread after r only
        // what w depends on; then what depends on nothing removed.
        keep.resize(nthreads_);
        for (unsigned t = 0; t < nthreads_; ++t) {
            keep[t].assign(gr.th[t].size(), 0);
            for (std::uint32_t i = 0; i < gr.th[t].size(); ++i) {
                const event& x = gr.th[t][i];
                if (x.kind == ek::hole) continue;
                keep[t][i] = x.stamp <= re.stamp || i < pw.c[t];
                // Of r's thread, what was added after r is run anew unless w depends on it.
                if (t == r.t && i > r.i && x.stamp > re.stamp && !dprefix[t][i]) keep[t][i] = 0;
            }
        }
        keep[r.t][r.i] = 1;
        graph& mg = stack_[ci_].g;
        close_keep(mg, keep, r);
        if (!keep[w.t][w.i]) continue;  // w itself depends on what changes
        // Atomicity: w itself may be an RMW write half placed after a write another RMW reads
        // (see complete_rmw); a revisit is consistent only if it deletes one of the two.
        if (we.rmw != rmw_op::none) {
            const eid wr = ev(eid{w.t, w.i - 1}).rf;
            bool clash = false;
            for (unsigned t = 0; t < nthreads_; ++t)
                for (std::uint32_t i = 1; i < gr.th[t].size(); ++i) {
                    const event& x = gr.th[t][i];
                    const eid xe{std::uint16_t(t), i};
                    if (xe == w || !x.is_write() || x.rmw == rmw_op::none || !keep[t][i]) continue;
                    if (gr.th[t][i - 1].rf == wr && !(xe.t == r.t && xe.i - 1 == r.i)) clash = true;
                }
            if (clash) continue;
        }
        // The graph this revisit builds, checked without building it.
        lkmm_key checked;
        if (!lkmm_revisit_consistent(gr, keep, r, w, &checked)) continue;
        const std::vector<std::vector<char>> fwd = dependents(r);
        item it;
        it.kind = item::bwd;
        it.stamp = we.stamp;
        it.e = r;
        it.w = w;
        for (unsigned t = 0; t < nthreads_; ++t)
            for (std::uint32_t i = 0; i < gr.th[t].size(); ++i)
                if (keep[t][i] && fwd[t][i] && !(t == r.t && i == r.i))
                    it.speculative.push_back(eid{std::uint16_t(t), i});
        it.keepset = std::move(keep);
        it.checked = checked;
        push_item(stack_[ci_].work, std::move(it));
    }
}

namespace {
// Drops the dependency records no event refers to any more (their events were cut away or made
// holes): graph::deps only grows while events are added, so without this a context's graph,
// run again for each of its alternatives, would carry and copy the records of every run.
void drop_unused_deps(graph& gr) {
    std::vector<std::uint32_t> to(gr.deps.size(), 0);  // old record + 1 -> new record + 1
    std::vector<std::shared_ptr<const dep_rec>> kept;
    for (auto& t : gr.th)
        for (event& e : t) {
            if (!e.deps) continue;
            std::uint32_t& m = to[e.deps - 1];
            if (!m) {
                kept.push_back(std::move(gr.deps[e.deps - 1]));
                m = std::uint32_t(kept.size());
            }
            e.deps = m;
        }
    gr.deps = std::move(kept);
}
}  // namespace

// An alternative under the LKMM: the cuts keep holes where later events stay; a backward
// revisit builds its graph from the item's keep set. Returns the context to run.
std::size_t explorer::apply_lkmm(std::size_t ci, item it) {
    graph& gr = stack_[ci].g;
    gr.cut_to_stamp_holes(it.stamp);
    drop_unused_deps(gr);
    auto lost = [](const graph& x) {
        for (const auto& t : x.th)
            for (const event& e : t)
                if (e.is_read() && (e.rf.i >= x.th[e.rf.t].size() || x.at(e.rf).kind == ek::hole))
                    return true;
        return false;
    };
    switch (it.kind) {
        case item::fwd_read: {
            if (lost(gr)) internal_error("a forward alternative cut away a write a read kept");
            event& r = gr.at(it.e);
            r.rf = it.w;
            r.val = gr.at(it.w).val;
            r.added_max = false;
            r.ipr = false;
            complete_rmw(gr, it.e);
            return ci;
        }
        case item::fwd_choice: {
            if (lost(gr)) internal_error("a forward alternative cut away a write a read kept");
            event& c = gr.at(it.e);
            c.val = it.choice;
            c.added_max = false;
            return ci;
        }
        case item::fwd_co: {
            if (lost(gr)) internal_error("a forward alternative cut away a write a read kept");
            auto& list = gr.co.at(gr.at(it.e).loc);
            list.erase(std::find(list.begin(), list.end(), it.e));
            list.insert(std::find(list.begin(), list.end(), it.w) + 1, it.e);
            gr.at(it.e).added_max = false;
            post_replay_writes_.push_back(it.e);
            return ci;
        }
        case item::bwd:
            break;
    }
    context nc;
    nc.g = gr;
    graph& ng = nc.g;
    std::vector<std::vector<char>> keep = it.keepset;
    for (unsigned t = 0; t < nthreads_; ++t) keep[t].resize(ng.th[t].size(), 0);
    close_keep(ng, keep, it.e);
    if (!keep[it.w.t][it.w.i] || !keep[it.e.t][it.e.i]) {
        // The graph no longer keeps the revisit's read or write as it did when the revisit
        // was computed (seen after a branch or an RMW moved events in the middle of a thread).
        // Not applied: the search is then incomplete (inconclusive), never a pass.
        res_.complete = false;
        if (res_.incomplete_reason.empty())
            res_.incomplete_reason =
                "load buffering: a revisit's read or write is no longer kept when it is applied "
                "(an engine limit)";
        skip_apply_ = true;
        return ci;
    }
    ng.cut_to_keep(keep);
    drop_unused_deps(ng);
    event& r = ng.at(it.e);
    r.rf = it.w;
    r.val = ng.at(it.w).val;
    r.added_max = ng.co_max(r.loc) == it.w;
    r.ipr = false;
    for (eid x : it.speculative)
        if (x.i < ng.th[x.t].size() && ng.at(x).kind != ek::hole) ng.at(x).speculative = true;
    // A kept read whose write is gone is the last kept event of its thread (close_keep). It is
    // added anew once the revisited read's write half is in place: it reads the newest write,
    // with a stamp after every kept event and every other write it may read as an alternative,
    // as a read the program adds now would. (Kept with its old stamp and no alternatives, as
    // TruSt may do where prefixes are porf-closed, the exploration from a graph would depend on
    // the order its events were added in, and the starts could not be told apart by the graph:
    // fingerprint.cpp, start_fingerprint.) Marked now, while a write it read still shows as gone.
    for (auto& t : ng.th)
        for (event& e : t)
            if (e.is_read() && (e.rf.i >= ng.th[e.rf.t].size() || ng.at(e.rf).kind == ek::hole))
                e.rf = eid{};
    // Its write half: at the end, into the hole after it, or (a cas that now succeeds in the
    // middle of its thread) inserted; a cas that now fails loses the hole of its old one.
    const eid nx{it.e.t, it.e.i + 1};
    if (!r.rmw_succeeds() && r.may_fail() && nx.i < ng.th[nx.t].size() &&
        ng.at(nx).kind == ek::hole && ng.at(nx).rmw != rmw_op::none)
        ng.erase_event(nx.t, nx.i);
    complete_rmw(ng, it.e);
    readded_.clear();
    for (unsigned t = 0; t < ng.th.size(); ++t)
        for (std::uint32_t i = 0; i < ng.th[t].size(); ++i)
            if (ng.th[t][i].is_read() && !ng.th[t][i].rf.valid())
                readded_.push_back(eid{std::uint16_t(t), i});
    for (eid x : readded_) ng.at(x).rf = ng.co_max(ng.at(x).loc);  // (frontier reads them)
    for (eid x : readded_) {
        event& e = ng.at(x);
        e.rf = ng.co_max(e.loc);
        e.val = ng.at(e.rf).val;
        e.added_max = true;
        e.ipr = false;
        e.stamp = ng.next_stamp++;
        const std::vector<eid>& list = ng.co.at(e.loc);
        for (std::size_t k = lkmm_frontier(ng, x, e.loc); k + 1 < list.size(); ++k) {
            item a;
            a.kind = item::fwd_read;
            a.stamp = e.stamp;
            a.e = x;
            a.w = list[k];
            push_item(nc.work, std::move(a));
        }
        complete_rmw(ng, x);
    }
    stack_.push_back(std::move(nc));
    return stack_.size() - 1;
}

// After a hole was filled: the graph must still be consistent (a hole is not at the end of its
// thread, so the new event, unlike one added at the end, may close a cycle).
bool explorer::filled_hole_consistent() { return lkmm_consistent(g()); }

}  // namespace kverify::dpor::detail
