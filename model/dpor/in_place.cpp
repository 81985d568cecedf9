// SPDX-License-Identifier: GPL-2.0-only
// Waits revisited in place (SC and RC11, options::in_place_revisits): the second of Awamoche's
// ideas (Kokologiannakis et al., CAV 2023; GenMC's in-place revisiting), here only where the
// backward revisit it replaces would delete nothing but the wait's block.
//
// A thread blocked right after a declared await (rt::await_next: a load, or a cas whose failure
// blocks) that reads the newest write stays blocked until a later write revisits the read. When
// the next write w to its location comes, and the backward revisit of the read by w would be
// taken (maximal_extension) and would delete nothing but the block (every other event added
// after the read is in w's prefix), that revisit's graph is this graph with the read reading w.
// So the read takes w here, in this context (waits_in_place, revisit_in_place): the run starts
// again from the graph's start (a fiber cannot go back to the read), and the thread goes on if
// w's value frees it (a cas that now succeeds adds its write half then). The graph stays
// consistent: the read is the last event of its thread and w the newest write, so no relation
// leaves the read (and no RMW has read w). What goes is the rest of the run in which the read
// stays blocked on a write that is no longer the newest: its executions are all blocked, but
// for those where a later backward revisit deletes the read, and those the revisits below this
// graph take too, since maximal_extension judges such a read in each of the places it had
// (graph::in_place), as the search without it judges the read in the run where it had that
// place.
//
// An alternative that cuts w away, or moves it in coherence, gives the read back what it read
// before w came (undo_in_place); so does a backward revisit's copy that keeps the read but not w
// (in_place_of_copy). The oracle tests hold this to the oracle on generated programs full of
// waits (tests/engine/oracle_test.cpp: the same complete graphs, no graph twice, every blocked
// graph in which no thread waits on an older write); seven mutants of it fail them.
#include <algorithm>

#include "model/dpor/explorer.hpp"

namespace kverify::dpor::detail {

bool explorer::waits_in_place(eid r, eid w, const std::vector<std::uint32_t>& keep) const {
    if (!opt_.in_place_revisits || !in_fiber_ || tracing_ || decoded_) return false;
    const event& re = ev(r);
    // A load, or a cas or claim whose failure blocks (a lock, a CPU's take): a failed one has no
    // write half.
    const bool load = re.rmw == rmw_op::none && re.await != await_kind::none;
    const bool cas = re.may_fail() && re.await == await_kind::cas_fails;
    if (!(load || cas) || !re.await_blocks(re.val)) return false;
    // Its thread blocks right after it (the await says so): the block is there, or comes next.
    const std::vector<event>& t = g().th[r.t];
    if (t.size() != r.i + 1 && (t.size() != r.i + 2 || t[r.i + 1].kind != ek::block)) return false;
    // (The newest write: no RMW has read it, so a cas that now succeeds keeps atomicity.)
    if (g().co_max(re.loc) != w) return false;
    // The backward revisit would delete nothing but the block: every event added after the read
    // is in w's prefix.
    for (unsigned u = 0; u < nthreads_; ++u)
        if (u != r.t && keep[u] < g().th[u].size()) return false;
    return true;
}

void explorer::revisit_in_place() {
    for (const pending_in_place& p : in_place_) {
        event& re = ev(p.r);
        g().in_place.push_back(
            in_place_rec{ev(p.w).stamp, p.r, re.rf, re.val, re.added_max, re.ipr});
        re.rf = p.w;
        re.val = ev(p.w).val;
        re.added_max = true;
        re.ipr = false;  // as a backward revisit leaves it
        std::vector<event>& t = g().th[p.r.t];
        // Its block goes with a value that frees it: the thread goes on (a cas that now
        // succeeds adds its write half when it runs, right after w).
        if (!re.await_blocks(re.val) && t.back().kind == ek::block) t.pop_back();
        ++res_.in_place;
    }
    in_place_.clear();
    // What the run computed (views, readers) is the old graph's: the new one runs from its start.
    restart_ = true;
    leave_fiber();
}

// An alternative cuts the graph back to a stamp: the reads revisited in place by writes from
// `from_stamp` on read again what they read before (those writes are gone, or, for another place
// in coherence of the write at from_stamp, came after that alternative). A read so restored is
// the last event of its thread (what followed it came after its write) or is followed by its
// block; with a value that blocks it, the thread blocks again when it runs.
void explorer::undo_in_place(graph& gr, std::uint32_t from_stamp) const {
    while (!gr.in_place.empty() && gr.in_place.back().wstamp >= from_stamp) {
        const in_place_rec u = gr.in_place.back();
        gr.in_place.pop_back();
        event& e = gr.at(u.r);
        e.rf = u.rf;
        e.val = u.val;
        e.added_max = u.added_max;
        e.ipr = u.ipr;
    }
}

// A backward revisit's copy: a read revisited in place that it keeps, and whose write it does
// not, reads what it read before that write came (the last of its earlier states whose write the
// copy keeps); an earlier state whose write the copy does not keep is no place for it any more.
// (A cas so revisited that now succeeds, kept without its write half, adds it when it runs.)
void explorer::in_place_of_copy(graph& ng) const {
    auto kept = [&](eid e) { return e.i < ng.th[e.t].size(); };
    std::vector<in_place_rec> keep;
    for (std::size_t k = ng.in_place.size(); k-- > 0;) {
        const in_place_rec& u = ng.in_place[k];
        if (!kept(u.r)) continue;
        event& e = ng.at(u.r);
        if (!kept(e.rf)) {
            e.rf = u.rf;
            e.val = u.val;
            e.added_max = u.added_max;
            e.ipr = u.ipr;
            continue;
        }
        if (kept(u.rf)) keep.push_back(u);
    }
    ng.in_place.assign(keep.rbegin(), keep.rend());
}

}  // namespace kverify::dpor::detail
