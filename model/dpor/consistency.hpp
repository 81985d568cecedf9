// SPDX-License-Identifier: GPL-2.0-only
// The memory models of the dpor engine, behind one interface: the explorer asks a model where a
// new access may read or be placed in coherence, whether a backward revisit is consistent, and
// whether a graph or a run is; it never decides that itself. A model sees the run only through
// `execution` (execution.hpp) and the graph. One implementation per model: rc11.cpp, sc.cpp,
// lkmm.cpp.
// RMW atomicity is not a model's job: every model here requires it, and the explorer keeps it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "model/dpor/execution.hpp"

namespace kverify::dpor::detail {

class consistency {
public:
    virtual ~consistency() = default;

    // For a new access `id` of location `loc` (a read, or a write being placed in coherence)
    // whose happens-before prefix is `pre` (the event itself included): the oldest write of the
    // location, as an index in its coherence order, that the read may read or the write may
    // follow.
    virtual std::size_t frontier(const execution& x, eid id, std::uintptr_t loc,
                                 const hclock& pre) const = 0;
    // The same for the read half of the kernel's try_cmpxchg when it succeeds: it has a seq_cst
    // fence before it, so `fenced` (pre joined with what the thread's relaxed reads acquired)
    // bounds it. `lo` is frontier() of the same read.
    virtual std::size_t fenced_frontier(const execution& x, std::uintptr_t loc,
                                        const hclock& fenced, std::size_t lo) const = 0;
    // Whether read r may read write w once the graph is restricted to the first keep[t] events
    // of every thread t (a backward revisit's graph; atomicity is checked by the explorer).
    // By default the revisited graph is built and checked whole (graph_consistent); a model
    // with a cheaper test overrides it.
    virtual bool revisit_consistent(const execution& x, eid r, eid w,
                                    const std::vector<std::uint32_t>& keep) const {
        graph ng = x.g;
        ng.cut_to_prefix(keep);
        ng.repoint_lost_reads();
        ng.at(r).rf = w;
        ng.at(r).val = x.g.at(w).val;
        return graph_consistent(ng);
    }
    // A graph an alternative produced, before the program runs on it.
    virtual bool graph_consistent(const graph& g) const = 0;
    // The part of the graph that has run, when the replay of the graph ends (replay_done) or a
    // violation stops a replay early: what the per-event checks could not see.
    virtual bool run_consistent(const execution& x, bool replay_done) const = 0;
};

std::unique_ptr<consistency> make_rc11();
std::unique_ptr<consistency> make_sc();
std::unique_ptr<consistency> make_lkmm();
std::unique_ptr<consistency> make_consistency(memory_model m);

}  // namespace kverify::dpor::detail
