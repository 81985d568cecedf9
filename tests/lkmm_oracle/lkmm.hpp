// SPDX-License-Identifier: GPL-2.0-only
// The Linux-kernel memory model on one candidate execution, written from the definitions of
// herdtools7's catalogue/linux: linux-kernel.bell (the access sets, FailedRMW, Marked and Plain,
// carry-dep), lock.cat (lock events in rf, rmw and co; its checks) and linux-kernel.cat
// (coherence, atomic, happens-before, propagation, plain-coherence, and the flags
// mixed-accesses and data-race), variant lkmmv2 (a fully ordered RMW's read and write carry
// the Mb tag; no fences are added around them). RCU and SRCU are out of scope: the oracle
// refuses tests that use them, so their relations are empty here.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "tests/lkmm_oracle/oracle.hpp"
#include "tests/lkmm_oracle/relation.hpp"

namespace kverify::lkmm_oracle {

// A candidate execution over events 0..n-1: the initial writes first (event k writes location
// k), then the threads' events in program order.
struct candidate {
    unsigned n = 0;
    unsigned n_init = 0;
    std::vector<int> thread;          // -1: an initial write
    std::vector<unsigned> index;      // the position in its thread (init: the location)
    std::vector<const event*> ev;     // nullptr: an initial write
    std::vector<litmus::value> init;  // per location: the initial value
    relation po;
    relation rf;                // herd7's rf, and lock.cat's rf-lf and rf-ru (not yet the LKRs')
    relation co;                // per location, total over the writes and LKWs (not yet the ULs)
    relation rmw;               // the successful RMWs' read-write pairs (not yet lk-rmw)
    relation addr, data, ctrl;  // herd7's syntactic dependencies, before carry-dep

    unsigned loc(unsigned e) const { return ev[e] ? ev[e]->loc : index[e]; }
    bool is_mem(unsigned e) const { return !ev[e] || ev[e]->kind != ev_kind::fence; }
};

// lock.cat's last step: the ULs merged into co after their LKWs, and each LKR reading from the
// write just before its LKW in co. Done before the key is printed and the model checked.
void merge_locks(candidate& c);

struct model_verdict {
    bool consistent = false;
    std::string failed;  // the first check that fails
    std::set<std::string> flags;
};

// The checks of lock.cat and linux-kernel.cat, in their order, and the flags (of a consistent
// execution only, as herd7 reports them). `c` has been through merge_locks.
model_verdict check_lkmm(const candidate& c, mutation m);

}  // namespace kverify::lkmm_oracle
