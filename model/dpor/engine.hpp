// SPDX-License-Identifier: GPL-2.0-only
// The dpor engine: stateless model checking of a small C++ program over execution graphs, with an
// optimal dynamic partial-order reduction in the style of TruSt (each consistent execution graph
// is explored once), under RC11 (the default) or SC. See model/dpor/README.md for the design.
//
// The engine knows threads, memory events (reads, writes, RMWs, fences), plain race-checked
// accesses, blocking and branch points. It knows nothing of CPUs, interrupts or the algorithms:
// that is the kernel layer's job (model/), which calls the operations of namespace `rt` from
// inside the running program.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "impl/common.hpp"

namespace kverify::dpor {

// Threads per execution: the harness (thread 0) and up to 7 tasks.
inline constexpr unsigned max_threads = 8;

// Access and fence orders. `plain` is a non-atomic (race-checked) access.
enum class mo : std::uint8_t { plain, relaxed, acquire, release, acq_rel, seq_cst };
// rc11: RC11 (the C11 model repaired); sc: sequential consistency; lkmm: the Linux kernel memory
// model (tools/memory-model, lkmmv2), which reads the kernel primitive of every access (`lk`)
// and the dependencies the program declares (rt::annotate_next, rt::ctrl_begin).
enum class memory_model : std::uint8_t { rc11, sc, lkmm };

// What an access or fence is in the LKMM's terms (linux-kernel.def). `automatic` derives it from
// the C11 order: a relaxed access is ONCE, acquire and release are themselves, a seq_cst load or
// store is ONCE between two smp_mb() (the kernel layer's own words), an RMW with seq_cst or the
// kernel's try_cmpxchg is MB; a seq_cst fence is smp_mb, an acquire fence smp_rmb, a release
// fence smp_wmb. The other models ignore it.
enum class lk : std::uint8_t {
    automatic,
    once,       // READ_ONCE, WRITE_ONCE, the _relaxed RMWs
    acquire,    // smp_load_acquire, the _acquire RMWs
    release,    // smp_store_release, the _release RMWs
    mb,         // a fully ordered RMW (xchg, cmpxchg, the value-returning atomics)
    noreturn,   // an RMW that returns nothing (atomic_add, atomic_inc, ...)
    lock,       // spin_lock (its cas: the read half is LKR, the write half LKW)
    unlock,     // spin_unlock (UL)
    lock_fail,  // a spin_trylock that fails (LF)
    f_mb,
    f_rmb,
    f_wmb,
    f_before_atomic,
    f_after_atomic,
    f_after_spinlock,
    f_after_unlock_lock,
    f_barrier,  // barrier(): the compiler's only
};

const char* to_string(mo o);
const char* to_string(memory_model m);
const char* to_string(lk k);
bool parse_memory_model(const std::string& s, memory_model& out);

using value_t = std::uint64_t;

// What a declared await blocks on (rt::await_next).
enum class await_kind : std::uint8_t {
    none,
    unless_equal,   // a load that blocks unless it reads `a`
    equal_or_bits,  // a load that blocks if it reads `a` or a value with any of the bits `b`
    cas_fails,      // a cas or claim that blocks when it fails (its read half is the read)
};

// What the engine runs. Thread 0 runs setup(), then the tasks run in parallel on threads
// 1..tasks (each starts after setup, happens-before included), then thread 0 joins them all and
// runs teardown(). The functions are called anew for every execution; everything they do to
// shared state must go through the operations of namespace rt.
struct program {
    unsigned tasks = 1;
    std::function<void()> setup;
    std::function<void(unsigned task)> task;
    std::function<void()> teardown;
};

struct options {
    memory_model model = memory_model::rc11;
    std::uint64_t max_executions = 0;  // executions (complete + blocked); 0: no limit
    std::uint32_t max_events = 20000;  // events of one execution before it is an `event-limit`
    double budget_s = 0;               // wall-clock budget; 0: none
    bool all_violations = false;       // keep exploring after a violation: one report per class
    bool collect_graphs = false;       // keep the canonical text of every explored graph (tests)
    // With collect_graphs: the text of a complete execution leaves out the accesses to the
    // locations this says are hidden (graph::projection), so that executions that differ only
    // there give one text. Optional.
    std::function<bool(std::uintptr_t)> hidden;
    // SC and RC11: a run whose thread blocks right after a read that took an alternative to the
    // newest write ends there, as a blocked execution, and its alternatives (every execution
    // below it is blocked: events.cpp, explorer::stale_await) are dropped; complete executions
    // and violations found are the same either way. A read the program declared an await
    // (rt::await_next) is not even given such an alternative.
    bool cut_stale_awaits = true;
    // SC and RC11: a thread blocked right after a declared await (rt::await_next: a load, or a
    // cas) that reads the newest write reads the next write to that location in place, where the
    // backward revisit that would give it that write deletes nothing else: the run starts again
    // from its graph and goes on, instead of going on with the thread blocked on an older write
    // (in_place.cpp). Complete executions, violations and deadlocks are the same either way;
    // blocked executions are fewer (result::in_place counts the reads so revisited).
    bool in_place_revisits = true;
    // threads > 1: the depth below each chunk's root of the second cut, where the threads that
    // are done with their own chunks help (parallel.cpp; the tests make it shallow). At least 1.
    unsigned help_levels = 4;
    bool trace = true;  // re-run each reported violation with a trace
    // Where a thread runs, for trace lines (the kernel layer: "cpu0 task T1"). Optional.
    std::function<std::string(unsigned thread)> context;
    // Called after the events the program runs, on its thread (invariant checks): after the
    // first of each run and after every later one that may have changed what rt::peek returns
    // (a write ran, or a plain store came before it), so a check that is a function of what it
    // peeks sees every state it would see after every event. It returns whether it looked:
    // false (nothing to check yet) asks it again after the next event. Optional.
    std::function<bool()> after_event;
    // Stop at the first violation of this class; others are not reported (the SC re-check of
    // a violation found under RC11). Empty: see all_violations.
    std::string stop_class;
    // Called once for every complete execution counted, after the program's teardown ran for it
    // (a program that keeps its own statistics counts there, not in teardown: under the LKMM a
    // run may reach an execution already counted, and it is then not counted again). Optional.
    std::function<void()> on_complete;
    // LKMM: a complete execution that raises the data-race flag is a `data-race` violation
    // (false: it is counted in result::flagged_data_race and the search goes on, as herd7 does).
    bool data_race_is_violation = true;
    // The program judges as under the LKMM (rt::load_buffering() says true) whatever the model:
    // the SC re-check of a violation found under the LKMM asks about the same judgement.
    bool judge_as_lkmm = false;
    // Called every thousand executions (progress display). Optional.
    std::function<void(std::uint64_t executions, std::uint64_t blocked)> progress;
    // Replay exactly the execution a violation's `replay` string describes, and nothing else.
    std::string replay;
    // Explore only part split_part (1-based) of split_parts of the search's tree (0: all of it):
    // the parts are disjoint, their counts add up to the whole search's (model/dpor/README.md).
    // Under the LKMM, whose deduplication spans the whole tree, the parts overlap: a part runs on
    // one thread and lists what it counted (result::counted_ends), and the whole search's counts
    // are those of the union (split.cpp, join_lkmm_parts).
    unsigned split_part = 0, split_parts = 0;
    // Explore on this many threads (README.md, parallel.cpp), each its own explorer of a share of
    // the tree: the counts, the verdict and the violations reported are those of one thread.
    // The program's and these options' functions then run on several threads at once: what they
    // keep from one call to the next must be per thread, set up in on_thread. For a replay, one
    // thread; under the LKMM, one thread with an execution limit, and a violation is reported
    // from a search run again on one thread (parallel.cpp).
    unsigned threads = 1;
    // Called on every thread that runs the program: before its first execution (true) and after
    // its last (false). Optional.
    std::function<void(bool start)> on_thread;
};

struct violation {
    std::string cls;      // short class: data-race, deadlock, livelock, event-limit, leak, ...
    std::string message;  // one line
    src_loc where{"", 0, ""};
    std::string trace;               // the execution in kernel terms (when options::trace)
    std::string replay;              // what reproduces this execution exactly (options::replay)
    std::uint64_t at_execution = 0;  // 1-based index of the execution that showed it
    std::uint64_t split_chunk = 0;   // options::split_parts: the chunk it was found in
    // On several threads (internal to the search, parallel.cpp): the piece of the chunk it was
    // found in (result::chunk::sub) and its place among that piece's runs (1-based).
    std::uint64_t split_sub = 0, piece_at = 0;
    // A part of a split search under the LKMM stopped at a violation in a run another part
    // counts (above the cut): that part reports it, with its trace (split.cpp).
    bool counted_elsewhere = false;
};

struct result {
    std::uint64_t executions = 0;    // complete consistent executions
    std::uint64_t blocked = 0;       // executions cut short by a failed assume (spin, lock, wait)
    std::uint64_t replays = 0;       // program runs (one per explored alternative)
    std::uint64_t stale_cut = 0;     // of the blocked ones: runs ended where a thread blocks
                                     // after a read no revisit changes (events.cpp), whose
                                     // alternatives, all blocked, were not explored
    std::uint64_t in_place = 0;      // waits revisited in place (options::in_place_revisits)
    std::uint64_t unproducible = 0;  // LKMM: load-buffering graphs no run of the program produces
    std::uint64_t flagged_data_race = 0;  // LKMM: complete executions raising data-race
    std::uint64_t flagged_mixed = 0;      // LKMM: complete executions raising mixed-accesses
    bool complete = true;                 // the whole space was explored
    std::string incomplete_reason;        // when !complete
    std::vector<violation> violations;
    std::vector<std::string> graphs;          // collect_graphs: complete executions
    std::vector<std::string> blocked_graphs;  // collect_graphs: blocked executions
    double seconds = 0;
    // options::threads > 1: the threads it ran on, the executions and blocked ones each counted,
    // and the time of the census that shared the tree out (included in seconds).
    unsigned threads = 1;
    std::vector<std::uint64_t> thread_share;
    // On several threads: the runs counted by threads that helped with another's chunk
    // (parallel.cpp).
    std::uint64_t helped_runs = 0;
    double census_seconds = 0;
    // Under the LKMM on several threads, a violation was found: the threads stopped, and the
    // search ran again on one thread (parallel.cpp); the time of the threads' run before.
    bool rerun_on_one = false;
    double parallel_seconds = 0;
    // options::split_parts: the depth of the tree it was split at, the subtrees rooted there, and
    // this part's counts per chunk it explored (chunk 0: before the first subtree, chunk k: from
    // the k-th subtree to the next; part i of N owns the chunks k with k mod N = i - 1).
    struct chunk {
        std::uint64_t index = 0, executions = 0, blocked = 0;
        // On several threads, the piece of the chunk (internal to the search, parallel.cpp): 0
        // before the chunk's first subtree at the second cut, k from its k-th one. The whole
        // search's order is by index, then by sub.
        std::uint64_t sub = 0;
    };
    unsigned split_depth = 0;
    std::uint64_t split_roots = 0;
    std::vector<chunk> split_chunks;
    // A part of a split search under the LKMM: every execution it counted, by fingerprint (the
    // 128 bits of fingerprint.cpp), with the chunk it counted it in and how it ended. The parts
    // of an LKMM search overlap (split.cpp): the whole search's counts are those of the union.
    struct counted_end {
        enum kind_t : std::uint8_t { complete = 0, blocked = 1, stale = 2 };
        std::uint64_t a = 0, b = 0;
        std::uint64_t chunk = 0;
        kind_t kind = complete;
    };
    std::vector<counted_end> counted_ends;
};

result explore(const program& prog, const options& opt);

// ---- operations of the running program, on the current thread ----
namespace rt {

// Index of the calling thread: 0 for the harness, 1..tasks for the tasks.
unsigned thread();

// ---- what the LKMM needs to know (memory_model::lkmm; the other models ignore it) ----
// A read of the calling thread, named as a dependency: its index among the thread's events.
using dep_id = std::uint32_t;
// The event the calling thread's last access made (an RMW: its read half). Call it right after
// the access whose value later code depends on.
dep_id last_event();
// The next access or fence of this thread is the kernel primitive `kind`, its address was
// computed from the reads `addr` and (a write or RMW) its value from the reads `data`.
// `atomic_op`: the next access is an RMW whose write half stores a value computed from what its
// read half read (atomic_and, atomic_or, ... made of a cas): under the LKMM the write is data
// dependent on the read, as for an atomic add (rt::fetch_add is one always); not so for xchg
// and cmpxchg, whose written value is their operand.
void annotate_next(lk kind, const dep_id* addr = nullptr, std::size_t n_addr = 0,
                   const dep_id* data = nullptr, std::size_t n_data = 0, bool atomic_op = false);
// A control dependency: every event of this thread between ctrl_begin and the matching ctrl_end
// (an if's then- and else-clauses; they nest) depends on the reads `cond`.
void ctrl_begin(const dep_id* cond, std::size_t n);
void ctrl_end();
// The values of these reads went where the engine cannot follow them (the program's own state,
// a value made plain): every later event of this thread may depend on them. The exploration
// then treats those events as dependent (it never keeps them unchanged when the reads change);
// the LKMM's axioms get no ordering from it.
void depend_after(const dep_id* reads, std::size_t n);
// An interrupt handler starts (ends) on this thread: the control dependencies of the code it
// interrupted do not reach the handler's events (they nest).
void handler_begin();
void handler_end();
// True while the engine builds a trace (a violation's re-run): extra notes are wanted.
bool tracing();
// True when a read may take the value of a write that has not run yet (the LKMM's load
// buffering), or when the search judges as under the LKMM (options::judge_as_lkmm): a program's
// own bookkeeping must not assume a global order of its steps.
bool load_buffering();
// True when the search reads the dependencies the program declares (annotate_next's addr and
// data, ctrl_begin, depend_after): under the LKMM only. Elsewhere a program need not compute them.
bool reads_dependencies();

// Atomic locations. `init_atomic` is the constructor (a non-atomic initialising write; every other
// access must happen after it). Values are up to 64 bits; `width` (bytes) truncates RMW results.
void init_atomic(void* loc, unsigned width, value_t v, src_loc where);
value_t load(const void* loc, mo order, src_loc where);
void store(void* loc, value_t v, mo order, src_loc where);
// Strong compare-and-swap: on failure `expected` receives the value read (the read alone, with
// the failure order). Success order applies to both halves of the RMW.
bool cas(void* loc, value_t& expected, value_t desired, mo success, mo failure, src_loc where);
// The kernel's try_cmpxchg: fully ordered when it succeeds (a seq_cst fence, a seq_cst cas, a
// seq_cst fence), and ordering nothing when it fails (a relaxed read), as the kernel's memory
// model says (its litmus test cmpxchg-fail-unordered-1 is allowed).
bool cas_fully_ordered(void* loc, value_t& expected, value_t desired, src_loc where);
// A cas on some bits of the word, in one event: when the bits `mask` of the value read are all
// clear it writes that value with the bits `set` set and returns true (a lock, a CPU's token:
// the rest of the word travels with it); otherwise it is a read alone, with the failure order.
// `old` receives the value read either way. The one-event form of a load followed by a cas of
// what it read: no run in which the cas no longer finds what its load read.
bool claim(void* loc, value_t set, value_t mask, value_t& old, mo success, mo failure,
           src_loc where);
value_t fetch_add(void* loc, value_t v, mo order, src_loc where);
value_t exchange(void* loc, value_t v, mo order, src_loc where);
void fence(mo order, src_loc where);

// Plain (non-atomic) locations: race-checked as C11 data races, never a branch point.
void init_plain(void* loc, unsigned width, value_t v, src_loc where);
value_t plain_load(const void* loc, src_loc where);
void plain_store(void* loc, value_t v, src_loc where);

// The newest value of a location: the coherence-latest write executed so far (checks only).
value_t peek(const void* loc);

// A branch point with n outcomes, each explored: returns 0..n-1.
unsigned choose(unsigned n, src_loc where);
// An await: the calling thread blocks (rt::block) right after its next read exactly when the
// value it reads is one the await names. Under SC and RC11 the search then never starts a run
// in which that read reads such a value from a write other than the newest one (a forward
// alternative, or a backward revisit by an older write): each would only block there (see
// options::cut_stale_awaits, which also governs this), so complete executions, violations and
// deadlocks stay the same and only blocked executions go. The engine checks the declaration in
// every run: a thread that blocks where it said it would not, or goes on where it said it would
// block, is an internal error. The kinds: await_kind (above).
void await_next(await_kind kind, value_t a = 0, value_t b = 0);
// assume(false): this thread stops here for good in this execution. `reason` says why. For
// "lock" and "wait" (and "spin", see spin_iteration), an execution that ends with the thread
// blocked on reads of the newest values is a `deadlock` (a `livelock` for spin): nothing will ever
// change them. Any other reason (an assume) only cuts the execution, which is counted as blocked.
[[noreturn]] void block(const char* reason, src_loc where);
// The end of a failed iteration of a spin loop (cpu_relax). A loop iteration that writes nothing
// and reads exactly the values the previous iteration read (since the previous spin_iteration)
// leaves the thread where it was: the thread is blocked there, since the execution in which that
// iteration reads something newer covers it. The first iteration is never blocked: a loop may
// carry state from one iteration to the next (objpool's pop re-reads `head` before it retries),
// and only a repeated iteration proves nothing changed. So a spin costs at most one iteration
// more than its outcomes, and terminates. Contract: an iteration's effect on the thread is a
// function of the values it reads (model/dpor/README.md).
void spin_iteration(src_loc where);
// A property violation: ends the execution and reports `cls`.
[[noreturn]] void fail(const char* cls, const std::string& message, src_loc where);
// A line of its own in the trace (interrupt entry, migration...), only when tracing().
void note(const std::string& text, src_loc where);

// Names for traces, which must print the same text in every run (addresses change from run to
// run). Metadata only: no event, nothing the exploration sees; kept only while tracing().
// [p, p + bytes) is `name`: a location in it is named by the smallest such range (name+offset
// when not at its start), a pointer to its start by the largest range starting there.
void name_memory(const void* p, std::size_t bytes, const std::string& name);
// The values of this location are pointers: traces print them as names (null, a named object,
// &location, or @N in order of first appearance), never as raw addresses; under the LKMM the
// fingerprints of graphs name those into the engine's arenas by arena and offset, the same on
// every thread of a search (a program on several threads must declare its pointers so).
void pointer_values(const void* loc);

// Memory with use-after-free, double-free and leak checks. Freed memory is never reused within
// an execution, and addresses are the same in every execution (per-thread arenas).
void* alloc(std::size_t bytes, src_loc where);
void dealloc(void* p, src_loc where);

}  // namespace rt

}  // namespace kverify::dpor
