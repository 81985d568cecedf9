// SPDX-License-Identifier: GPL-2.0-only
// The interpreter of a litmus thread: runs its statements on a backend (backend.hpp), one
// execution at a time, and computes the dependencies as herd7 does, syntactically:
// - a register's value carries the reads it was computed from, through assignments and
//   arithmetic (a read's own value carries just that read);
// - an access's address operand gives its address dependencies, a store's (or RMW's) value
//   operand its data dependencies;
// - an if condition gives every event of its then- and else-clauses a control dependency on
//   the reads the condition used (the registers and accesses it evaluated, with their own
//   control dependencies), and not the events after the if. A register assigned inside a
//   clause carries that control dependency to the conditions that use it later, as herd7's
//   register events do.
// Operands are evaluated left to right (herd7 leaves them unordered). `a && b` and `a || b`
// (which herd7 does not have) evaluate b only when C would, under a control dependency on a.
#pragma once

#include <vector>

#include "model/litmus/ast.hpp"
#include "model/litmus/backend.hpp"

namespace kverify::litmus {

// One thread's registers during an execution. Sized once per thread; reset() reuses the
// storage, so a run allocates nothing (the dpor engine abandons blocked threads unwound).
struct thread_state {
    std::vector<value> regs;
    std::vector<dep_set> data;  // reads each register's value came from
    std::vector<dep_set> ctrl;  // reads that decided whether and how it was assigned
    event_id next = 0;          // the number of the thread's next event

    void reset(const thread& th);
};

// Runs `th` from its first statement; its registers end in `st` (reset first).
void run_thread(const thread& th, backend& b, thread_state& st);

// The value an RMW writes: `old` combined with `operand`. False when that is arithmetic on a
// location's address (only xchg may write one).
bool apply_rmw(rmw_op o, const value& old, const value& operand, value& out);

}  // namespace kverify::litmus
