// SPDX-License-Identifier: GPL-2.0-only
// What the LKMM needs of a run beyond its events (model/dpor/README.md, The LKMM): the kernel
// primitive and the dependencies the program declares for each event (rt::annotate_next,
// rt::ctrl_begin/end, rt::depend_after), recorded into the graph and checked on every replay;
// and what happens when a replay of a load-buffering revisit goes another way than its graph.
#include <algorithm>

#include "model/dpor/explorer.hpp"

namespace kverify::dpor::detail {

void explorer::annotate_next(lk kind, const std::uint32_t* addr, std::size_t na,
                             const std::uint32_t* data, std::size_t nd, bool atomic_op) {
    thread_rt& x = th_[cur_];
    x.pending_kind = kind;
    x.pending_op = atomic_op;
    if (opt_.model != memory_model::lkmm) return;  // only the LKMM reads dependencies (annotate)
    x.pending_addr.assign(addr, addr + na);
    x.pending_data.assign(data, data + nd);
}

void explorer::ctrl_begin(const std::uint32_t* cond, std::size_t n) {
    thread_rt& x = th_[cur_];
    x.ctrl_frames.push_back(x.ctrl_ids.size());
    if (opt_.model == memory_model::lkmm) x.ctrl_ids.insert(x.ctrl_ids.end(), cond, cond + n);
}

void explorer::depend_after(const std::uint32_t* reads, std::size_t n) {
    if (opt_.model != memory_model::lkmm) return;
    std::vector<std::uint32_t>& o = th_[cur_].opaque;
    o.insert(o.end(), reads, reads + n);
}

void explorer::handler_begin() { th_[cur_].handlers.push_back(th_[cur_].ctrl_frames.size()); }

void explorer::handler_end() {
    thread_rt& x = th_[cur_];
    if (x.handlers.empty() || x.handlers.back() != x.ctrl_frames.size())
        internal_error("rt::handler_end without its handler_begin, or with a ctrl scope open");
    x.handlers.pop_back();
}

void explorer::ctrl_end() {
    thread_rt& x = th_[cur_];
    if (x.ctrl_frames.empty()) internal_error("rt::ctrl_end without a matching ctrl_begin");
    x.ctrl_ids.resize(x.ctrl_frames.back());
    x.ctrl_frames.pop_back();
}

namespace {
// Whether RMW read half e is an atomic_op (its write computed from its read): every add and
// claim, and a cas the program announced as one (rt::annotate_next).
bool atomic_op(const event& e, const thread_rt& x) {
    return e.rmw == rmw_op::add || e.rmw == rmw_op::claim ||
           (e.rmw != rmw_op::none && x.pending_op);
}

void sort_unique(dep_list& v) {
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
}

// The dependencies a new event of thread x gets (sorted, without repeats), or false if none.
bool collect_deps(thread_rt& x, bool with_data, dep_rec& d) {
    d.addr = x.pending_addr;
    if (with_data) d.data = x.pending_data;
    const std::size_t from = x.handlers.empty() ? 0 : x.handlers.back();
    if (from < x.ctrl_frames.size())
        d.ctrl.assign(x.ctrl_ids.begin() + std::ptrdiff_t(x.ctrl_frames[from]), x.ctrl_ids.end());
    for (auto* v : {&d.addr, &d.data, &d.ctrl}) sort_unique(*v);
    if (x.opaque.size() != x.opaque_at) {  // the program added to it since
        auto node = std::make_shared<opaque_list_node>();
        node->added.assign(x.opaque.begin() + std::ptrdiff_t(x.opaque_at), x.opaque.end());
        sort_unique(node->added);
        node->all = x.opaque;
        sort_unique(node->all);
        node->parent = std::move(x.opaque_shared);
        x.opaque_shared = std::move(node);
        x.opaque_at = x.opaque.size();
    }
    d.opaque = x.opaque_shared;
    return !d.addr.empty() || !d.data.empty() || !d.ctrl.empty() || d.opaque;
}
}  // namespace

void explorer::annotate(event& e, bool with_data) {
    thread_rt& x = th_[cur_];
    e.prim = x.pending_kind;
    e.op = atomic_op(e, x);
    if (opt_.model != memory_model::lkmm) return;  // only the LKMM reads dependencies
    dep_rec d;
    if (!collect_deps(x, with_data, d)) return;
    g().deps.push_back(std::make_shared<const dep_rec>(std::move(d)));
    e.deps = std::uint32_t(g().deps.size());
}

// A replayed event must carry the annotation it had when it was added: the LKMM's verdict on the
// graph depends on it, so a program that declares other dependencies for the same event depends
// on something outside the engine.
void explorer::check_annotation(const event& e, bool with_data) {
    thread_rt& x = th_[cur_];
    bool same = e.prim == x.pending_kind && e.op == atomic_op(e, x);
    if (same && opt_.model == memory_model::lkmm) {
        dep_rec d;
        const bool any = collect_deps(x, with_data, d);
        const dep_rec* have = g().deps_of(e);
        same = any ? have && *have == d : have == nullptr;
        // The graph's copy of the thread's opaque list serves the events that follow (equal
        // lists compared by address from here on, and walked once: lb.cpp).
        if (same && have && have->opaque) x.opaque_shared = have->opaque;  // (all equal)
    }
    if (!same && opt_.model == memory_model::lkmm)  // a replay that went another way (lb.cpp)
        diverged(std::string("a replayed event at ") + e.where.file + ":" +
                     std::to_string(e.where.line) + " was annotated differently",
                 eid{std::uint16_t(cur_), std::uint32_t(&e - g().th[cur_].data())});
    if (!same)
        internal_error(std::string("a replayed ") + (e.is_read() ? "read" : "event") + " at " +
                       e.where.file + ":" + std::to_string(e.where.line) +
                       " was annotated differently (kernel primitive or dependencies) than when "
                       "it was added: does the program depend on state outside the engine?");
}

void explorer::consume_annotation() {
    thread_rt& x = th_[cur_];
    x.pending_kind = lk::automatic;
    x.pending_op = false;
    x.pending_addr.clear();
    x.pending_data.clear();
}

// Under the LKMM a replay may go another way than the graph it replays: a read took a value before
// the write it reads had run (load buffering), and an event kept by the revisit came out
// otherwise. If that event depends on the read (speculative), the graph is one no run produces:
// dropped and counted. If not, the program depends on the read in a way it did not declare (a
// dependency through untracked state, or control flow): the engine cannot tell which execution
// was meant, so the search is marked incomplete (inconclusive, never a pass).
void explorer::diverged(const std::string& what, eid at) {
    if (at.i < g().th[at.t].size() && g().at(at).speculative) {
        // An event the revisit kept though it depends on the read it revisited came out
        // otherwise: no run produces this graph. Dropped and counted, not a gap in the search.
        ++res_.unproducible;
    } else {
        res_.complete = false;
        if (res_.incomplete_reason.empty())
            res_.incomplete_reason =
                "load buffering: the replay of a revisited graph went another way (" + what +
                "): a branch taken otherwise before a kept event (the engine does not move kept "
                "events), or a dependency the program did not declare";
    }
    discard_ = true;
    leave_fiber();
}

}  // namespace kverify::dpor::detail
