// SPDX-License-Identifier: GPL-2.0-only
// The execution graph of the dpor engine: events per thread in program order, reads-from,
// coherence order per location, and the insertion stamps the exploration orders events by.
// Internal to model/dpor (the explorer, the memory models, and the engine tests); nothing here
// runs the program.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "model/dpor/engine.hpp"

namespace kverify::dpor::detail {

class pointer_names;  // explorer.hpp

// An event: thread and index in program order.
struct eid {
    std::uint16_t t = 0xffff;
    std::uint32_t i = 0;
    constexpr bool valid() const noexcept { return t != 0xffff; }
    friend constexpr bool operator==(eid a, eid b) noexcept { return a.t == b.t && a.i == b.i; }
    friend constexpr bool operator!=(eid a, eid b) noexcept { return !(a == b); }
};

// hole (LKMM only): a place in a thread whose event the next run of the program produces anew
// (a load-buffering revisit keeps later events of that thread); it is in no relation.
enum class ek : std::uint8_t { read, write, fence, choice, block, hole };
// claim: a cas on the bits `arg2` of the word (it succeeds when they are all clear, and then
// sets the bits `arg`): a lock or a CPU's token taken in one event (rt::claim).
enum class rmw_op : std::uint8_t { none, cas, add, xchg, claim };

constexpr bool is_acquire(mo o) { return o == mo::acquire || o == mo::acq_rel || o == mo::seq_cst; }
constexpr bool is_release(mo o) { return o == mo::release || o == mo::acq_rel || o == mo::seq_cst; }
constexpr value_t width_mask(unsigned width) {
    return width >= 8 ? ~value_t{0} : (value_t{1} << (8 * width)) - 1;
}

struct event {
    ek kind = ek::fence;
    mo order = mo::relaxed;       // read: order of a plain load or of an RMW's read half (success)
    mo fail_order = mo::relaxed;  // cas read: order when the comparison fails
    rmw_op rmw = rmw_op::none;    // read: the RMW it begins; write: the RMW it completes
    bool init = false;            // write: the location's initialising (constructor) write
    bool added_max = true;        // added with the exploration's default choice (see README)
    bool ipr = false;             // read repaired to the newest write after a revisit
    bool revisitable = true;      // read: may still be revisited (false once in a revisiting
                                  // write's prefix)
    bool full = false;            // halves of a fully ordered cas (seq_cst fences around it when
                                  // it succeeds, nothing when it fails)
    bool speculative = false;     // LKMM: kept by a load-buffering revisit though it depends on
                                  // the read revisited: the next replay must confirm it
    lk prim = lk::automatic;      // the kernel primitive, for the LKMM
    bool op = false;              // RMW read half, LKMM: an atomic_op, its write data dependent on
                                  // its read (rt::annotate_next; every rmw_op::add is one)
    std::uint32_t deps = 0;       // its dependencies: graph::deps[deps - 1]; 0: none
    std::uint8_t width = 8;
    await_kind await = await_kind::none;  // read: its thread blocks right after it on these
                                          // values (rt::await_next; a load's operands in arg and
                                          // arg2)
    std::uint32_t stamp = 0;              // insertion order; increases along program order
    std::uintptr_t loc = 0;
    value_t val = 0;          // write: value written; read: value read; choice: outcome
    value_t arg = 0;          // cas: expected; add/xchg: operand; claim: bits set; choice: arity
    value_t arg2 = 0;         // cas: desired; claim: bits that must be clear
    eid rf;                   // read: the write it reads from
    const char* reason = "";  // block: why
    src_loc where{"", 0, ""};

    bool is_write() const { return kind == ek::write; }
    bool is_read() const { return kind == ek::read; }
    bool is_access() const { return kind == ek::read || kind == ek::write; }
    // An RMW read half succeeds (and is followed by its write half) with the value it read.
    bool rmw_succeeds() const { return rmw != rmw_op::none && succeeds_reading(val); }
    // An RMW whose outcome depends on the value it reads: a cas or a claim (when it fails it is
    // a read alone, with its failure order, and has no write half).
    bool may_fail() const { return rmw == rmw_op::cas || rmw == rmw_op::claim; }
    // An RMW read half: whether it succeeds reading `v`.
    bool succeeds_reading(value_t v) const {
        switch (rmw) {
            case rmw_op::cas:
                return ((v ^ arg) & width_mask(width)) == 0;
            case rmw_op::claim:
                return (v & arg2 & width_mask(width)) == 0;
            default:
                return true;
        }
    }
    // A read declared an await: whether its thread blocks right after it when it reads `v`.
    bool await_blocks(value_t v) const {
        switch (await) {
            case await_kind::none:
                return false;
            case await_kind::unless_equal:
                return v != arg;
            case await_kind::equal_or_bits:
                return v == arg || (v & arg2) != 0;
            case await_kind::cas_fails:
                return !succeeds_reading(v);
        }
        return false;
    }
    // The order the read actually has (a failed cas reads with its failure order).
    mo read_order() const { return may_fail() && !rmw_succeeds() ? fail_order : order; }
    // The value an RMW write half stores after reading `v`.
    value_t rmw_result(value_t v) const {
        switch (rmw) {
            case rmw_op::add:
                return (v + arg) & width_mask(width);
            case rmw_op::xchg:
                return arg;
            case rmw_op::cas:
                return arg2;
            case rmw_op::claim:
                return (v | arg) & width_mask(width);
            case rmw_op::none:
                break;
        }
        return v;
    }
    // A fully ordered cas that took effect: a seq_cst fence before its read half and one after its
    // write half (not graph events; the engine accounts for them).
    bool fenced() const { return full && (kind == ek::write || rmw_succeeds()); }
    bool is_sc() const {
        if (kind == ek::read) return read_order() == mo::seq_cst;
        return (kind == ek::write || kind == ek::fence) && order == mo::seq_cst;
    }
};

using dep_list = std::vector<std::uint32_t>;

// The reads of a thread whose values reached the program's own state (rt::depend_after) up to an
// event: every later event of the thread carries the list until the program adds to it, so the
// events share one immutable copy, made from the one before it (`parent`) and the reads the
// program added since (the list grows with the run: copied per event, and walked whole per
// event, it made the dependency walks of lb.cpp, and each copy of a graph, quadratic in the
// thread's length).
struct opaque_list_node {
    std::shared_ptr<const opaque_list_node> parent;  // null: none before
    dep_list added;                                  // what this one adds to parent's list
    dep_list all;  // parent's list and added, sorted, without repeats
    // lb.cpp, dependency_prefix: the walk that last passed here (a walk stops at a node it
    // passed: it went on to the parents from there)
    mutable std::atomic<std::uint64_t> walked{0};
};

// The dependencies of one event (LKMM): earlier reads of its own thread, by index, sorted.
// `opaque`: reads whose values reached the program's own state: the event may depend on them in
// ways the program cannot say; the exploration treats it as dependent, the LKMM's axioms do not
// (no ordering comes from it). Null: none.
struct dep_rec {
    dep_list addr, data, ctrl;
    std::shared_ptr<const opaque_list_node> opaque;
    const dep_list& opaque_list() const {
        static const dep_list none;
        return opaque ? opaque->all : none;
    }
    // f(list) for each of the four lists
    template <class F>
    void for_each_list(F f) const {
        f(addr);
        f(data);
        f(ctrl);
        f(opaque_list());
    }
    friend bool operator==(const dep_rec& a, const dep_rec& b) {
        return a.addr == b.addr && a.data == b.data && a.ctrl == b.ctrl &&
               (a.opaque == b.opaque || a.opaque_list() == b.opaque_list());
    }
};

// A read revisited in place (SC and RC11: in_place.cpp, revisit_in_place): the stamp of the write
// it then took, and the read as it was before.
struct in_place_rec {
    std::uint32_t wstamp = 0;
    eid r, rf;
    value_t val = 0;
    bool added_max = true, ipr = false;
};

struct graph {                           // (a member added here is copied by assign() too)
    std::vector<std::vector<event>> th;  // events per thread
    // event::deps points here (only filled under the LKMM). A record is not changed once made
    // (graph.cpp: shift_refs makes a new one), so the copies of a graph share them.
    std::vector<std::shared_ptr<const dep_rec>> deps;
    std::unordered_map<std::uintptr_t, std::vector<eid>> co;  // writes per location, in co order
    std::uint32_t next_stamp = 1;
    // Events of the harness (thread 0) before it spawned the tasks; the tasks start after the
    // last of them, and the harness's later events follow every task's last event (join).
    std::uint32_t spawn_at = UINT32_MAX;
    // Decoded from a replay string: locations, values and coherence are filled in by the run
    // (each write's place in coherence order is its `arg` until then).
    bool partial = false;
    // The reads revisited in place in this graph, in the order made (so by the writes' stamps);
    // a read's earlier states are also the places a search without it would have it in
    // (explorer::maximal_extension).
    std::vector<in_place_rec> in_place;

    const dep_rec* deps_of(const event& e) const {
        return e.deps ? deps[e.deps - 1].get() : nullptr;
    }
    event& at(eid e) { return th[e.t][e.i]; }
    const event& at(eid e) const { return th[e.t][e.i]; }
    std::size_t size() const {
        std::size_t n = 0;
        for (const auto& t : th) n += t.size();
        return n;
    }
    // Position of write w in its location's coherence order.
    std::size_t co_index(eid w) const;
    // w's place in `list`, the coherence order of w's location already at hand (list.size() if
    // it is not there): co_index without looking the location up.
    static std::size_t index_in(const std::vector<eid>& list, eid w) {
        return std::size_t(std::find(list.begin(), list.end(), w) - list.begin());
    }
    eid co_max(std::uintptr_t loc) const { return co.at(loc).back(); }
    // *this = o, reusing this graph's buffers (its threads' and locations' lists): a backward
    // revisit copies its graph into a context the search is done with (explorer::apply).
    void assign(const graph& o);
    // The write right after w in coherence order (invalid if w is the newest).
    eid co_next(eid w) const;
    // Keeps the events with stamp <= s (a prefix of every thread).
    void cut_to_stamp(std::uint32_t s);
    // Keeps the first keep[t] events of every thread t.
    void cut_to_prefix(const std::vector<std::uint32_t>& keep);
    // A read whose write was cut away reads the newest write of its location instead (what a
    // backward revisit does with it, explorer::apply): for checking a revisited graph.
    void repoint_lost_reads();
    // LKMM: keeps the events keep[t][i] of every thread; an event not kept but before a kept one
    // of its thread becomes a hole, the others are deleted (stamps need not grow along program
    // order there: a hole filled later sits before older events).
    void cut_to_keep(const std::vector<std::vector<char>>& keep);
    // LKMM: the events with stamp <= s (and no hole), as cut_to_keep keeps them.
    void cut_to_stamp_holes(std::uint32_t s);
    // LKMM: puts e at place i of thread t, or removes the event there; the events after it move
    // by one, and every reference to them (reads-from, coherence, dependencies) follows.
    void insert_event(unsigned t, std::uint32_t i, const event& e);
    void erase_event(unsigned t, std::uint32_t i);
    // Number of events of thread t with stamp <= s (a prefix, stamps grow along program order).
    std::uint32_t prefix_len(unsigned t, std::uint32_t s) const;
    // Canonical text: events per thread with reads-from, then coherence per location, locations
    // named by their rank in address order. Equal graphs give equal text.
    std::string canonical() const;
    // The same text for what the program did apart from some locations (options::hidden): the
    // accesses to them and the choices are left out, the other events renumbered, locations
    // named in the order of their first access (thread by thread), not by address, so that the
    // text is the same in every process. Equal graphs give equal text, and so do graphs that
    // differ only in the hidden accesses.
    // A value of a location that holds pointers is named as the fingerprints name it.
    std::string projection(const std::function<bool(std::uintptr_t)>& hidden,
                           const pointer_names& names) const;

private:
    std::string text(const std::function<bool(std::uintptr_t)>* hidden,
                     const pointer_names* names) const;
};

}  // namespace kverify::dpor::detail
