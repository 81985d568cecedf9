; SPDX-License-Identifier: GPL-2.0-only
; The misplaced-parenthesis revision tests `unlikely(abs(count + amount)) >= batch`: unlikely()
; yields 0 or 1, so for every batch >= 2 the slow path is never taken, whatever the local holds:
; the counter never folds and the local grows without bound. Here: no (count, amount, batch >= 2)
; takes the slow path.
; expect: unsat
(set-logic QF_BV)
(declare-const count (_ BitVec 64))
(declare-const amount (_ BitVec 64))
(declare-const batch (_ BitVec 64))
(define-fun abs64 ((x (_ BitVec 64))) (_ BitVec 64) (ite (bvslt x #x0000000000000000) (bvneg x) x))
(define-fun unlikely ((x (_ BitVec 64))) (_ BitVec 64) (ite (= x #x0000000000000000) #x0000000000000000 #x0000000000000001))
(assert (bvsge batch #x0000000000000002))
(assert (bvsge (unlikely (abs64 (bvadd count amount))) batch))
(check-sat)
