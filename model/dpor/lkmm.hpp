// SPDX-License-Identifier: GPL-2.0-only
// The LKMM's axioms on a whole execution graph (lkmm.cpp): for the model's consistency checks and
// for the engine's tests. Internal to model/dpor.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "model/dpor/graph.hpp"
#include "model/dpor/relation.hpp"
#include "model/dpor/word_hash.hpp"

namespace kverify::dpor::detail {

// Coherence, atomicity, happens-before, propagation and plain-coherence of linux-kernel.cat hold
// on g. (Past coherence, on the tasks' events alone where the tasks have started:
// lkmm_frame.cpp, tasks_only, says why that decides the same.)
bool lkmm_consistent(const graph& g);
// The same with every axiom on every event, the harness's included: the reference the engine
// tests hold lkmm_consistent to.
bool lkmm_consistent_whole(const graph& g);
// What the axioms read of a graph, hashed (128 bits): the events they number, each with its
// thread and place, its tags, location, values, reads-from and dependencies, and the coherence
// orders. Graphs with equal keys get the same verdict.
using lkmm_key = hash128;

// The same on the graph a load-buffering revisit of read r by write w builds from g (lb.cpp),
// without building it: the events keep[t][i] of g that are no hole, a kept read whose write is
// not kept reading the newest kept write of its location, and r reading w. When it is
// consistent, `key` (if given) receives that graph's key.
bool lkmm_revisit_consistent(const graph& g, const std::vector<std::vector<char>>& keep, eid r,
                             eid w, lkmm_key* key = nullptr);
// lkmm_consistent(g), known to be true without the axioms when g's key is `known` (the revisit
// that built g was checked as a candidate; its graph comes out the same unless the revisit
// completed an RMW or moved events, and is then checked whole).
bool lkmm_consistent_known(const graph& g, const lkmm_key& known);

// The oldest write of location loc, as an index in its coherence order, that a new access
// `id` may read or follow: coherence bounds it by what id's thread saw of the location before
// it (and, for a task, what the harness did before the tasks started; for the harness after
// the join, what every task did). The other axioms are checked on the whole graph.
std::size_t lkmm_frontier(const graph& g, eid id, std::uintptr_t loc);

// The flags linux-kernel.cat raises on an execution (herd7 prints "Flag NAME").
struct lkmm_flags {
    bool data_race = false;       // two conflicting accesses, one plain, not ordered as needed
    bool mixed_accesses = false;  // a plain write and a marked access of one location, no barrier
};
// Computes the flags of a consistent g (false if g is not consistent; without a plain access
// there is no flag, and g is not checked).
bool lkmm_flags_of(const graph& g, lkmm_flags& flags);

}  // namespace kverify::dpor::detail
