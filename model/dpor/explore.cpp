// SPDX-License-Identifier: GPL-2.0-only
// The exploration of the dpor engine (model/dpor/README.md): the stack of alternatives, each graph
// run once; forward revisits (another write read, another coherence place, another choice) and
// backward revisits (a read already in the graph reads a new write), taken only where TruSt's
// maximality condition makes every graph come from one place. Consistency is the memory model's.
#include <algorithm>
#include <cstdio>
#include <cstring>

#include "model/dpor/explorer.hpp"
#include "model/dpor/lkmm.hpp"

namespace kverify::dpor::detail {

result explorer::run() {
    start_ = clock_type::now();
    current = this;
    stack_.assign(1, context{});
    stack_[0].g.th.resize(nthreads_);
    if (!opt_.replay.empty()) {
        if (!decode_replay(opt_.replay, stack_[0].g))
            throw std::invalid_argument("dpor: malformed replay string");
        decoded_ = true;
        run_execution(0);
    } else {
        // The first run is chunk 0's (on several threads: the first thread's to take it).
        owned_ = split_.part == 0 && (!split_.shared || split_.shared->take(0));
        run_execution(0);
        if (split_.parts) split_mark_children(0, 1, 0);
        while (!stack_.empty() && !stop_all_) {
            const std::size_t ci = stack_.size() - 1;
            if (stack_[ci].work.empty()) {
                // (kept for a backward revisit to copy into; the LKMM's make their own, lb.cpp)
                if (opt_.model != memory_model::lkmm && spare_.size() < max_spare)
                    spare_.push_back(std::move(stack_.back()));
                stack_.pop_back();
                continue;
            }
            item it = std::move(stack_[ci].work.back());
            stack_[ci].work.pop_back();
            if (split_.parts && !split_enter(it)) continue;  // another part's subtree
            const std::size_t contexts = stack_.size(), items = stack_[ci].work.size();
            apply(ci, std::move(it));
            if (split_.parts) split_mark_children(ci, contexts, items);
        }
    }
    if (split_.shared && (cut_ || !res_.complete || !internal_msg_.empty()))
        split_.shared->cut_at[split_.thread] = roots_;
    if (split_.parts) {
        res_.split_depth = split_.depth;
        res_.split_roots = split_.census ? roots_ : split_.roots;
        if (!split_.census && !stop_all_ && internal_msg_.empty() && roots_ != split_.roots &&
            split_.help == UINT64_MAX)
            internal_msg_ =
                "a part of a split search met another number of subtrees than "
                "the census";
    }
    current = nullptr;
    if (!internal_msg_.empty()) throw std::logic_error("dpor: " + internal_msg_);
    res_.seconds = std::chrono::duration<double>(clock_type::now() - start_).count();
    return res_;
}

// The write half of an RMW whose read half now reads a value that makes it succeed goes right
// after that write in coherence order. If another RMW already reads that write, the graph breaks
// atomicity: apply() then only computes the revisits of the new write half (one of them makes the
// other RMW read it, which is how that consistent graph is reached) and drops the graph.
void explorer::complete_rmw(graph& gr, eid r) {
    event& re = gr.at(r);
    if (!re.rmw_succeeds()) return;
    event w;
    w.kind = ek::write;
    w.order = re.order;
    w.rmw = re.rmw;
    w.full = re.full;
    w.width = re.width;
    w.loc = re.loc;
    w.val = re.rmw_result(re.val);
    w.stamp = gr.next_stamp++;
    w.where = re.where;
    w.prim = re.prim;  // the halves share the primitive and the dependencies
    w.deps = re.deps;
    const eid we{r.t, r.i + 1};
    if (we.i < gr.th[r.t].size()) {
        // LKMM (lb.cpp): the place after it is a hole, or (a cas a backward revisit made
        // succeed in the middle of its thread) the events after it move up one.
        if (gr.th[r.t][we.i].kind == ek::hole)
            gr.th[r.t][we.i] = w;
        else
            gr.insert_event(r.t, we.i, w);
    } else {
        gr.th[r.t].push_back(w);
    }
    // (re is gone if the thread's events moved: read the read half again.)
    const event& rr = gr.at(r);
    auto& list = gr.co.at(rr.loc);
    list.insert(std::find(list.begin(), list.end(), rr.rf) + 1, we);
    post_replay_writes_.push_back(we);
}

void explorer::apply(std::size_t ci, item it) {
    post_replay_writes_.clear();
    graph& gr = stack_[ci].g;
    if (opt_.model == memory_model::lkmm) {  // holes and load buffering: lb.cpp
        const bool bwd = it.kind == item::bwd;
        const lkmm_key checked = it.checked;
        ci = apply_lkmm(ci, std::move(it));
        if (skip_apply_) {
            skip_apply_ = false;
            return;
        }
        // A start already explored (lb.cpp: no maximality under the LKMM) is not run again.
        const fingerprint key =
            start_fingerprint(stack_[ci].g, pointer_names_, post_replay_writes_, readded_);
        readded_.clear();
        if (!new_start(key)) {
            if (bwd) stack_.pop_back();
            return;
        }
        applied_key_ = bwd ? &checked : nullptr;
        after_apply(ci);
        return;
    }
    switch (it.kind) {
        case item::fwd_read: {
            gr.cut_to_stamp(it.stamp);
            undo_in_place(gr, it.stamp + 1);
            event& r = gr.at(it.e);
            r.rf = it.w;
            r.val = gr.at(it.w).val;
            r.added_max = false;
            r.ipr = false;
            complete_rmw(gr, it.e);
            break;
        }
        case item::fwd_choice: {
            gr.cut_to_stamp(it.stamp);
            undo_in_place(gr, it.stamp + 1);
            event& c = gr.at(it.e);
            c.val = it.choice;
            c.added_max = false;
            break;
        }
        case item::fwd_co: {
            gr.cut_to_stamp(it.stamp);
            undo_in_place(gr, it.stamp);  // the write's own too: they came after it
            auto& list = gr.co.at(gr.at(it.e).loc);
            list.erase(std::find(list.begin(), list.end(), it.e));
            list.insert(std::find(list.begin(), list.end(), it.w) + 1, it.e);
            gr.at(it.e).added_max = false;
            post_replay_writes_.push_back(it.e);
            break;
        }
        case item::bwd: {
            gr.cut_to_stamp(it.stamp);
            undo_in_place(gr, it.stamp + 1);
            context nc;
            if (!spare_.empty()) {
                nc = std::move(spare_.back());
                spare_.pop_back();
                nc.work.clear();
            }
            nc.g.assign(gr);
            graph& ng = nc.g;
            ng.cut_to_prefix(it.keep);
            // (the revisited read's earlier places are its parent's: here it reads w)
            ng.in_place.erase(std::remove_if(ng.in_place.begin(), ng.in_place.end(),
                                             [&](const in_place_rec& u) { return u.r == it.e; }),
                              ng.in_place.end());
            in_place_of_copy(ng);
            event& r = ng.at(it.e);
            r.rf = it.w;
            r.val = ng.at(it.w).val;
            r.added_max = ng.co_max(r.loc) == it.w;
            r.ipr = false;
            // The write's prefix is frozen from here on: its reads are never revisited again in
            // this branch (the graphs that would give are explored from the parent).
            for (unsigned t = 0; t < ng.th.size(); ++t)
                for (std::uint32_t i = 0; i < it.wprefix[t] && i < ng.th[t].size(); ++i)
                    ng.th[t][i].revisitable = false;
            // A kept read whose write was deleted can only be the last event of its thread
            // (what follows it was added later): it reads the newest write, as if added now.
            // (A wait revisited in place got back what it read before, above.)
            for (unsigned t = 0; t < ng.th.size(); ++t)
                for (std::uint32_t i = 0; i < ng.th[t].size(); ++i) {
                    event& e = ng.th[t][i];
                    if (!e.is_read() || e.rf.i < ng.th[e.rf.t].size()) continue;
                    if (i + 1 != ng.th[t].size())
                        internal_error("a kept read lost its write in the middle of a thread");
                    e.rf = ng.co_max(e.loc);
                    e.val = ng.at(e.rf).val;
                    e.added_max = true;
                    e.ipr = ng.at(e.rf).stamp > e.stamp;
                    complete_rmw(ng, eid{std::uint16_t(t), i});
                }
            complete_rmw(ng, it.e);
            stack_.push_back(std::move(nc));
            ci = stack_.size() - 1;
            break;
        }
    }
    after_apply(ci);
}

// An alternative onto a context's work list. The list is taken from its end, and an
// alternative cuts the graph back to its stamp, so the alternatives of later events must be
// taken first: under the LKMM, where an alternative may be left at an older stamp after newer
// ones (a revisit's write half, whose revisits are computed when the replay ends, after the
// reads the revisit added anew), it goes in at its place in stamp order. Elsewhere the list is
// built in that order.
void explorer::push_item(std::vector<item>& work, item it) {
    std::size_t at = work.size();
    if (opt_.model == memory_model::lkmm)
        while (at > 0 && work[at - 1].stamp > it.stamp) --at;
    work.insert(work.begin() + std::ptrdiff_t(at), std::move(it));
}

void explorer::after_apply(std::size_t ci) {
    const lkmm_key* known = applied_key_;  // (for this graph only)
    applied_key_ = nullptr;
    if (consistent_before_run(stack_[ci].g, known)) {
        run_execution(ci);
        return;
    }
    // An RMW completed after a revisit breaks atomicity: this graph is inconsistent and is not
    // explored, but the revisits of its new write half are (one of them makes the other RMW read
    // the new write: that is how the consistent graph is reached). The program is not run on an
    // inconsistent graph (its own invariants, e.g. a CPU token, would not hold): the views the
    // revisits need are computed from the graph alone.
    ci_ = ci;
    reset_execution();
    compute_views();
    const std::vector<eid> writes = std::move(post_replay_writes_);
    post_replay_writes_.clear();
    for (eid w : writes) calc_revisits(w);
}

// The happens-before and porf views of every event of the current graph, and the readers of each
// location, from the graph alone (what running the program computes in exec_read/write/other),
// in an order that respects po | rf | spawn | join.
void explorer::compute_views() {
    const graph& gr = g();
    std::vector<std::uint32_t> done(nthreads_, 0);
    bool spawned = gr.spawn_at == 0;
    bool joined = false;
    for (bool progress = true; progress;) {
        progress = false;
        for (unsigned t = 0; t < nthreads_; ++t) {
            thread_rt& x = th_[t];
            while (done[t] < gr.th[t].size()) {
                const eid id{std::uint16_t(t), done[t]};
                if (t != 0 && !spawned) break;
                if (t == 0 && gr.spawn_at != UINT32_MAX && id.i == gr.spawn_at && !joined) {
                    bool all = true;
                    for (unsigned u = 1; u < nthreads_; ++u)
                        all = all && done[u] == gr.th[u].size();
                    if (!all) break;
                    for (unsigned u = 1; u < nthreads_; ++u) {
                        x.hb.join(th_[u].hb);
                        x.hb.c[u] = std::max(x.hb.c[u], 2 * done[u] + 1);
                        x.porf.join(th_[u].porf);
                    }
                    joined = true;
                }
                const event& e = gr.at(id);
                // Under the LKMM a read may read a write that runs later (load buffering).
                if (e.is_read() && !is_done(e.rf) && opt_.model != memory_model::lkmm) break;
                if (e.fenced() && e.is_read()) {
                    x.hb.join(x.acq_pending);
                    x.rel_fence = x.hb;
                }
                ev_rt& d = rt(id);
                d.hb = x.hb;
                d.hb.stamp(id);
                d.porf = x.porf;
                d.porf.c[t] = id.i + 1;
                if (e.is_read()) {
                    if (!e.rf.valid() || e.rf.i >= rt_[e.rf.t].size())
                        internal_error("a read of the graph reads a write that is not in it " +
                                       thread_dump(id.t));
                    const ev_rt& w = rt(e.rf);
                    if (is_acquire(e.read_order()))
                        d.hb.join(w.msg);
                    else
                        x.acq_pending.join(w.msg);
                    d.porf.join(w.porf);
                    add_reader(locs_[e.loc], id, e.rf);
                } else if (e.is_write() && !e.init) {
                    d.msg = is_release(e.order) ? d.hb : x.rel_fence;
                    for (auto& p : x.rel_write)
                        if (p.first == e.loc) d.msg.join(p.second);
                    if (e.rmw != rmw_op::none) {
                        const event& r = gr.at(eid{id.t, id.i - 1});
                        if (!r.is_read() || r.rmw != e.rmw || !r.rf.valid() ||
                            r.rf.i >= rt_[r.rf.t].size())
                            internal_error("an RMW write half without its read half before it " +
                                           thread_dump(id.t));
                        d.msg.join(rt(r.rf).msg);
                    }
                    if (is_release(e.order)) {
                        bool found = false;
                        for (auto& p : x.rel_write)
                            if (p.first == e.loc) {
                                p.second = d.hb;
                                found = true;
                            }
                        if (!found) x.rel_write.emplace_back(e.loc, d.hb);
                    }
                } else if (e.kind == ek::fence) {
                    if (is_acquire(e.order)) d.hb.join(x.acq_pending);
                    if (is_release(e.order)) x.rel_fence = d.hb;
                }
                if (e.is_write()) locs_[e.loc];  // the location is known
                d.done = true;
                x.hb = d.hb;
                x.porf = d.porf;
                x.next = id.i + 1;
                if (e.fenced() && e.is_write()) {
                    x.hb.join(x.acq_pending);
                    x.rel_fence = x.hb;
                }
                ++done[t];
                progress = true;
                if (t == 0 && !spawned && gr.spawn_at != UINT32_MAX && done[0] == gr.spawn_at) {
                    spawned = true;
                    for (unsigned u = 1; u < nthreads_; ++u) {
                        th_[u].hb = x.hb;
                        th_[u].hb.c[0] = 2 * done[0] + 1;
                        th_[u].porf = x.porf;
                        th_[u].start_hb = th_[u].hb;
                    }
                }
            }
        }
    }
    for (unsigned t = 0; t < nthreads_; ++t)
        if (done[t] != gr.th[t].size())
            internal_error("the views of a graph could not be computed (a cycle in po | rf)");
}

// What an alternative's graph can break that the candidate checks did not cover: the atomicity of
// an RMW completed after its read changed (and, under SC, the acyclicity that comes with it).
bool explorer::consistent_before_run(const graph& gr, const lkmm_key* known) const {
    for (const auto& kv : gr.co)
        for (std::size_t k = 1; k < kv.second.size(); ++k) {
            const eid w = kv.second[k];
            const event& e = gr.at(w);
            if (e.rmw != rmw_op::none && gr.at(eid{w.t, w.i - 1}).rf != kv.second[k - 1])
                return false;
        }
    // A backward revisit under the LKMM whose graph is the candidate checked (lb.cpp): known.
    if (known) return lkmm_consistent_known(gr, *known);
    return model_->graph_consistent(gr);
}

void explorer::run_execution(std::size_t ci) {
    ci_ = ci;
    do {  // again from the start after a wait revisited in place (revisit_in_place)
        restart_ = false;
        reset_execution();
        ++res_.replays;
        schedule();
    } while (restart_ && internal_msg_.empty());
    if (!internal_msg_.empty()) {
        stop_all_ = true;
        return;
    }
    finish_execution();
}

void explorer::reset_execution() {
    ++run_;
    check_fill_ = false;
    // The per-run state is reset in place: its lists keep their buffers from run to run.
    th_.resize(nthreads_);
    rt_.resize(nthreads_);
    for (unsigned t = 0; t < nthreads_; ++t) {
        th_[t].reset();
        th_[t].arena = arenas_[t].get();
        rt_[t].assign(g().th[t].size(), ev_rt{});
    }
    th_[0].state = ts::ready;
    locs_.clear();
    allocs_.clear();
    replay_left_ = g().size();
    replaying_ = replay_left_ > 0;
    violated_ = false;
    discard_ = false;
    stale_cut_ = false;
    peeked_at_ = peek_epoch_ - 1;  // the run's first event asks
    events_ = 0;
    next_loc_name_ = 0;
    trace_.clear();
    trace_n_ = 0;
    trace_no_.clear();
    names_.clear();
    pointer_locs_.clear();
    traced_msg_.clear();
}

// Every event of the graph has run. Check what an alternative may have broken and the candidate
// checks could not see (RC11's psc), compute the revisits of a write whose place changed, and let
// the live phase begin.
// Runs on the fiber that ran the graph's last event, before any more of the program runs.
void explorer::end_of_replay() {
    replaying_ = false;
    g().partial = false;
    for (auto& t : g().th)  // what a load-buffering revisit kept on trust has come out the same
        for (event& e : t) e.speculative = false;
    if (decoded_) check_decoded_run(true);
    if (!model_->run_consistent(exec(), true)) {
        discard_ = true;
        leave_fiber();
    }
    const std::vector<eid> writes = std::move(post_replay_writes_);
    post_replay_writes_.clear();
    for (eid w : writes) calc_revisits(w);
    if (!in_place_.empty()) revisit_in_place();
}

// Of an execution that is not complete: the first thread that waits for ever (on values no other
// thread will change), if every blocked thread does; -1 otherwise.
int explorer::stuck() {
    int stuck_thread = -1;
    bool all_stuck = true;
    for (unsigned t = 0; t < nthreads_; ++t) {
        const thread_rt& x = th_[t];
        if (x.state != ts::blocked && x.state != ts::finished && x.state != ts::join_wait &&
            x.state != ts::idle)
            internal_error("an execution ended with thread " + std::to_string(t) +
                           " neither finished nor blocked");
        if (x.state != ts::blocked) continue;
        const bool waits = std::strcmp(x.block_reason, "spin") == 0 ||
                           std::strcmp(x.block_reason, "lock") == 0 ||
                           std::strcmp(x.block_reason, "wait") == 0;
        bool stuck = waits && !x.awaited.empty();
        for (eid r : x.awaited) stuck = stuck && ev(r).rf == g().co_max(ev(r).loc);
        all_stuck = all_stuck && stuck;
        if (stuck && stuck_thread < 0) stuck_thread = int(t);
    }
    return all_stuck ? stuck_thread : -1;
}

// What the execution that ended shows, judged once for the run that counts it and for the runs
// that do not (under the LKMM those stop at a violation): a violation raised in the run, a stale
// wait's cut, a leak or (LKMM) a data race of a complete execution, a deadlock or livelock of a
// blocked one.
explorer::ending explorer::judge_end() {
    ending e;
    if (violated_) {
        e.what = ending::violation;
        e.cls = viol_cls_;
        e.msg = viol_msg_;
        e.where = viol_where_;
        return e;
    }
    if (stale_cut_) {
        e.what = ending::stale;
        return e;
    }
    bool all_done = true;
    for (unsigned t = 0; t < nthreads_; ++t) all_done &= th_[t].state == ts::finished;
    if (!all_done) {
        // A thread blocked on reads of the newest values can never be woken, since every other
        // thread is done or blocked: a deadlock (lock, wait) or a livelock (spin). Only when
        // every blocked thread is such a waiter: a thread cut by an assume (or a waiter on a
        // value that is not the newest) marks an execution that another one covers.
        const int t = stuck();
        if (t < 0) {
            e.what = ending::blocked;
            return e;
        }
        const thread_rt& x = th_[unsigned(t)];
        e.what = ending::violation;
        e.cls = std::strcmp(x.block_reason, "spin") == 0 ? "livelock" : "deadlock";
        e.msg = "[" + ctx_label(unsigned(t)) + "] waits (" + x.block_reason +
                ") on values no other thread will change";
        e.where = x.block_where;
        return e;
    }
    for (const alloc_rec& a : allocs_)
        if (!a.freed) {
            char buf[160];
            std::snprintf(buf, sizeof buf, "%zu bytes allocated by thread %u never freed", a.size,
                          a.thread);
            e.what = ending::violation;
            e.cls = "leak";
            e.msg = buf;
            e.where = a.where;
            return e;
        }
    e.what = ending::complete;
    lkmm_flags f;  // (the flags on plain accesses, of a consistent graph)
    if (opt_.model == memory_model::lkmm && lkmm_flags_of(g(), f)) {
        e.flags = f;
        if (f.data_race && opt_.data_race_is_violation) {
            e.what = ending::violation;
            e.cls = "data-race";
            e.msg =
                "conflicting accesses, one of them plain, that the LKMM does not order "
                "(linux-kernel.cat's data-race flag)";
        }
    }
    return e;
}

void explorer::finish_execution() {
    if (discard_) return;
    if (split_.parts && (split_.census || !owned_)) {  // another part counts it
        // Under the LKMM a violation (whoever counts the run) ends a census and the threads'
        // search at once: the search runs again on one thread (parallel.cpp). (A program run on
        // past its first violation, a use after free, may crash.) Only a violation that would
        // stop the search: of the class it looks for, if any.
        if (opt_.model != memory_model::lkmm) return;
        const ending e = judge_end();
        if (e.what == ending::violation && (opt_.stop_class.empty() || e.cls == opt_.stop_class)) {
            stop_all_ = true;
            if (split_.shared) split_.shared->violated.store(true, std::memory_order_relaxed);
            if (split_.census || (opt_.split_parts > 0 && !split_.shared)) {
                // (a part of a split search: the part that counts the run reports it, traced)
                violation v;
                v.cls = e.cls;
                v.message = e.msg;
                v.where = e.where;
                v.at_execution = res_.executions + res_.blocked + 1;
                v.split_chunk = roots_;
                v.counted_elsewhere = true;
                res_.violations.push_back(v);
            }
            stop_threads();
        }
        return;
    }
    const std::uint64_t executions_before = res_.executions, blocked_before = res_.blocked;
    // Under the LKMM a graph may be reached along two paths (holes are filled anew, lb.cpp):
    // each execution counts once.
    const fingerprint key =
        opt_.model == memory_model::lkmm ? graph_fingerprint(g(), pointer_names_) : fingerprint{};
    if (opt_.model == memory_model::lkmm && !new_graph(key)) return;
    const ending e = judge_end();
    if (opt_.model == memory_model::lkmm && opt_.split_parts > 0 && e.what != ending::violation) {
        // (the parts of a split search under the LKMM overlap: merge counts the union, split.cpp)
        using end = result::counted_end;
        res_.counted_ends.push_back({key.a, key.b, roots_,
                                     e.what == ending::complete ? end::complete
                                     : e.what == ending::stale  ? end::stale
                                                                : end::blocked});
    }
    switch (e.what) {
        case ending::violation:
            report(e.cls, e.msg, e.where);
            return;
        case ending::stale:
            // Blocked where it stopped: the other threads did not run to their end, and it is no
            // deadlock (the wait reads an older write, which stays so in every execution below).
            ++res_.blocked;
            ++res_.stale_cut;
            break;
        case ending::complete:
            res_.flagged_data_race += e.flags.data_race;
            res_.flagged_mixed += e.flags.mixed_accesses;
            ++res_.executions;
            if (opt_.on_complete) opt_.on_complete();
            if (opt_.collect_graphs)
                res_.graphs.push_back(opt_.hidden ? g().projection(opt_.hidden, pointer_names_)
                                                  : g().canonical());
            break;
        case ending::blocked:
            ++res_.blocked;
            if (opt_.collect_graphs) res_.blocked_graphs.push_back(g().canonical());
            break;
    }
    std::uint64_t n = res_.executions + res_.blocked;
    if (split_.parts) {
        split_count(res_.executions - executions_before, res_.blocked - blocked_before);
        if (split_.shared)  // on several threads: the limit is the search's, not the thread's
            n = split_.shared->count(res_.executions - executions_before,
                                     res_.blocked - blocked_before);
    }
    if (opt_.progress && (n & 1023u) == 0) opt_.progress(res_.executions, res_.blocked);
    if (opt_.max_executions && n >= opt_.max_executions) {
        res_.complete = false;
        res_.incomplete_reason = "execution limit of " + std::to_string(opt_.max_executions);
        stop_all_ = true;
        stop_threads();
    }
}

void explorer::stop_threads() {
    if (split_.shared) split_.shared->stop.store(true, std::memory_order_relaxed);
}

// A trace of thousands of events (an event limit) keeps its start and its end.
std::string shorten(const std::string& trace) {
    constexpr std::size_t head = 100, tail = 300;
    std::vector<std::size_t> starts{0};
    for (std::size_t k = 0; k + 1 < trace.size(); ++k)
        if (trace[k] == '\n') starts.push_back(k + 1);
    if (starts.size() <= head + tail + 1) return trace;
    return trace.substr(0, starts[head]) + "... (" + std::to_string(starts.size() - head - tail) +
           " lines omitted)\n" + trace.substr(starts[starts.size() - tail]);
}

void explorer::report(const std::string& cls, const std::string& msg, src_loc where) {
    if (!opt_.stop_class.empty()) {
        if (cls != opt_.stop_class) return;  // looking for one class only
        stop_all_ = true;
    } else if (!opt_.all_violations) {
        stop_all_ = true;
    }
    // On several threads: the others go on only in the chunks before this one (parallel.cpp);
    // under the LKMM they stop, and the search runs again on one thread.
    if (stop_all_ && split_.shared) {
        if (opt_.model == memory_model::lkmm) {
            split_.shared->violated.store(true, std::memory_order_relaxed);
            stop_threads();
        } else
            split_.shared->violation_in(roots_);
    }
    if (seen_classes_.count(cls)) return;
    seen_classes_[cls] = true;
    violation v;
    v.cls = cls;
    v.message = msg;
    v.where = where;
    v.at_execution = res_.executions + res_.blocked + 1;
    v.split_chunk = roots_;
    v.split_sub = sub_;
    const std::vector<result::chunk>& ch = res_.split_chunks;
    const bool here = !ch.empty() && ch.back().index == roots_ && ch.back().sub == sub_;
    v.piece_at = (here ? ch.back().executions + ch.back().blocked : 0) + 1;
    v.replay = encode_replay(g());
    if (opt_.trace && !tracing_) {
        // Run the same graph once more with the trace on: the same events, in the same order.
        const std::size_t saved_ci = ci_;
        stack_.push_back(context{g(), {}});
        ci_ = stack_.size() - 1;
        tracing_ = true;
        const bool cut = viol_cls_ == cls && violated_;
        reset_execution();
        schedule();
        tracing_ = false;
        if (cut && !violated_)
            trace_ +=
                "(the trace run did not reproduce the violation: the program depends on "
                "state the graph does not record)\n";
        v.trace = shorten(resolve_names(trace_));
        if (violated_ && viol_cls_ == cls) v.message = resolve_names(traced_msg_);
        stack_.pop_back();
        ci_ = saved_ci;
    }
    res_.violations.push_back(std::move(v));
}

// Writes `w` may be read by reads already in the graph: each such read that is not in w's
// causal prefix, reads w consistently, and whose deletions are maximal extensions gives a
// backward revisit (see README: TruSt's condition that makes every graph come from one place).
void explorer::calc_revisits(eid w) {
    if (opt_.model == memory_model::lkmm) {  // load buffering: lb.cpp
        lkmm_revisits(w);
        return;
    }
    const event& we = ev(w);
    if (we.init) return;
    const loc_rt& l = locs_.at(we.loc);
    const vclock& pw = rt(w).porf;
    std::vector<eid> readers = l.readers;
    for (eid r : readers) {
        if (pw.covers(r)) continue;  // in w's prefix (w's own RMW read half included)
        const event& re = ev(r);
        if (!re.revisitable) continue;
        std::vector<std::uint32_t> keep(nthreads_);
        for (unsigned t = 0; t < nthreads_; ++t)
            keep[t] = std::max(g().prefix_len(t, re.stamp), pw.c[t]);
        if (waits_in_place(r, w, keep)) {
            if (maximal_extension(r, w, keep)) in_place_.push_back(pending_in_place{r, w});
            continue;
        }
        // Atomicity: w itself may be an RMW write half placed after a write another RMW reads
        // (see complete_rmw); a revisit is consistent only if it deletes one of the two.
        if (we.rmw != rmw_op::none) {
            const eid wr = ev(eid{w.t, w.i - 1}).rf;
            bool clash = false;
            for (const auto& t : g().th)
                for (std::uint32_t i = 1; i < t.size(); ++i) {
                    const event& x = t[i];
                    const eid xe{std::uint16_t(&t - g().th.data()), i};
                    if (xe == w || !x.is_write() || x.rmw == rmw_op::none || xe.i >= keep[xe.t])
                        continue;
                    if (t[i - 1].rf == wr && !(xe.t == r.t && xe.i - 1 == r.i)) clash = true;
                }
            if (clash) continue;
        }
        // A declared await that blocks on w's value, reading it from a write another kept one
        // follows in coherence: a run that would only end there (stale_value).
        if (re.await != await_kind::none && stale_value(re, we.val)) {
            const auto& list = g().co.at(we.loc);
            bool newest = true;
            for (std::size_t k = g().co_index(w) + 1; k < list.size() && newest; ++k)
                newest = list[k].i >= keep[list[k].t];
            if (!newest) continue;
        }
        if (!maximal_extension(r, w, keep)) continue;
        // Consistency of r reading w in the revisited graph: the memory model's question.
        if (!model_->revisit_consistent(exec(), r, w, keep)) continue;
        item it;
        it.kind = item::bwd;
        it.stamp = we.stamp;
        it.e = r;
        it.w = w;
        it.keep = std::move(keep);
        it.wprefix.assign(pw.c.begin(), pw.c.begin() + nthreads_);
        push_item(stack_[ci_].work, std::move(it));
    }
}

bool explorer::maximal_extension(eid r, eid w, const std::vector<std::uint32_t>& keep) const {
    auto kept = [&](eid e) { return e.i < keep[e.t]; };
    const event& we = ev(w);
    if (we.rmw == rmw_op::none) {
        const eid s = g().co_next(w);
        if (s.valid() && !kept(s)) return false;  // w's place must survive the deletion
    }
    // x, reading rf (a read) with these flags
    auto check_as = [&](eid x, const event& e, eid rf, bool added_max, bool ipr) {
        if (!added_max) return false;
        if (e.is_access()) {
            const eid wr = e.is_read() ? rf : x;
            const auto& list = g().co.at(e.loc);
            for (std::size_t k = g().co_index(wr) + 1; k < list.size(); ++k)
                if (list[k] != w && kept(list[k])) return false;
        }
        if (e.is_read() && !ipr && !kept(rf) && ev(rf).stamp > e.stamp) return false;
        return true;
    };
    auto check = [&](eid x) {
        const event& e = ev(x);
        if (check_as(x, e, e.rf, e.added_max, e.ipr)) return true;
        // A read revisited in place: as it was before, too (revisit_in_place: a search without
        // it would have it so in another run, and this revisit would come from there).
        for (const in_place_rec& u : g().in_place)
            if (u.r == x && check_as(x, e, u.rf, u.added_max, u.ipr)) return true;
        return false;
    };
    if (!check(r)) return false;
    for (unsigned t = 0; t < nthreads_; ++t)
        for (std::uint32_t i = keep[t]; i < g().th[t].size(); ++i)
            if (!check(eid{std::uint16_t(t), i})) return false;
    return true;
}

}  // namespace kverify::dpor::detail
