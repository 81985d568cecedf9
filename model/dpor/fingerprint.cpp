// SPDX-License-Identifier: GPL-2.0-only
// The fingerprints of graphs under the LKMM (lb.cpp): of a complete execution, counted once, and
// of the start of a run, explored once; the same on every explorer of a search (parallel.cpp).
#include <algorithm>

#include "model/dpor/explorer.hpp"

namespace kverify::dpor::detail {

namespace {

// What graph::canonical() writes, hashed from the graph's fields without writing the text (the
// text cost most of a fingerprint): per thread its events (kind; a read's class, location rank,
// value and write; a write's class, location rank and value; a fence's order; a choice's
// outcome), then per location in rank order its coherence order.
//
// The fingerprint names nothing by its address, so that it is the same on every thread of a
// search (parallel.cpp, Under the LKMM: each thread's explorer has arenas of its own, and each OS
// thread a kernel of its own): a location is ranked by its initialising write (the first in its
// coherence order, named by thread and place), and a value of a location that holds pointers
// (rt::pointer_values) that points into an arena of the explorer is named by the arena and the
// offset. Both are one-to-one on one explorer's graphs, as the addresses were.
void hash_graph(const graph& g, const pointer_names& names, word_hash& h) {
    // The locations accessed, by address: the graph's locations with a coherence order are at
    // hand (a few, where the events are many), each marked if an event accesses it; an event at
    // a location without one (none in a graph the search makes) sends it the long way, sorting
    // every event's.
    thread_local std::vector<std::uintptr_t> locs;
    thread_local std::vector<char> used;
    locs.clear();
    for (const auto& kv : g.co) locs.push_back(kv.first);
    std::sort(locs.begin(), locs.end());
    used.assign(locs.size(), 0);
    const bool all_known = [&] {
        for (const auto& t : g.th)
            for (const event& e : t) {
                if (!e.is_access()) continue;
                const auto it = std::lower_bound(locs.begin(), locs.end(), e.loc);
                if (it == locs.end() || *it != e.loc) return false;
                used[std::size_t(it - locs.begin())] = 1;
            }
        return true;
    }();
    if (all_known) {
        std::size_t k = 0;
        for (std::size_t j = 0; j < locs.size(); ++j)
            if (used[j]) locs[k++] = locs[j];
        locs.resize(k);
    } else {
        locs.clear();
        for (const auto& t : g.th)
            for (const event& e : t)
                if (e.is_access()) locs.push_back(e.loc);
        std::sort(locs.begin(), locs.end());
        locs.erase(std::unique(locs.begin(), locs.end()), locs.end());
    }
    // Each location's name (its initialising write; one without a coherence order, which the
    // search does not make, by its address, after those) and whether it holds pointers; then
    // the ranks, by name, of the locations by address.
    thread_local std::vector<std::uint64_t> name;
    thread_local std::vector<const std::vector<eid>*> co_of;  // (null: none)
    thread_local std::vector<std::uint32_t> by_name, rank_of;
    thread_local std::vector<char> holds_pointers;
    name.resize(locs.size());
    co_of.resize(locs.size());
    holds_pointers.resize(locs.size());
    for (std::size_t j = 0; j < locs.size(); ++j) {
        const auto it = g.co.find(locs[j]);
        co_of[j] = it != g.co.end() ? &it->second : nullptr;
        name[j] = co_of[j] && !co_of[j]->empty()
                      ? std::uint64_t(co_of[j]->front().t) << 32 | co_of[j]->front().i
                      : std::uint64_t(1) << 63 | j;
        holds_pointers[j] = names.holds_pointers(locs[j]);
    }
    by_name.resize(locs.size());
    for (std::uint32_t j = 0; j < by_name.size(); ++j) by_name[j] = j;
    std::sort(by_name.begin(), by_name.end(),
              [](std::uint32_t a, std::uint32_t b) { return name[a] < name[b]; });
    rank_of.resize(locs.size());
    for (std::uint32_t r = 0; r < by_name.size(); ++r) rank_of[by_name[r]] = r;
    auto index = [&](std::uintptr_t l) {
        return std::size_t(std::lower_bound(locs.begin(), locs.end(), l) - locs.begin());
    };
    h.add(g.th.size());
    for (const auto& t : g.th) {
        h.add(t.size());
        // (The kind, a read's or write's class and its location rank in one word: the mixes
        // of the words are most of a fingerprint's cost.)
        for (const event& e : t) {
            const std::uint64_t kind = std::uint64_t(e.kind);
            switch (e.kind) {
                case ek::read: {
                    const std::size_t j = index(e.loc);
                    const std::uint64_t cls = e.full ? 2 : e.rmw != rmw_op::none ? 1 : 0;
                    h.add(kind | cls << 8 | std::uint64_t(rank_of[j]) << 16);
                    h.add(holds_pointers[j] ? names.value(e.val) : e.val);
                    h.add(std::uint64_t(e.rf.t) << 32 | e.rf.i);
                    break;
                }
                case ek::write: {
                    const std::size_t j = index(e.loc);
                    h.add(kind | std::uint64_t(e.init) << 8 | std::uint64_t(rank_of[j]) << 16);
                    h.add(holds_pointers[j] ? names.value(e.val) : e.val);
                    break;
                }
                case ek::fence:
                    h.add(kind | std::uint64_t(e.order) << 8);
                    break;
                case ek::choice:
                    h.add(kind);
                    h.add(e.val);
                    break;
                case ek::block:
                case ek::hole:
                    h.add(kind);
                    break;
            }
        }
    }
    for (const std::uint32_t j : by_name) {
        if (!co_of[j]) {
            h.add(0);
            continue;
        }
        h.add(co_of[j]->size());
        for (const eid w : *co_of[j]) h.add(std::uint64_t(w.t) << 32 | w.i);
    }
}

}  // namespace

fingerprint graph_fingerprint(const graph& g, const pointer_names& names) {
    word_hash h;
    hash_graph(g, names, h);
    return h.get();
}

// A run's start under the LKMM (lb.cpp, "Where a run starts"): the graph, and the work the
// alternative left for the run besides it: the writes whose revisits it computes when the replay
// ends, and the reads the revisit added anew (their alternatives wait in the context). Not the
// order the events were added in, nor their flags.
fingerprint start_fingerprint(const graph& g, const pointer_names& names,
                              const std::vector<eid>& pending, const std::vector<eid>& readded) {
    word_hash h;
    hash_graph(g, names, h);
    for (const std::vector<eid>* v : {&pending, &readded}) {
        std::vector<std::uint64_t> ids;
        for (const eid e : *v) ids.push_back(std::uint64_t(e.t) << 32 | e.i);
        std::sort(ids.begin(), ids.end());
        h.add(ids.size());
        for (const std::uint64_t x : ids) h.add(x);
    }
    return h.get();
}

}  // namespace kverify::dpor::detail
