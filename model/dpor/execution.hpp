// SPDX-License-Identifier: GPL-2.0-only
// One run of the program on one execution graph: the clocks each event carries (happens-before,
// porf), the state of each thread and location during the run, and `execution`, the read-only
// view of a run that the memory models (consistency.hpp) judge. Internal to model/dpor.
#pragma once

#include <setjmp.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <utility>
#include <vector>

#include "model/dpor/graph.hpp"

namespace kverify::dpor::detail {

// A prefix of every thread: c[t] graph events of thread t (porf prefixes).
struct vclock {
    std::array<std::uint32_t, max_threads> c{};
    void join(const vclock& o) {
        // (from a copy: with no aliasing to rule out, the compiler makes it two vector maxes)
        const std::array<std::uint32_t, max_threads> oc = o.c;
        for (unsigned k = 0; k < max_threads; ++k) c[k] = std::max(c[k], oc[k]);
    }
    bool covers(eid e) const { return c[e.t] > e.i; }
    // c[t] = v, written as a select over every component: one store of each vector half, so
    // that the copies and joins that follow read what they wrote whole (a single 4-byte store
    // under a 16-byte load stalls the load until the store retires).
    void set(unsigned t, std::uint32_t v) {
        for (unsigned k = 0; k < max_threads; ++k) c[k] = k == t ? v : c[k];
    }
};

// A happens-before clock at twice the resolution, so that it can also cover the plain accesses
// a thread makes between two graph events (they are not graph events): c[t] = 2k covers the
// first k graph events of t; 2k + 1 also the plain accesses after the k-th (what a spawn or join
// passes on). A graph event with index i sets its own component to 2i + 2.
struct hclock : vclock {
    bool covers(eid e) const { return c[e.t] > 2 * e.i + 1; }
    // Position `pos` of thread t: 2i + 2 for its graph event i, 2k + 1 for a plain access made
    // after k graph events.
    bool covers_pos(unsigned t, std::int64_t pos) const { return std::int64_t(c[t]) >= pos; }
    void stamp(eid e) { set(e.t, 2 * e.i + 2); }
};

// Per-event data of one execution, recomputed by every run of the program.
struct ev_rt {
    hclock hb;    // happens-before prefix, the event itself included
    vclock porf;  // (po | rf | spawn | join)* prefix, the event itself included
    hclock msg;   // writes: what an acquire reading this write synchronises with
    bool done = false;
    // The reads of a write run so far, as a list through the reads (newest first): a write's
    // first_reader, each read's next_reader (rc11.cpp, hb_frontier).
    eid first_reader, next_reader;
};

enum class ts : std::uint8_t {
    idle,       // not spawned yet
    ready,      // may run
    wait_rf,    // replay: its next read's write has not run yet
    frontier,   // replay: its next operation is new; waits for the live phase
    join_wait,  // harness: waits for every task to end
    blocked,    // assume(false): stopped for good
    finished,
};

struct alloc_rec {
    std::uintptr_t base;
    std::size_t size;
    bool freed;
    src_loc where;
    unsigned thread;
};

struct access_rec {
    std::int64_t pos = -1;  // the access's clock position (hclock::covers_pos); -1: none
    src_loc where{"", 0, ""};
};

struct loc_rt {
    std::uintptr_t addr = 0;
    bool atomic = false;
    std::uint8_t width = 8;
    int alloc = -1;     // the allocation holding it (-1: not engine memory)
    unsigned name = 0;  // for traces: locations numbered in order of construction
    value_t plain_val = 0;
    // Race bookkeeping: per kind of access, the latest one of each thread.
    bool has_plain_write = false;
    unsigned pw_thread = 0;
    access_rec pw;
    std::array<access_rec, max_threads> plain_read{}, atomic_access{}, atomic_write{};
    std::vector<eid> readers;  // atomic reads run so far (revisit candidates)
    // A read of it reads a write of another location (only a malformed replay string): the
    // lists of readers in ev_rt do not hold that read.
    bool foreign_rf = false;
    // Its coherence order in the run's graph (graph::co), once its initialising write ran, and
    // the newest of its writes that has run: what peek() returns, asked at every event by the
    // scenario's invariant. (Within a run writes join coherence and run, and never move in it.)
    const std::vector<eid>* co = nullptr;
    eid newest;
    value_t newest_val = 0;  // its value (0 while no write ran)

    // As new for the location at `a` (every field), keeping the readers' buffer: a run reuses
    // the last run's. An access_rec's `where` is read only when its pos is set.
    void reset(std::uintptr_t a) {
        addr = a;
        atomic = false;
        width = 8;
        alloc = -1;
        name = 0;
        plain_val = 0;
        has_plain_write = false;
        pw_thread = 0;
        pw = access_rec{};
        for (unsigned u = 0; u < max_threads; ++u)
            plain_read[u].pos = atomic_access[u].pos = atomic_write[u].pos = -1;
        readers.clear();
        foreign_rf = false;
        co = nullptr;
        newest = eid{};
        newest_val = 0;
    }
};

// The locations of one run by address, as an unordered_map would keep them, but reused from run
// to run: a run looks a location up at every access (and the scenario's invariant at every
// event), and a map cleared per run freed and allocated every entry again. Open addressing on
// the address; a slot belongs to the run whose generation it carries, so clear() is O(1).
// A location's loc_rt stays at its address in memory for the whole search (references to it
// survive the run adding others).
class loc_table {
public:
    loc_table() : slots_(64), mask_(63), shift_(58) {}
    loc_rt* find(std::uintptr_t a) {
        for (std::size_t k = home(a);; k = (k + 1) & mask_) {
            const slot& s = slots_[k];
            if (s.gen != gen_) return nullptr;
            if (s.addr == a) return s.loc;
        }
    }
    const loc_rt* find(std::uintptr_t a) const { return const_cast<loc_table*>(this)->find(a); }
    std::size_t count(std::uintptr_t a) const { return find(a) ? 1 : 0; }
    loc_rt& at(std::uintptr_t a) {
        loc_rt* l = find(a);
        if (!l) throw std::out_of_range("dpor: a location not constructed in this run");
        return *l;
    }
    const loc_rt& at(std::uintptr_t a) const { return const_cast<loc_table*>(this)->at(a); }
    // The location at `a`, added (as new) if the run has not constructed it.
    loc_rt& operator[](std::uintptr_t a) {
        if (loc_rt* l = find(a)) return *l;
        return add(a);
    }
    // A location the run has not constructed yet, as new.
    loc_rt& add(std::uintptr_t a) {
        if (2 * (used_ + 1) > slots_.size()) grow();
        if (used_ == store_.size()) store_.push_back(std::make_unique<loc_rt>());
        loc_rt* l = store_[used_++].get();
        l->reset(a);
        place(l);
        return *l;
    }
    void clear() {
        used_ = 0;
        if (++gen_ == 0) {  // wrapped: no slot may look current
            for (slot& s : slots_) s.gen = 0;
            gen_ = 1;
        }
    }

private:
    struct slot {
        std::uintptr_t addr = 0;
        std::uint32_t gen = 0;
        loc_rt* loc = nullptr;
    };
    // Fibonacci hashing: the top bits of the address times 2^64 / phi.
    std::size_t home(std::uintptr_t a) const {
        return std::size_t(std::uint64_t(a) * 0x9e3779b97f4a7c15ull >> shift_);
    }
    void place(loc_rt* l) {
        std::size_t k = home(l->addr);
        while (slots_[k].gen == gen_) k = (k + 1) & mask_;
        slots_[k] = slot{l->addr, gen_, l};
    }
    void grow() {
        slots_.assign(2 * slots_.size(), slot{});
        mask_ = slots_.size() - 1;
        --shift_;
        for (std::size_t k = 0; k < used_; ++k) place(store_[k].get());
    }
    std::vector<slot> slots_;
    std::size_t mask_;
    unsigned shift_;  // 64 - log2(slots)
    std::uint32_t gen_ = 1;
    std::vector<std::unique_ptr<loc_rt>> store_;  // [0, used_): this run's, in order of adding
    std::size_t used_ = 0;
};

struct thread_rt {
    ts state = ts::idle;
    bool started = false;
    std::uint32_t next = 0;  // graph events run so far
    hclock hb, start_hb, acq_pending, rel_fence;
    vclock porf;
    std::vector<std::pair<std::uintptr_t, hclock>> rel_write;  // last release write per location
    eid waiting;                                               // wait_rf: the write awaited
    std::vector<eid> awaited;  // reads since the last write: what a blocked thread waits on
    // Spin loops: the values read (and choices taken) in the current and the previous iteration
    // (iterations end at spin_iteration; a write starts afresh).
    std::vector<std::pair<std::uintptr_t, value_t>> seg_cur, seg_prev;
    bool spun = false;  // a spin_iteration happened since the last write
    const char* block_reason = "";
    src_loc block_where{"", 0, ""};
    // LKMM: the annotation of the next access or fence (rt::annotate_next), the enclosing control
    // dependencies (rt::ctrl_begin), and the event the last access made (rt::last_event).
    lk pending_kind = lk::automatic;
    bool pending_op = false;  // the next RMW is an atomic_op (rt::annotate_next)
    std::vector<std::uint32_t> pending_addr, pending_data;
    // The open control dependencies: frame k holds ctrl_ids[ctrl_frames[k]] up to the next
    // frame's start (one flat list: a frame is opened and closed at every kernel primitive).
    std::vector<std::uint32_t> ctrl_ids;
    std::vector<std::size_t> ctrl_frames;
    std::vector<std::uint32_t> opaque;  // rt::depend_after: every later event depends on these
    // opaque's first opaque_at reads, as the events annotated share them (graph.hpp)
    std::shared_ptr<const opaque_list_node> opaque_shared;
    std::size_t opaque_at = 0;
    std::vector<std::size_t> handlers;  // rt::handler_begin: where each handler's ctrl frames start
    std::uint32_t last_access = 0;
    // rt::await_next: the await declared for the next read, and what the last awaited read
    // said its thread does next (-1: nothing declared; 1: blocks; 0: goes on), checked at the
    // thread's next event or its end.
    await_kind pending_await = await_kind::none;
    value_t pending_await_a = 0, pending_await_b = 0;
    std::int8_t await_due = -1;
    jmp_buf resume{};  // where its fiber suspended (fibers.cpp)
    char* arena = nullptr;
    std::size_t arena_used = 0;

    // As new (thread_rt{}), keeping the buffers of its lists: a run reuses the last run's.
    void reset() {
        thread_rt fresh;
        auto keep = [](auto& mine, auto& theirs) {
            mine.clear();
            std::swap(mine, theirs);
        };
        keep(rel_write, fresh.rel_write);
        keep(awaited, fresh.awaited);
        keep(seg_cur, fresh.seg_cur);
        keep(seg_prev, fresh.seg_prev);
        keep(pending_addr, fresh.pending_addr);
        keep(pending_data, fresh.pending_data);
        keep(ctrl_ids, fresh.ctrl_ids);
        keep(ctrl_frames, fresh.ctrl_frames);
        keep(opaque, fresh.opaque);
        keep(handlers, fresh.handlers);
        *this = std::move(fresh);
    }
};

// What a memory model may look at: the graph of the run and, for each event that has run, its
// clocks; for each thread, where it started; for each location, the reads of it run so far.
struct execution {
    const graph& g;
    unsigned nthreads;
    const std::vector<std::vector<ev_rt>>& ev;
    const std::vector<thread_rt>& th;
    const loc_table& locs;
    std::uint64_t run;  // which run of the program this is (a model may keep per-run state)

    const ev_rt& view(eid e) const { return ev[e.t][e.i]; }
    bool done(eid e) const { return e.i < ev[e.t].size() && ev[e.t][e.i].done; }
    // The happens-before clock just before event (t, i): its po-predecessor's, or the start's.
    hclock hb_before(eid e) const {
        return e.i > 0 ? view(eid{e.t, e.i - 1}).hb : th[e.t].start_hb;
    }
    // What the relaxed reads of e's thread before e acquire when an acquire fence follows them:
    // the views of the writes they read (the thread's pending acquire at e).
    hclock acquired_before(eid e) const {
        hclock v;
        for (std::uint32_t i = 0; i < e.i; ++i) {
            const event& x = g.th[e.t][i];
            if (x.is_read() && !is_acquire(x.read_order()) && done(x.rf)) v.join(view(x.rf).msg);
        }
        return v;
    }
};

}  // namespace kverify::dpor::detail
