// SPDX-License-Identifier: GPL-2.0-only
// The explorer of the dpor engine: the stack of graphs left to explore (exploration), one run of
// the program on one graph (fibers, events, memory), and traces. The memory model is asked, never
// decided here (consistency.hpp). Internal to model/dpor; the files that implement it:
//   explore.cpp  the exploration: alternatives, backward revisits and their maximality
//   fibers.cpp   the program's threads as fibers, the scheduler, limits and internal errors
//   events.cpp   the graph events of a run: replayed or added, and their clocks
//   memory.cpp   plain accesses and races, the engine's arenas
//   annotate.cpp the LKMM: kernel primitives, dependencies, replays that diverge
//   lb.cpp       the LKMM: load buffering, holes, revisits
//   fingerprint.cpp the LKMM: the fingerprints of executions and of runs' starts
//   trace.cpp    traces of violations and replay strings
//   split.cpp    one search in parts: the census of the tree, which runs a part owns
//   parallel.cpp one search on several threads: who takes which subtree, the results joined,
//                the LKMM's shared sets of fingerprints
//   api.cpp      explore() and the operations of namespace rt
#pragma once

#include <setjmp.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "model/dpor/consistency.hpp"
#include "model/dpor/engine.hpp"
#include "model/dpor/execution.hpp"
#include "model/dpor/graph.hpp"
#include "model/dpor/lkmm.hpp"
#include "model/dpor/word_hash.hpp"

namespace kverify::dpor::detail {

using clock_type = std::chrono::steady_clock;

// A graph hashed to 128 bits (two independent 64-bit hashes, fingerprint.cpp): equal graphs have
// equal fingerprints; two different graphs share one with probability about 2^-128.
using fingerprint = hash128;
struct fingerprint_hash {
    std::size_t operator()(const fingerprint& f) const { return std::size_t(f.a ^ (f.b << 1)); }
};

constexpr std::size_t stack_size = 512 * 1024;
constexpr std::size_t arena_size = 8 * 1024 * 1024;

// How a fingerprint names pointer values (fingerprint.cpp, hash_graph): a location that holds
// pointers (rt::pointer_values, under the LKMM) has its values that point into one of the
// explorer's arenas named by the arena and the offset, the same on every explorer of a search.
class pointer_names {
public:
    void add_arena(const char* base) { arenas_.push_back(reinterpret_cast<std::uintptr_t>(base)); }
    void add_location(std::uintptr_t loc) { locs_.insert(loc); }
    bool holds_pointers(std::uintptr_t loc) const { return !locs_.empty() && locs_.count(loc); }
    // (A pointer is below 2^63, so the names, with bit 63 set, are none of the other values.)
    value_t value(value_t v) const {
        for (std::size_t k = 0; k < arenas_.size(); ++k)
            if (v - arenas_[k] < arena_size)
                return value_t(1) << 63 | value_t(k) << 40 | (v - arenas_[k]);
        return v;
    }

private:
    std::vector<std::uintptr_t> arenas_;
    std::unordered_set<std::uintptr_t> locs_;
};

// Under the LKMM (fingerprint.cpp), the same on every explorer of a search: a complete
// execution's fingerprint, and that of a run's start (the graph, the writes whose revisits the run
// computes when its replay ends, and the reads a revisit added anew).
fingerprint graph_fingerprint(const graph& g, const pointer_names& names);
fingerprint start_fingerprint(const graph& g, const pointer_names& names,
                              const std::vector<eid>& pending, const std::vector<eid>& readded);

// An alternative left to explore, kept at the stamp of the event it changes.
struct item {
    enum kind_t : std::uint8_t { fwd_read, fwd_co, fwd_choice, bwd } kind = fwd_read;
    std::uint32_t stamp = 0;
    eid e;  // the read / write / choice it changes (bwd: the revisited read)
    eid w;  // fwd_read: the new write read; fwd_co: the new co predecessor; bwd: the write
    std::uint32_t choice = 0;
    std::uint32_t depth = 0;             // in the tree of runs (split.cpp): its parent's + 1
    std::vector<std::uint32_t> keep;     // bwd: per-thread prefix kept
    std::vector<std::uint32_t> wprefix;  // bwd: per-thread length of the write's porf prefix
    // bwd under the LKMM: the events kept (per thread, per event; the others before a kept one
    // become holes)
    std::vector<std::vector<char>> keepset;
    std::vector<eid> speculative;  // kept events that depend on the revisited read
    lkmm_key checked;              // bwd under the LKMM: the key of the graph found consistent
};

struct context {
    graph g;
    std::vector<item> work;
};

// A trace of thousands of events (an event limit) keeps its start and its end.
std::string shorten(const std::string& trace);

// How a search is split (split.cpp): part `part` (0-based) of `parts` owns the subtrees of the
// tree of runs rooted at `depth` whose number in exploration order is `part` modulo `parts`, and
// what comes after such a subtree up to the next one. A census only counts those subtrees.
struct parallel_search;
struct split_plan {
    unsigned part = 0, parts = 0;  // parts == 0: the whole search
    unsigned depth = 0;
    std::uint64_t roots = 0;  // the subtrees at `depth`, as the census counted them
    bool census = false;
    // A search on several threads (parallel.cpp): what they share, and which one this is.
    parallel_search* shared = nullptr;
    unsigned thread = 0;
    // On several threads: this explorer helps the thread that owns chunk `help` (parallel.cpp);
    // none: UINT64_MAX.
    std::uint64_t help = UINT64_MAX;
    // Under the LKMM: the census met a violation (the search then runs on one thread).
    bool violated = false;
};

// A set of fingerprints several threads insert into at once (parallel.cpp, under the LKMM):
// sharded by the fingerprint's top bits, a lock per shard.
class shared_fingerprints {
public:
    // True if `f` was not in the set (it is now).
    bool insert(const fingerprint& f);

private:
    static constexpr unsigned shard_bits = 6;
    struct shard {
        std::mutex lock;
        std::unordered_set<fingerprint, fingerprint_hash> set;
    };
    shard shards_[1u << shard_bits];
};

// What the threads of one search share (parallel.cpp): which thread took each chunk, the lowest
// chunk a violation ended the search in, whether a budget ran out, and the counts so far (for
// the execution limit and the progress display).
struct parallel_search {
    // The subtrees at the second cut taken so far, by chunk and number (take_sub); per thread,
    // the chunk it owns and explores now (UINT64_MAX: none), for the threads that help.
    std::mutex sub_lock;
    std::set<std::pair<std::uint64_t, std::uint64_t>> sub_taken;
    std::unique_ptr<std::atomic<std::uint64_t>[]> active;
    bool take_sub(std::uint64_t chunk, std::uint64_t sub);
    std::unique_ptr<std::atomic<bool>[]> taken;  // per chunk: 0 .. the census's roots
    std::uint64_t chunks = 0;
    std::atomic<std::uint64_t> stop_after{UINT64_MAX};
    std::atomic<bool> stop{false};
    std::atomic<std::uint64_t> executions{0}, blocked{0};
    std::mutex progress_lock;
    std::vector<std::uint64_t> cut_at;  // per thread: the chunk it stopped in, cut by a budget
    bool take(std::uint64_t chunk);
    void violation_in(std::uint64_t chunk);
    // Counts executions and blocked ones; returns both, all threads together, so far.
    std::uint64_t count(std::uint64_t executions, std::uint64_t blocked);
    // Under the LKMM: the starts of runs and the executions explored by any thread below the
    // structure of the cuts (parallel.cpp, Under the LKMM).
    shared_fingerprints starts, graphs;
    // Under the LKMM: a thread met a violation (the search runs again on one thread).
    std::atomic<bool> violated{false};
};

// The census of a split search (split.cpp): the shallowest depth of the tree of runs with at
// least `roots` subtrees (else the one with the most), into plan.depth and plan.roots. False when a
// budget ran out (what `failed` says); bad options (a part out of range, the LKMM, a replay) throw.
bool take_census(const program& prog, const options& opt, std::uint64_t roots, split_plan& plan,
                 result& failed);
// The subtrees a split in `parts` parts aims at (split.cpp).
std::uint64_t split_roots(unsigned parts);
// One part of a split search (options::split_parts): the census of the tree, then the part.
result explore_part(const program& prog, const options& opt);
// One search, or one part of a split search, on options::threads threads (parallel.cpp).
result explore_parallel(const program& prog, const options& opt);

class explorer;
// The explorer whose program runs now on this thread (rt's operations go to it).
extern thread_local explorer* current;

class explorer {
public:
    explorer(const program& p, const options& o, const split_plan& split = {});
    explorer(const explorer&) = delete;
    explorer& operator=(const explorer&) = delete;

    result run();

    // ----- program-side operations (on the program's fibers) -----
    unsigned thread() const { return cur_; }
    bool tracing() const { return tracing_; }
    bool load_buffering() const { return opt_.model == memory_model::lkmm || opt_.judge_as_lkmm; }
    bool reads_dependencies() const { return opt_.model == memory_model::lkmm; }
    void init_atomic(void* loc, unsigned width, value_t v, src_loc where);
    value_t load(const void* loc, mo order, src_loc where);
    void store(void* loc, value_t v, mo order, src_loc where);
    value_t rmw(void* loc, rmw_op op, value_t a, value_t b, mo order, mo fail_order, src_loc where,
                bool& ok, bool full = false);
    void fence(mo order, src_loc where);
    void init_plain(void* loc, unsigned width, value_t v, src_loc where);
    value_t plain_load(const void* loc, src_loc where);
    void plain_store(void* loc, value_t v, src_loc where);
    value_t peek(const void* p) {  // (inline: the scenario's invariant asks at every event)
        const loc_rt* l = locs_.find(reinterpret_cast<std::uintptr_t>(p));
        if (!l) return 0;
        return l->atomic ? l->newest_val : l->plain_val;
    }
    unsigned choose(unsigned n, src_loc where);
    [[noreturn]] void block(const char* reason, src_loc where);
    bool stale_await(eid block_id) const;
    void spin_iteration(src_loc where);
    [[noreturn]] void fail(const char* cls, const std::string& msg, src_loc where);
    void note(const std::string& text, src_loc where);
    void name_memory(const void* p, std::size_t bytes, const std::string& name);
    void pointer_values(const void* loc);
    void* alloc(std::size_t bytes, src_loc where);
    void dealloc(void* p, src_loc where);
    // LKMM annotations (engine.hpp: rt::annotate_next, rt::ctrl_begin, rt::last_event).
    std::uint32_t last_event() const { return th_[cur_].last_access; }
    void annotate_next(lk kind, const std::uint32_t* addr, std::size_t na,
                       const std::uint32_t* data, std::size_t nd, bool atomic_op);
    void ctrl_begin(const std::uint32_t* cond, std::size_t n);
    void ctrl_end();
    void depend_after(const std::uint32_t* reads, std::size_t n);
    void handler_begin();
    void handler_end();
    // rt::await_next (events.cpp).
    void await_next(await_kind kind, value_t a, value_t b) {
        thread_rt& x = th_[cur_];
        x.pending_await = kind;
        x.pending_await_a = a;
        x.pending_await_b = b;
    }

    static void fiber_main();

private:
    // ----- exploration (explore.cpp) -----
    void apply(std::size_t ci, item it);
    void run_execution(std::size_t ci);
    // (known: the key of the candidate a backward revisit under the LKMM was checked on)
    bool consistent_before_run(const graph& gr, const lkmm_key* known = nullptr) const;
    void compute_views();
    void end_of_replay();
    void finish_execution();
    int stuck();
    struct ending {
        enum kind_t : std::uint8_t { complete, blocked, stale, violation } what = complete;
        std::string cls, msg;  // a violation's
        src_loc where{"", 0, ""};
        lkmm_flags flags;  // a complete execution's, under the LKMM
    };
    ending judge_end();
    void calc_revisits(eid w);
    // Waits revisited in place (options::in_place_revisits, in_place.cpp): whether the new write
    // w takes r so (keep: what its backward revisit would keep); making the ones calc_revisits
    // found; a read so revisited reading again what it read before, after an alternative cut its
    // write away or moved it (undo), or in a backward revisit's copy without its write.
    bool waits_in_place(eid r, eid w, const std::vector<std::uint32_t>& keep) const;
    void revisit_in_place();
    void undo_in_place(graph& gr, std::uint32_t from_stamp) const;
    void in_place_of_copy(graph& ng) const;
    bool maximal_extension(eid r, eid w, const std::vector<std::uint32_t>& keep) const;
    void after_apply(std::size_t ci);
    void push_item(std::vector<item>& work, item it);
    // ----- a part of a split search (split.cpp) -----
    bool split_enter(const item& it);
    void split_mark_children(std::size_t ci, std::size_t contexts, std::size_t items);
    void split_count(std::uint64_t executions, std::uint64_t blocked);
    // ----- the LKMM's exploration: holes and load buffering (lb.cpp) -----
    vclock graph_porf(eid e) const;
    std::vector<std::vector<char>> dependency_prefix(eid w) const;
    std::vector<std::vector<char>> dependents(eid r) const;
    void lkmm_revisits(eid w);
    std::size_t apply_lkmm(std::size_t ci, item it);
    void close_keep(graph& gr, std::vector<std::vector<char>>& keep, eid r) const;
    bool filled_hole_consistent();
    void complete_rmw(graph& gr, eid r);
    void report(const std::string& cls, const std::string& msg, src_loc where);

    // ----- one run of the program (fibers.cpp, events.cpp, memory.cpp) -----
    void reset_execution();
    void schedule();
    void thread_body(unsigned t);
    void make_fiber(unsigned t);
    void suspend();
    [[noreturn]] void leave_fiber();
    void spawn_tasks();
    eid next_event(ek kind, std::uintptr_t loc, src_loc where, bool& replay);
    template <class Branch>
    void add_read(event& e, eid id, std::size_t lo, Branch branch);
    void await_rf(eid w);
    // The pending await onto the read `e` (or checked against a replayed one), and what it
    // says the thread does next; check_await_due() holds the thread to it.
    void take_await(event& e, bool replay);
    void check_await_due(bool blocks);
    // A read whose thread would block right after it, reading `v` from a write other than the
    // newest one: a run that only ends there (stale_await), never started.
    bool stale_value(const event& r, value_t v) const {
        return r.await != await_kind::none && opt_.cut_stale_awaits &&
               opt_.model != memory_model::lkmm && r.await_blocks(v);
    }
    void exec_read(eid r);
    // Read r of location l, reading w, has run: a revisit candidate, and a reader of w.
    void add_reader(loc_rt& l, eid r, eid w) {
        l.readers.push_back(r);
        rt(r).next_reader = rt(w).first_reader;
        rt(w).first_reader = r;
        if (ev(w).loc != l.addr) l.foreign_rf = true;
    }
    void exec_write(eid w);
    void exec_other(eid e);
    void replayed_one() {
        if (check_fill_) {  // LKMM: a hole was filled; the graph must still be consistent
            check_fill_ = false;
            if (!filled_hole_consistent()) {
                discard_ = true;
                leave_fiber();
            }
        }
        if (replaying_ && --replay_left_ == 0) end_of_replay();
        // The invariant is a function of what peek() returns (engine.hpp, after_event): asked
        // again only when a value peek() sees may have changed since it last was.
        if (opt_.after_event && peeked_at_ != peek_epoch_ && opt_.after_event())
            peeked_at_ = peek_epoch_;
    }
    void revisits_of_new(eid w);
    eid add_event(unsigned t, event e);
    // The pending LKMM annotation of this thread onto a new event (write: with its data
    // dependencies), or checked against a replayed one; consume_annotation() ends it.
    void annotate(event& e, bool with_data);
    void check_annotation(const event& e, bool with_data);
    void consume_annotation();
    void partial_co_insert(std::uintptr_t a, eid w);
    void check_decoded_read(eid r, std::uintptr_t a);
    void check_decoded_run(bool replay_done);
    [[noreturn]] void refuse_decoded(const char* what, eid e);
    loc_rt& loc_of(const void* p, src_loc where);
    // A location the run constructs first at `a` (init_atomic, init_plain): named in order of
    // construction, and in the engine allocation that holds it, if one does.
    loc_rt& construct_loc(std::uintptr_t a);
    // (inline, below: it runs at every access)
    void race_check(loc_rt& l, const hclock& vc, std::int64_t pos, bool write, bool plain,
                    src_loc where);
    void race_check_all(loc_rt& l, const hclock& vc, std::int64_t pos, bool write, bool plain,
                        src_loc where);
    [[noreturn]] void race(unsigned u, const access_rec& a, const char* what, bool write,
                           bool plain, src_loc where);
    // The event limit and, every 256 operations, the time budget.
    void tick(src_loc where) {
        if (++events_ > opt_.max_events) tick_slow(where);
        if (opt_.budget_s > 0 && (++tick_ & 255u) == 0) tick_slow(where);
    }
    void tick_slow(src_loc where);
    [[noreturn]] void internal_error(const std::string& msg);
    [[noreturn]] void diverged(const std::string& what, eid at);
    std::string thread_dump(unsigned t) const;

    // ----- traces and replay strings (trace.cpp) -----
    void trace_event(eid e);
    void trace_text(const std::string& s, src_loc where);
    std::string ctx_label(unsigned t) const;
    std::string loc_name(std::uintptr_t a) const;
    std::string value_text(std::uintptr_t loc, value_t v) const;
    std::string pointer_text(value_t v) const;
    std::string name_pointers_in(const std::string& msg) const;
    std::string resolve_names(const std::string& text) const;
    std::string encode_replay(const graph& gr) const;
    bool decode_replay(const std::string& s, graph& gr) const;

    // The run as the memory model sees it.
    execution exec() const { return execution{g(), nthreads_, rt_, th_, locs_, run_}; }
    graph& g() { return stack_[ci_].g; }
    const graph& g() const { return stack_[ci_].g; }
    event& ev(eid e) { return g().at(e); }
    const event& ev(eid e) const { return g().at(e); }
    ev_rt& rt(eid e) { return rt_[e.t][e.i]; }
    const ev_rt& rt(eid e) const { return rt_[e.t][e.i]; }
    bool is_done(eid e) const { return e.i < rt_[e.t].size() && rt_[e.t][e.i].done; }

    const program& prog_;
    const options& opt_;
    std::unique_ptr<consistency> model_;
    unsigned nthreads_ = 0;
    std::vector<std::unique_ptr<char[]>> stacks_, arenas_;

    std::vector<context> stack_;
    // Contexts the search is done with, kept for their buffers (explorer::apply), a few.
    std::vector<context> spare_;
    static constexpr std::size_t max_spare = 64;
    std::size_t ci_ = 0;
    result res_;
    clock_type::time_point start_;
    bool stop_all_ = false;
    std::string internal_msg_;

    // per run of the program
    std::uint64_t run_ = 0;  // runs so far (reset_execution)
    std::vector<thread_rt> th_;
    std::vector<std::vector<ev_rt>> rt_;
    loc_table locs_;
    std::vector<alloc_rec> allocs_;
    // The fibers (fibers.cpp): where each waits to start its thread in a run, and where the
    // scheduler waits for the running fiber to come back.
    struct fiber {
        jmp_buf start;
        bool made = false;
    };
    std::unique_ptr<fiber[]> fibers_;
    jmp_buf sched_jmp_;
    unsigned cur_ = 0;
    bool in_fiber_ = false;
    bool replaying_ = false;
    bool decoded_ = false;  // the graph came from a replay string, not from the search
    bool violated_ = false;
    bool stale_cut_ = false;  // the run ended at a stale wait (events.cpp, stale_await)
    bool restart_ = false;    // a wait was revisited in place: the run starts again (not counted)
    struct pending_in_place {
        eid r, w;
    };
    std::vector<pending_in_place> in_place_;  // found by calc_revisits, made by revisit_in_place
    bool discard_ = false;     // the graph turned out inconsistent, or a budget or a replay
                               // fault cut the run (not counted)
    bool check_fill_ = false;  // LKMM: a hole was just filled
    // Counts the changes to what peek() returns (a write ran, a plain store); peeked_at_: the
    // count when after_event last looked.
    std::uint64_t peek_epoch_ = 1, peeked_at_ = 0;
    std::uint32_t events_ = 0;
    std::size_t replay_left_ = 0;  // graph events not yet run in this run
    std::uint32_t tick_ = 0;
    unsigned next_loc_name_ = 0;
    std::vector<eid> post_replay_writes_;  // their revisits are computed when the replay is done
    std::string viol_cls_, viol_msg_;
    src_loc viol_where_{"", 0, ""};
    std::map<std::string, bool> seen_classes_;
    // LKMM: fingerprints of the starts of runs (fingerprint.cpp, start_fingerprint), and of the
    // complete executions counted. On several threads, seen_starts_ holds those above the cut
    // and chunk_starts_ those of the chunk going on above the second cut (parallel.cpp).
    std::unordered_set<fingerprint, fingerprint_hash> seen_starts_, seen_graphs_, chunk_starts_;
    // A part of a split search under the LKMM: the starts at and below the cut (split.cpp).
    std::unordered_set<fingerprint, fingerprint_hash> part_starts_;
    // The run whose start is `key` has not been explored yet (by any thread): explore it.
    bool new_start(const fingerprint& key);
    // The execution `key` has not been counted yet (by any thread): count it.
    bool new_graph(const fingerprint& key);
    pointer_names pointer_names_;  // LKMM: for the fingerprints (fingerprint.cpp)
    std::vector<eid> readded_;     // LKMM: the reads the last backward revisit added anew (lb.cpp)
    bool skip_apply_ = false;      // apply_lkmm dropped its item (lb.cpp)
    // LKMM: the key of the graph the backward revisit being applied was checked on as a
    // candidate (lb.cpp), for consistent_before_run; null: none
    const lkmm_key* applied_key_ = nullptr;
    // a split search (split.cpp): the depth of the run going on, the subtrees met at the plan's
    // depth, and whether this part owns the run going on
    split_plan split_;
    std::uint32_t depth_ = 0;
    std::uint64_t roots_ = 0;
    bool owned_ = true;
    // On several threads: the piece of the chunk the runs are counted in, which is the number
    // of subtrees at the second cut met in this chunk so far (parallel.cpp).
    std::uint64_t sub_ = 0;
    // On several threads: stopped because another thread ran out of a budget; stop_threads():
    // this one ran out of a budget, or failed, and every thread stops.
    bool cut_ = false;
    void stop_threads();

    bool tracing_ = false;
    std::string trace_;
    unsigned trace_n_ = 0;
    std::map<std::pair<unsigned, std::uint32_t>, unsigned> trace_no_;
    // Names for the trace (rt::name_memory, rt::pointer_values): the trace run writes markers
    // that resolve_names turns into names once the whole run has named its memory.
    struct named_range {
        std::uintptr_t base;
        std::size_t bytes;
        std::string name;
    };
    std::vector<named_range> names_;
    std::unordered_set<std::uintptr_t> pointer_locs_;
    std::string traced_msg_;  // the trace run's violation message, with markers
};

// The C11 race check of an access (memory.cpp: plain accesses and races) against the latest
// accesses of each kind by each thread, then recorded as the latest of its own. An atomic read
// (the most frequent access) only meets a plain write: that much is inline.
inline void explorer::race_check(loc_rt& l, const hclock& vc, std::int64_t pos, bool write,
                                 bool plain, src_loc where) {
    if (opt_.model == memory_model::lkmm) return;  // the LKMM's own data-race flag (lkmm.cpp)
    if (write || plain) {
        race_check_all(l, vc, pos, write, plain, where);
        return;
    }
    if (l.has_plain_write && l.pw_thread != cur_ && l.pw.pos >= 0 &&
        !vc.covers_pos(l.pw_thread, l.pw.pos))
        race(l.pw_thread, l.pw, "plain write", write, plain, where);
    l.atomic_access[cur_] = access_rec{pos, where};
}

inline void explorer::race_check_all(loc_rt& l, const hclock& vc, std::int64_t pos, bool write,
                                     bool plain, src_loc where) {
    const unsigned t = cur_;
    auto racy = [&](unsigned u, const access_rec& a) {
        return u != t && a.pos >= 0 && !vc.covers_pos(u, a.pos);
    };
    if (l.has_plain_write && racy(l.pw_thread, l.pw))
        race(l.pw_thread, l.pw, "plain write", write, plain, where);
    for (unsigned u = 0; u < nthreads_; ++u) {
        if (write && racy(u, l.plain_read[u]))
            race(u, l.plain_read[u], "plain read", write, plain, where);
        if (plain && racy(u, l.atomic_write[u]))
            race(u, l.atomic_write[u], "atomic write", write, plain, where);
        if (plain && write && racy(u, l.atomic_access[u]))
            race(u, l.atomic_access[u], "atomic read", write, plain, where);
    }
    const access_rec me{pos, where};
    if (plain && write) {
        l.has_plain_write = true;
        l.pw_thread = t;
        l.pw = me;
    } else if (plain) {
        l.plain_read[t] = me;
    } else {
        l.atomic_access[t] = me;
        if (write) l.atomic_write[t] = me;
    }
}

}  // namespace kverify::dpor::detail
