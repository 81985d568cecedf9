// SPDX-License-Identifier: GPL-2.0-only
// The LKMM oracle: for a small C litmus test (parsed by model/litmus), every herd7-style
// candidate execution is enumerated by brute force and kept when the axioms of the Linux-kernel
// memory model hold (lkmm.hpp, written from linux-kernel.cat, linux-kernel.bell and lock.cat,
// variant lkmmv2). It is the reference the dpor engine's LKMM mode is compared with, and shares
// nothing with model/dpor.
//
// Candidates, as herd7 builds them:
// - per thread, every event sequence its code can produce: model/litmus's interpreter runs the
//   thread on a recording backend (runs.cpp) that turns each operation into events and its
//   herd7 dependencies, and makes every read take, in turn, every value of its location's
//   domain. A domain holds values with the write instructions each was computed from (through
//   rf and data dependencies): a location starts with its initial value, and rounds of runs
//   add what their writes write, never a value computed from its own write (no execution
//   has one), until a fixpoint; the runs then take every value of the domains, and rf keeps
//   those a write of the execution writes;
// - one sequence per thread, rf for every read among the writes of its location with its value
//   (the initial write included), and co per location with the initial write first;
// - the lock events as lock.cat has them: spin_lock is LKR then LKW, spin_unlock UL,
//   spin_trylock LKR then LKW or LF, spin_is_locked RL or RU; co orders the LKWs of a lock (an
//   LKW without unlock last), each UL right after its LKW; LKR reads from the write just
//   before its LKW in co, LF from an LKW of its own critical section or from one of another
//   thread, RU from the last UL of its thread before it or from a UL of another thread or the
//   initial write.
// Refused, with a litmus_error and never a result: RCU and SRCU (by the parser), an
// instruction with accesses herd7 leaves unordered (runs.cpp), a spinlock accessed as data or
// observed at the end, an execution with values out of thin air (a cycle of rf and data
// through plain accesses, which herd7 prints symbolic), and tests over the limits (128 events
// per execution, 64 write instructions, 20000 values, max_candidates candidates).
//
// Canonical execution key (the text the engine's executions are compared with):
//   one line per thread, "Pn:" then its events in program order, each " EVENT" separated by
//   ";", then one line per location (by name), "co x: init" then its writes in coherence order:
//     P0: W x=1; F mb; R y=0<-init
//     P1: W y=1; R x=1<-P0:0
//     co x: init P0:0
//     co y: init P1:0
//   Events of thread k are numbered j = 0, 1, ... in program order, counting every R, W and F;
//   an RMW is its read then its write (a failed cmpxchg only its read), a lock its LKR then its
//   LKW. EVENT is "R x=V<-SRC" (SRC is "init" or "Pk:j", the write read from), "W x=V" or
//   "F kind" (kind: mb rmb wmb before-atomic after-atomic after-spinlock after-unlock-lock
//   barrier). V is a decimal int or a location's name (a pointer). Lock events: LKR is
//   "R l=0<-SRC", LKW "W l=1", UL "W l=0", LF and RL "R l=1<-Pk:j", RU "R l=0<-SRC". Every line
//   ends with a newline.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "model/litmus/ast.hpp"
#include "model/litmus/backend.hpp"

namespace kverify::lkmm_oracle {

// Edits of the model, each of which must change the result of some test (the twins).
enum class mutation : std::uint8_t {
    none,
    no_coherence,         // drop `acyclic po-loc | com as coherence`
    no_atomic,            // drop `empty rmw & (fre ; coe) as atomic`
    no_happens_before,    // drop `acyclic hb as happens-before`
    no_propagation,       // drop `acyclic pb as propagation`
    no_plain_coherence,   // drop `empty ... as plain-coherence`
    no_addr,              // addr is empty
    no_data,              // data is empty
    no_ctrl,              // ctrl is empty
    ctrl_forward_closed,  // ctrl reaches every event after its if, not just its clauses
    no_carry_dep,         // the bell's carry-dep dropped (dependencies not through plain rfi)
    no_rmw_data,          // no data dependency of an atomic_op's write on its own read
};
// lock.cat's checks lock-nest, nested-is-locked and unmatched-locks have no mutation: given
// its co0 (an unmatched LKW after every LKW of its lock), coherence implies each of them, so
// dropping one cannot change a result.
const char* to_string(mutation m);

enum class ev_kind : std::uint8_t { read, write, fence };
// The role of a lock event in lock.cat (none: an ordinary access or a fence).
enum class lock_role : std::uint8_t { none, lkr, lkw, ul, lf, rl, ru };

// One event of a thread, as the interpreter's operation produced it.
struct event {
    ev_kind kind = ev_kind::read;
    lock_role lock = lock_role::none;
    litmus::access tag = litmus::access::once;  // the access's annotation (not for fences)
    litmus::fence_kind fence = litmus::fence_kind::mb;
    bool atomic = false;  // from an RMW instruction (the bell's RMW set; a failed cmpxchg too)
    int rmw_write = -1;   // a successful RMW's or lock's read: the index of its write
    unsigned loc = 0;     // R, W
    litmus::value val;    // R: the value read; W: the value written
    std::vector<unsigned> addr, data, ctrl;  // indices of this thread's events it depends on
};

// One way a thread can run: its events and its registers at the end.
struct thread_run {
    std::vector<event> events;
    std::vector<litmus::value> regs;
};

struct oracle_options {
    mutation mut = mutation::none;
    // Skip candidates that cannot be consistent before the model runs: combinations of runs in
    // which a read takes a value no write of theirs writes (it has no rf), and, while the
    // model checks coherence, co against program order and the rf that coherence rules out
    // under the co chosen (a write of the thread between source and read, one after the read
    // not after the source; with atomicity, an RMW read not from the write just before its
    // own), as herd7's cos-opt.cat prunes co. A test checks the results equal those without.
    bool prune = true;
    std::uint64_t max_candidates = 50'000'000;  // more: a litmus_error (never a result)
    // Keep only the executions in which po | rf is acyclic: those a program produces by running
    // (each value read was written before), what an exploring engine (model/dpor, GenMC)
    // reaches. The LKMM allows some others: cycles through dependencies that its
    // happens-before does not see (plain accesses, a control dependency to a read); they are
    // counted in oracle_result::porf_cyclic.
    bool porf_acyclic = false;
};

struct execution {
    std::string key;                   // the canonical key above
    std::vector<litmus::value> state;  // the values of litmus::observed_rlocs(t), in its order
    std::set<std::string> flags;       // data-race, mixed-accesses, unmatched-unlock
};

struct oracle_result {
    std::vector<execution> executions;        // the consistent ones, sorted by key
    std::set<std::string> flags;              // raised by some consistent execution
    std::uint64_t candidates = 0;             // candidate executions checked against the axioms
    std::uint64_t porf_cyclic = 0;            // consistent, left out by porf_acyclic
    std::uint64_t porf_cyclic_unflagged = 0;  // of those, the ones with no flag (no data race)
    std::string herd_text;    // herd7's block (States ... Observation), with its Flag lines
    std::string observation;  // Never, Sometimes, Always
    bool ok = false;          // the condition as written holds
    std::uint64_t positive = 0, negative = 0;  // herd7's Witnesses line
    std::vector<std::string> states;           // "0:r0=1; [x]=2", in herd7's order
};

// Throws litmus::litmus_error, with the position, for a test the oracle does not support
// (oracle.cpp says which constructs) and when max_candidates runs out.
oracle_result run_oracle(const litmus::test& t, const oracle_options& opt = {});

// Every run of each thread under the final value domains (the first step of run_oracle).
std::vector<std::vector<thread_run>> thread_runs(const litmus::test& t);

}  // namespace kverify::lkmm_oracle
