// SPDX-License-Identifier: GPL-2.0-only
// The graph events of one run (model/dpor/README.md, Replay): each atomic access, fence, choice
// and block is either replayed from the graph (a read waits for the write it reads) or added at
// the frontier with its alternatives; every event gets its happens-before and porf clocks here.
#include <algorithm>
#include <cstring>

#include "model/dpor/explorer.hpp"

namespace kverify::dpor::detail {

// The next graph event of the running thread: replayed from the graph, or (after the replay, in
// the order the exploration adds events: the leftmost thread first) a new one.
namespace {
// The same instruction: a replayed event must come from where it came from when it was added.
bool same_place(const src_loc& a, const src_loc& b) {
    return a.line == b.line && (a.file == b.file || std::strcmp(a.file, b.file) == 0);
}
}  // namespace

eid explorer::next_event(ek kind, std::uintptr_t loc, src_loc where, bool& replay) {
    thread_rt& x = th_[cur_];
    tick(where);
    if (x.await_due >= 0) check_await_due(kind == ek::block);
    const eid id{std::uint16_t(cur_), x.next};
    if (id.i < g().th[cur_].size() && ev(id).kind == ek::hole) {
        // LKMM: a place the program fills anew, now (events before it are replayed, events
        // after it wait for it): a new event, added here with its alternatives.
        replay = false;
        return id;
    }
    if (id.i < g().th[cur_].size()) {
        event& e = ev(id);
        if (g().partial) {
            if (e.kind != kind) internal_error("the replay string does not match the program");
            e.loc = loc;
            e.where = where;
        } else if (e.kind != kind || (e.is_access() && e.loc != loc) ||
                   (opt_.model == memory_model::lkmm && !same_place(e.where, where))) {
            static const char* const kinds[] = {"read",   "write", "fence",
                                                "choice", "block", "hole"};
            // Under the LKMM a replay of a load-buffering revisit may go another way (a branch
            // taken otherwise puts another instruction, even of the same kind, at this place).
            if (opt_.model == memory_model::lkmm)
                diverged(std::string("a ") + kinds[int(kind)] + " at " + where.file + ":" +
                             std::to_string(where.line) + " where the graph has a " +
                             kinds[int(e.kind)] + " at " + e.where.file + ":" +
                             std::to_string(e.where.line),
                         id);
            internal_error(
                "the program did something else at event " + std::to_string(id.t) + "." +
                std::to_string(id.i) + " than in the graph: a " + kinds[int(kind)] + " at " +
                where.file + ":" + std::to_string(where.line) + " (" + where.func +
                "), where the graph " + "has a " + kinds[int(e.kind)] + " at " + e.where.file +
                ":" + std::to_string(e.where.line) + " (" + e.where.func +
                "): does the program depend on state outside the engine?" + thread_dump(id.t));
        }
        replay = true;
        return id;
    }
    if (replaying_) {
        x.state = ts::frontier;
        suspend();
    }
    replay = false;
    return id;
}

void explorer::await_rf(eid w) {
    // Under the LKMM a read may read a write that runs later (load buffering): it gets the
    // value the graph gives it now, and the write is checked when it runs (exec_write).
    // A decoded string's read waits for its write, as under RC11 (the string carries no values).
    if (is_done(w) || (opt_.model == memory_model::lkmm && !decoded_)) return;
    th_[cur_].state = ts::wait_rf;
    th_[cur_].waiting = w;
    suspend();
}

// Replaying a decoded string: a write joins its location's coherence order at the place the
// string gave it (its `arg`), so that peek() sees the right newest write during the run.
// A decoded string comes from outside the search (a saved file, perhaps of a program since
// changed), so what the search guarantees by construction is checked here: one write per place,
// an RMW's write half right after the write its read half read, and under RC11 the place after
// every write in the happens-before prefix (SC and the LKMM check the graph whole).
void explorer::partial_co_insert(std::uintptr_t a, eid w) {
    auto& list = g().co[a];
    const value_t rank = ev(w).arg;
    for (eid x : list)
        if (ev(x).arg == rank) refuse_decoded("two writes at one place in coherence", w);
    const event& e = ev(w);
    if (e.rmw != rmw_op::none && ev(ev(eid{w.t, w.i - 1}).rf).arg + 1 != rank)
        refuse_decoded("an RMW's write is not right after the write it read", w);
    eid bound;
    if (opt_.model == memory_model::rc11 && !list.empty()) {
        hclock pre = th_[cur_].hb;
        pre.stamp(w);
        bound = list[model_->frontier(exec(), w, a, pre)];
    }
    auto pos = std::find_if(list.begin(), list.end(), [&](eid x) { return ev(x).arg > rank; });
    list.insert(pos, w);
    if (bound.valid() && g().co_index(w) <= g().co_index(bound))
        refuse_decoded("a write before one that happens before it", w);
}

// A read of a decoded string, before it runs: under RC11 it may not read a write that one in
// its happens-before prefix hides (the bound the search itself reads from).
void explorer::check_decoded_read(eid r, std::uintptr_t a) {
    if (opt_.model != memory_model::rc11) return;
    event probe = ev(r);
    probe.val = ev(probe.rf).val;
    hclock pre = th_[cur_].hb;
    pre.stamp(r);
    std::size_t lo = model_->frontier(exec(), r, a, pre);
    if (probe.fenced()) {  // the seq_cst fence before a fully ordered cas that succeeds
        hclock fenced = pre;
        fenced.join(th_[cur_].acq_pending);
        lo = model_->fenced_frontier(exec(), a, fenced, lo);
    }
    if (g().co_index(probe.rf) < lo) refuse_decoded("a read of a write that is hidden from it", r);
}

// A violation or the end of a decoded string's replay: the part that ran, as a graph, must be one
// the model allows (SC and the LKMM check it whole; under RC11 psc, after the checks above). The
// events that ran read only writes that ran (a decoded read waits for its write: await_rf).
void explorer::check_decoded_run(bool replay_done) {
    std::vector<std::uint32_t> keep(nthreads_, 0);
    for (unsigned t = 0; t < nthreads_; ++t)
        while (keep[t] < g().th[t].size() && exec().done(eid{std::uint16_t(t), keep[t]})) ++keep[t];
    graph ng = g();
    ng.cut_to_prefix(keep);
    if (!model_->graph_consistent(ng) || !model_->run_consistent(exec(), replay_done))
        refuse_decoded("the events that ran are inconsistent", eid{0, keep[0]});
}

void explorer::refuse_decoded(const char* what, eid e) {
    internal_error(std::string("the replay string names an execution the memory model "
                               "forbids (") +
                   what + ", event " + std::to_string(e.t) + "." + std::to_string(e.i) + ")");
}

eid explorer::add_event(unsigned t, event e) {
    const std::uint32_t pos = th_[t].next;
    if (pos < g().th[t].size()) {  // a hole (LKMM): filled in place, then checked
        if (g().th[t][pos].kind != ek::hole) internal_error("a new event over an existing one");
        g().th[t][pos] = e;
        rt_[t][pos] = ev_rt{};
        check_fill_ = true;
        return eid{std::uint16_t(t), pos};
    }
    g().th[t].push_back(e);
    rt_[t].push_back(ev_rt{});
    return eid{std::uint16_t(t), std::uint32_t(g().th[t].size() - 1)};
}

// Its revisits now, or (a hole filled during a replay, when the rest of the graph has not run
// yet) when the replay is done.
void explorer::revisits_of_new(eid w) {
    if (replaying_) {
        post_replay_writes_.push_back(w);
        return;
    }
    calc_revisits(w);
    if (!in_place_.empty()) revisit_in_place();
}

void explorer::exec_read(eid r) {
    event& e = ev(r);
    thread_rt& x = th_[r.t];
    ev_rt& d = rt(r);
    const ev_rt& w = rt(e.rf);
    if (g().partial) e.val = ev(e.rf).val;
    if (e.fenced()) {  // the seq_cst fence before a fully ordered cas that succeeds
        x.hb.join(x.acq_pending);
        x.rel_fence = x.hb;
    }
    d.hb = x.hb;
    d.hb.stamp(r);
    if (is_acquire(e.read_order()))
        d.hb.join(w.msg);
    else
        x.acq_pending.join(w.msg);
    d.porf = x.porf;
    d.porf.join(w.porf);
    d.porf.set(r.t, r.i + 1);
    d.done = true;
    x.hb = d.hb;
    x.porf = d.porf;
    x.next = r.i + 1;
    loc_rt& l = locs_.at(e.loc);
    add_reader(l, r, e.rf);
    race_check(l, d.hb, 2 * std::int64_t(r.i) + 2, false, false, e.where);
    x.awaited.push_back(r);
    x.seg_cur.emplace_back(e.loc, e.val);
    if (e.await != await_kind::none) x.await_due = e.await_blocks(e.val) ? 1 : 0;
    if (tracing_) trace_event(r);
    replayed_one();
}

void explorer::exec_write(eid w) {
    event& e = ev(w);
    thread_rt& x = th_[w.t];
    ev_rt& d = rt(w);
    d.hb = x.hb;
    d.hb.stamp(w);
    d.porf = x.porf;
    d.porf.set(w.t, w.i + 1);
    if (e.init) {
        d.msg = hclock{};
    } else {
        d.msg = is_release(e.order) ? d.hb : x.rel_fence;
        for (auto& p : x.rel_write)  // the release sequence of an earlier release write here
            if (p.first == e.loc) d.msg.join(p.second);
        if (e.rmw != rmw_op::none) d.msg.join(rt(ev(eid{w.t, w.i - 1}).rf).msg);
        if (is_release(e.order)) {
            bool found = false;
            for (auto& p : x.rel_write)
                if (p.first == e.loc) {
                    p.second = d.hb;
                    found = true;
                }
            if (!found) x.rel_write.emplace_back(e.loc, d.hb);
        }
    }
    d.done = true;
    x.hb = d.hb;
    x.porf = d.porf;
    x.next = w.i + 1;
    if (e.fenced()) {  // the seq_cst fence after a fully ordered cas that succeeded
        x.hb.join(x.acq_pending);
        x.rel_fence = x.hb;
    }
    x.awaited.clear();
    x.seg_cur.clear();
    x.seg_prev.clear();
    x.spun = false;
    loc_rt& l = locs_.at(e.loc);
    if (!l.newest.valid()) {
        l.newest = w;
    } else {  // the later of the two in coherence
        const std::vector<eid>& list = l.co ? *l.co : g().co.at(e.loc);
        for (std::size_t k = list.size(); k-- > 0 && list[k] != l.newest;)
            if (list[k] == w) {
                l.newest = w;
                break;
            }
    }
    l.newest_val = ev(l.newest).val;
    ++peek_epoch_;
    race_check(l, d.hb, 2 * std::int64_t(w.i) + 2, true, e.init, e.where);
    if (tracing_) trace_event(w);
    replayed_one();
}

void explorer::exec_other(eid id) {
    event& e = ev(id);
    thread_rt& x = th_[id.t];
    ev_rt& d = rt(id);
    d.hb = x.hb;
    d.hb.stamp(id);
    if (e.kind == ek::fence) {
        if (is_acquire(e.order)) d.hb.join(x.acq_pending);
        if (is_release(e.order)) x.rel_fence = d.hb;
    }
    if (e.kind == ek::choice) x.seg_cur.emplace_back(0, e.val);  // a branch taken differently
    d.porf = x.porf;
    d.porf.set(id.t, id.i + 1);
    d.done = true;
    x.hb = d.hb;
    x.porf = d.porf;
    x.next = id.i + 1;
    if (tracing_) trace_event(id);
    replayed_one();
}

void explorer::init_atomic(void* p, unsigned width, value_t v, src_loc where) {
    const auto a = reinterpret_cast<std::uintptr_t>(p);
    bool replay;
    const eid id = next_event(ek::write, a, where, replay);
    loc_rt* l = locs_.find(a);
    if (!l) l = &construct_loc(a);
    l->atomic = true;
    l->width = std::uint8_t(width);
    if (!replay) {
        event e;
        e.kind = ek::write;
        e.init = true;
        e.order = mo::plain;
        e.width = std::uint8_t(width);
        e.loc = a;
        e.val = v & width_mask(width);
        e.stamp = g().next_stamp++;
        e.where = where;
        add_event(cur_, e);
        g().co[a].push_back(id);  // a constructor's write is coherence-last (race-free programs)
    } else if (g().partial) {
        event& e = ev(id);
        e.init = true;
        e.order = mo::plain;
        e.width = std::uint8_t(width);
        e.val = v & width_mask(width);
        partial_co_insert(a, id);
    }
    const auto co = g().co.find(a);
    l->co = co == g().co.end() ? nullptr : &co->second;
    exec_write(id);
}

// Adds the new read `e` (event `id`) reading the coherence-latest write of its location, and
// records each older write from index `lo` on that `branch(k)` accepts as an alternative to
// explore later from this context.
template <class Branch>
void explorer::add_read(event& e, eid id, std::size_t lo, Branch branch) {
    const auto& list = g().co.at(e.loc);
    for (std::size_t k = lo; k + 1 < list.size(); ++k) {
        if (!branch(k)) continue;
        item it;
        it.kind = item::fwd_read;
        it.stamp = e.stamp;
        it.e = id;
        it.w = list[k];
        push_item(stack_[ci_].work, std::move(it));
    }
    e.rf = list.back();
    e.val = ev(e.rf).val;
    add_event(cur_, e);
}

value_t explorer::load(const void* p, mo order, src_loc where) {
    loc_rt& l = loc_of(p, where);
    const auto a = reinterpret_cast<std::uintptr_t>(p);
    bool replay;
    const eid id = next_event(ek::read, a, where, replay);
    if (replay) {
        if (g().partial) {
            event& e = ev(id);
            e.order = order;
            e.width = l.width;
            annotate(e, false);
        }
        check_annotation(ev(id), false);
        take_await(ev(id), true);
        await_rf(ev(id).rf);
        if (g().partial) check_decoded_read(id, a);
    } else {
        event e;
        e.kind = ek::read;
        e.order = order;
        e.width = l.width;
        e.loc = a;
        e.where = where;
        e.stamp = g().next_stamp++;
        annotate(e, false);
        take_await(e, false);
        hclock pre = th_[cur_].hb;
        pre.stamp(id);
        const auto& list = g().co.at(a);
        add_read(e, id, model_->frontier(exec(), id, a, pre),
                 [&](std::size_t k) { return !stale_value(e, ev(list[k]).val); });
    }
    consume_annotation();
    th_[cur_].last_access = id.i;
    exec_read(id);
    return ev(id).val;
}

void explorer::store(void* p, value_t v, mo order, src_loc where) {
    loc_rt& l = loc_of(p, where);
    const auto a = reinterpret_cast<std::uintptr_t>(p);
    bool replay;
    const eid id = next_event(ek::write, a, where, replay);
    if (replay) {
        if (g().partial) {
            event& e = ev(id);
            e.order = order;
            e.width = l.width;
            e.val = v & width_mask(l.width);
            annotate(e, true);
            partial_co_insert(a, id);
        }
        check_annotation(ev(id), true);
        consume_annotation();
        th_[cur_].last_access = id.i;
        if ((v & width_mask(l.width)) != ev(id).val) {
            const std::string what = "a store at " + std::string(where.file) + ":" +
                                     std::to_string(where.line) + " writes " +
                                     std::to_string(v & width_mask(l.width)) +
                                     " where the graph has " + std::to_string(ev(id).val);
            if (opt_.model == memory_model::lkmm) diverged(what, id);
            internal_error(what + ": does the program depend on state outside the engine?");
        }
        exec_write(id);
        return;
    }
    event e;
    e.kind = ek::write;
    e.order = order;
    e.width = l.width;
    e.loc = a;
    e.val = v & width_mask(l.width);
    e.where = where;
    e.stamp = g().next_stamp++;
    annotate(e, true);
    consume_annotation();
    th_[cur_].last_access = id.i;
    hclock pre = th_[cur_].hb;
    pre.stamp(id);
    auto& list = g().co.at(a);
    const std::size_t lo = model_->frontier(exec(), id, a, pre);
    // Other places in coherence: after any write from the frontier on, except between an RMW's
    // write half and the write it read.
    for (std::size_t k = lo; k + 1 < list.size(); ++k) {
        if (ev(list[k + 1]).rmw != rmw_op::none) continue;
        item it;
        it.kind = item::fwd_co;
        it.stamp = e.stamp;
        it.e = id;
        it.w = list[k];
        push_item(stack_[ci_].work, std::move(it));
    }
    add_event(cur_, e);
    g().co.at(a).push_back(id);
    exec_write(id);
    revisits_of_new(id);
}

value_t explorer::rmw(void* p, rmw_op op, value_t arg, value_t arg2, mo order, mo fail_order,
                      src_loc where, bool& ok, bool full) {
    loc_rt& l = loc_of(p, where);
    const auto a = reinterpret_cast<std::uintptr_t>(p);
    bool replay;
    const eid id = next_event(ek::read, a, where, replay);
    const bool filled_read = !replay && id.i < g().th[cur_].size();  // into a hole (LKMM)
    if (replay) {
        event& e = ev(id);
        if (g().partial) {
            e.order = order;
            e.fail_order = fail_order;
            e.rmw = op;
            e.full = full;
            e.width = l.width;
            e.arg = arg & width_mask(l.width);
            e.arg2 = arg2 & width_mask(l.width);
            annotate(e, true);
        } else if (e.rmw != op) {
            if (opt_.model == memory_model::lkmm)
                diverged("an RMW at " + std::string(where.file) + ":" + std::to_string(where.line) +
                             " where the graph has another RMW",
                         id);
            internal_error("an RMW replays as another operation");
        } else if (opt_.model == memory_model::lkmm &&
                   (e.arg != (arg & width_mask(l.width)) ||
                    ((op == rmw_op::cas || op == rmw_op::claim) &&
                     e.arg2 != (arg2 & width_mask(l.width))))) {
            // Its operand came out otherwise (computed from a read a load-buffering revisit
            // changed): the write half the graph has is not this one's.
            diverged("an RMW at " + std::string(where.file) + ":" + std::to_string(where.line) +
                         " has another operand than in the graph",
                     id);
        }
        check_annotation(e, true);
        take_await(e, true);
        await_rf(e.rf);
        if (g().partial) check_decoded_read(id, a);
    } else {
        event e;
        e.kind = ek::read;
        e.order = order;
        e.fail_order = fail_order;
        e.rmw = op;
        e.full = full;
        e.width = l.width;
        e.loc = a;
        e.arg = arg & width_mask(l.width);
        e.arg2 = arg2 & width_mask(l.width);
        e.where = where;
        e.stamp = g().next_stamp++;
        annotate(e, true);
        take_await(e, false);
        hclock pre = th_[cur_].hb;
        pre.stamp(id);
        const std::size_t lo = model_->frontier(exec(), id, a, pre);
        // A fully ordered cas that succeeds has a seq_cst fence before it: what the thread's
        // relaxed reads acquired is then in its prefix too.
        std::size_t lo_succ = lo;
        if (full) {
            hclock fenced = pre;
            fenced.join(th_[cur_].acq_pending);
            lo_succ = model_->fenced_frontier(exec(), a, fenced, lo);
        }
        // Every coherent write, even one another RMW already reads: see complete_rmw. Below
        // lo_succ, only the writes with which the cas fails.
        const auto& list = g().co.at(a);
        add_read(e, id, lo, [&](std::size_t k) {
            event probe = e;
            probe.val = ev(list[k]).val;
            return !(probe.rmw_succeeds() && k < lo_succ) && !stale_value(e, probe.val);
        });
    }
    consume_annotation();
    th_[cur_].last_access = id.i;
    exec_read(id);
    const event re = ev(id);
    ok = re.rmw_succeeds();
    if (ok) {
        const eid wid{std::uint16_t(cur_), id.i + 1};
        if (wid.i < g().th[cur_].size() && ev(wid).kind != ek::hole) {
            if (filled_read && opt_.model == memory_model::lkmm)
                diverged(
                    "an RMW filled into a hole before a kept event has no place for its "
                    "write half",
                    wid);
            event& we = ev(wid);
            if (g().partial) {
                if (we.kind != ek::write)
                    refuse_decoded("an RMW's write half where the string has none", wid);
                we.kind = ek::write;
                we.order = order;
                we.rmw = op;
                we.full = full;
                we.width = l.width;
                we.loc = a;
                we.val = re.rmw_result(re.val);
                we.where = where;
                we.prim = re.prim;
                we.deps = re.deps;
                partial_co_insert(a, wid);
            } else if (!we.is_write() || we.rmw != op) {
                internal_error("an RMW's write half replays as something else");
            }
            th_[cur_].next = wid.i;
            exec_write(wid);
        } else {
            if (replaying_ && !filled_read)
                internal_error("an RMW's write half is missing from the graph");
            event w;
            w.kind = ek::write;
            w.order = order;
            w.rmw = op;
            w.full = full;
            w.width = l.width;
            w.loc = a;
            w.val = re.rmw_result(re.val);
            w.where = where;
            w.prim = re.prim;  // the halves share the primitive and the dependencies
            w.deps = re.deps;
            w.stamp = g().next_stamp++;
            add_event(cur_, w);
            auto& list = g().co.at(a);
            list.insert(std::find(list.begin(), list.end(), re.rf) + 1, wid);
            exec_write(wid);
            revisits_of_new(wid);
        }
    }
    return re.val;
}

void explorer::fence(mo order, src_loc where) {
    bool replay;
    const eid id = next_event(ek::fence, 0, where, replay);
    if (!replay) {
        event e;
        e.kind = ek::fence;
        e.order = order;
        e.where = where;
        e.stamp = g().next_stamp++;
        annotate(e, false);
        add_event(cur_, e);
    } else if (g().partial) {
        ev(id).order = order;
        annotate(ev(id), false);
    }
    check_annotation(ev(id), false);
    consume_annotation();
    exec_other(id);
}

unsigned explorer::choose(unsigned n, src_loc where) {
    if (n <= 1) return 0;
    bool replay;
    const eid id = next_event(ek::choice, 0, where, replay);
    if (!replay) {
        event e;
        e.kind = ek::choice;
        e.arg = n;
        e.val = 0;
        e.where = where;
        e.stamp = g().next_stamp++;
        for (unsigned k = n - 1; k >= 1; --k) {
            item it;
            it.kind = item::fwd_choice;
            it.stamp = e.stamp;
            it.e = id;
            it.choice = k;
            push_item(stack_[ci_].work, std::move(it));
        }
        add_event(cur_, e);
    } else if (g().partial) {
        ev(id).arg = n;
        if (ev(id).val >= n) refuse_decoded("a choice out of range", id);
    }
    exec_other(id);
    return unsigned(ev(id).val);
}

void explorer::block(const char* reason, src_loc where) {
    bool replay;
    const eid id = next_event(ek::block, 0, where, replay);
    if (!replay && stale_await(id)) {
        // Every execution below this run blocks here (see stale_await): the run ends now, as a
        // blocked execution, and the alternatives it left are dropped (none gives a complete one).
        std::vector<item>& work = stack_[ci_].work;
        const std::uint64_t s = ev(eid{id.t, id.i - 1}).stamp;
        work.erase(
            std::remove_if(work.begin(), work.end(), [s](const item& it) { return it.stamp > s; }),
            work.end());
        stale_cut_ = true;
        th_[cur_].state = ts::blocked;
        leave_fiber();
    }
    if (!replay) {
        event e;
        e.kind = ek::block;
        e.reason = reason;
        e.where = where;
        e.stamp = g().next_stamp++;
        add_event(cur_, e);
    }
    thread_rt& x = th_[cur_];
    x.block_reason = reason;
    x.block_where = where;
    exec_other(id);
    x.state = ts::blocked;
    leave_fiber();
}

void explorer::take_await(event& e, bool replay) {
    thread_rt& x = th_[cur_];
    const await_kind k = x.pending_await;
    x.pending_await = await_kind::none;
    if (k != await_kind::none && e.rmw != rmw_op::none && k != await_kind::cas_fails)
        internal_error("an await on an RMW other than a cas (its write half comes between)");
    if (k == await_kind::cas_fails && !e.may_fail())
        internal_error("an await on a cas's failure declared for another operation");
    const bool load = e.rmw == rmw_op::none;
    if (!replay || g().partial) {
        e.await = k;
        if (load && k != await_kind::none) {
            e.arg = x.pending_await_a;
            e.arg2 = x.pending_await_b;
        }
        return;
    }
    if (e.await != k || (load && k != await_kind::none &&
                         (e.arg != x.pending_await_a || e.arg2 != x.pending_await_b)))
        internal_error("a read replays with another await than the program declared for it");
}

void explorer::check_await_due(bool blocks) {
    thread_rt& x = th_[cur_];
    const bool due = x.await_due == 1;
    x.await_due = -1;
    if (due != blocks)
        internal_error(due ? "a thread went on after a read its await said it blocks on"
                           : "a thread blocked after a read its await said it goes on from");
}

// The thread blocks right after a read that took an alternative to the newest write (a forward
// alternative, or a backward revisit by a write that is not the newest). Under SC and RC11 such a
// read is never revisited or deleted again below this run: a backward revisit takes it, or
// deletes it, only if it was added reading the newest write (maximal_extension). So every
// execution below this run has the thread blocked at this very place, reading that older write:
// none is complete, and whatever the other threads do in them they also do in the execution
// where this read reads the newest write instead, which the search explores elsewhere (the read
// is the last event of its thread and reads nothing that anything follows: reading the newest
// write instead keeps the graph consistent, and if that value lets the thread go on, what it
// then adds reading the newest writes and going last in coherence keeps it consistent too).
// Violations, deadlocks and the counts of complete executions are therefore unchanged; only
// blocked executions go (the run itself counts as one). Not under the LKMM: there a revisit may
// delete a read whatever write it read (lb.cpp), so the argument does not hold.
bool explorer::stale_await(eid block_id) const {
    if (!opt_.cut_stale_awaits || opt_.model == memory_model::lkmm || block_id.i == 0) return false;
    const event& prev = ev(eid{block_id.t, block_id.i - 1});
    return prev.is_read() && !prev.added_max;
}

void explorer::spin_iteration(src_loc where) {
    thread_rt& x = th_[cur_];
    if (x.spun && x.seg_cur == x.seg_prev) {
        // The awaited reads are this iteration's: a livelock if they are the newest writes.
        x.awaited.clear();
        const std::size_t n = x.seg_cur.size();
        std::size_t k = 0;
        for (std::uint32_t i = x.next; i-- > 0 && k < n;) {
            const eid e{std::uint16_t(cur_), i};
            if (ev(e).kind == ek::read || ev(e).kind == ek::choice) ++k;
            if (ev(e).kind == ek::read) x.awaited.push_back(e);
        }
        block("spin", where);
    }
    x.seg_prev = std::move(x.seg_cur);
    x.seg_cur.clear();
    x.spun = true;
    if (tracing_) trace_text("spin-loop iteration ends (cpu_relax)", where);
}

void explorer::fail(const char* cls, const std::string& msg, src_loc where) {
    if (!violated_) {
        violated_ = true;
        viol_cls_ = cls;
        viol_msg_ = msg;
        viol_where_ = where;
        if (replaying_ && decoded_) check_decoded_run(false);
        // A violation during the replay of an alternative counts only if the part that ran is
        // consistent (the candidate checks cannot see psc).
        if (replaying_ && !model_->run_consistent(exec(), false)) discard_ = true;
        if (tracing_) {
            traced_msg_ = name_pointers_in(msg);
            trace_text(std::string("violation: ") + cls + ": " + traced_msg_, where);
        }
    }
    leave_fiber();
}

}  // namespace kverify::dpor::detail
