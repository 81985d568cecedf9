// SPDX-License-Identifier: GPL-2.0-only
// The events of a graph numbered for the LKMM's relations (lkmm.cpp), their key, and the check
// made on them before the relations: coherence, location by location (lkmm_frame.cpp). Internal
// to model/dpor.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "model/dpor/graph.hpp"
#include "model/dpor/lkmm.hpp"
#include "model/dpor/relation.hpp"

namespace kverify::dpor::detail::lkmm_impl {

enum tag : std::uint32_t {
    t_r = 1u << 0,       // a read (RMW read halves, lock reads, failed cas reads included)
    t_w = 1u << 1,       // a write (init, RMW write halves, unlocks included)
    t_f = 1u << 2,       // a fence
    t_iw = 1u << 3,      // an initial write (a location's constructor)
    t_once = 1u << 4,    // ONCE
    t_acq = 1u << 5,     // ACQUIRE (before the bell's filter)
    t_rel = 1u << 6,     // RELEASE (before the filter)
    t_mb = 1u << 7,      // MB (before the filter)
    t_noret = 1u << 8,   // NORETURN
    t_rmw = 1u << 9,     // an event of an RMW instruction (both halves, and a failed cas's read)
    t_lkr = 1u << 10,    // spin_lock's read half
    t_lkw = 1u << 11,    // spin_lock's write half
    t_ul = 1u << 12,     // spin_unlock
    t_lf = 1u << 13,     // a failed trylock
    t_scacc = 1u << 14,  // a seq_cst load or store of the engine's own: between two smp_mb()
    t_plain = 1u << 15,  // a plain access
    t_fmb = 1u << 16,
    t_frmb = 1u << 17,
    t_fwmb = 1u << 18,
    t_fba = 1u << 19,   // smp_mb__before_atomic
    t_faa = 1u << 20,   // smp_mb__after_atomic
    t_fas = 1u << 21,   // smp_mb__after_spinlock
    t_faul = 1u << 22,  // smp_mb__after_unlock_lock
    t_fbar = 1u << 23,  // barrier()
};

// The events of a graph numbered for the relations: each access and fence (as the graph being
// checked has it: a copy where a revisit's graph reads another write), its tags, the coherence
// order of the numbered writes, and the spawn point.
struct frame {
    std::size_t n = 0;
    std::vector<eid> ids;
    // the events: the graph's own, or (a read a revisit repoints) a copy in `patched`
    std::vector<const event*> evs;
    std::vector<event> patched;  // (reserved for every event: its addresses do not move)
    std::vector<std::uint32_t> tags;
    std::vector<std::vector<std::size_t>> index;  // per thread, per event: its number or npos
    std::vector<std::vector<std::size_t>> co;     // per location, its writes' numbers in co order
    // the accesses as (location, number), by location and then by number (program order)
    std::vector<std::pair<std::uintptr_t, std::uint32_t>> by_loc;
    std::uint32_t spawn_at = UINT32_MAX;
    // tasks_only: the reads of a write of the harness's, which is not numbered (empty: none)
    std::vector<char> reads_harness;
    static constexpr std::size_t npos = ~std::size_t{0};

    evset set(std::uint32_t any_of) const {
        evset s(n);
        for (std::size_t k = 0; k < n; ++k)
            if (tags[k] & any_of) s.add(k);
        return s;
    }
    const event& ev(std::size_t k) const { return *evs[k]; }
    std::size_t num(eid e) const {
        return e.valid() && e.t < index.size() && e.i < index[e.t].size() ? index[e.t][e.i] : npos;
    }
};

// Numbers the events of g, or with `keep` the events of the graph a load-buffering revisit of
// read r by write w builds from g (lb.cpp): the kept ones (keep[t][i], no hole), a kept read
// whose write is not kept reading the newest kept write instead, and r reading w; the graph
// cut_to_keep, repoint_lost_reads and the new reads-from would make of a copy of g. Into f,
// whose buffers are kept from the last graph: one is numbered for every graph checked.
void number_events(const graph& g, const std::vector<std::vector<char>>* keep, eid r, eid w,
                   frame& f);

// The key of the numbered events (lkmm.hpp, lkmm_key), of g's dependency records.
lkmm_key key_of(const graph& g, const frame& f);

// Coherence (acyclic po-loc | spawn-join-loc | rf | co | fr) of the numbered events.
bool coherence_may_hold(const frame& f);

// Coherence of the graph a load-buffering revisit builds from g, without building it, at the
// locations whose reads change there.
bool revisit_coherence_may_hold(const graph& g, const std::vector<std::vector<char>>& keep, eid r,
                                eid w);

// The tasks' events of f alone, for the axioms after coherence (lkmm_frame.cpp says why they
// decide the same). Into t, whose buffers are kept from the last graph.
void tasks_only(const frame& f, frame& t);

}  // namespace kverify::dpor::detail::lkmm_impl
