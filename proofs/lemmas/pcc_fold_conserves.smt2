; SPDX-License-Identifier: GPL-2.0-only
; percpu_counter add_batch slow path (local-cas form): under the lock it re-reads the local c,
; adds c + amount to the global count and subtracts c from the local. Whatever c is at that
; moment (interrupts may have changed it since the fast-path read), global + local grows by
; exactly `amount` and the local becomes 0: no update is lost or counted twice by the fold.
; The subtraction is a CPU-local op racing only with same-CPU nesting, which happens before the
; re-read or after the subtraction (irqs are off in between).
; expect: unsat
(set-logic QF_BV)
(declare-const global (_ BitVec 64))
(declare-const c (_ BitVec 64))
(declare-const amount (_ BitVec 64))
(define-fun global2 () (_ BitVec 64) (bvadd global (bvadd c amount)))
(define-fun local2 () (_ BitVec 64) (bvsub c c))
(assert (not (and (= (bvadd global2 local2) (bvadd (bvadd global c) amount))
                  (= local2 #x0000000000000000))))
(check-sat)
