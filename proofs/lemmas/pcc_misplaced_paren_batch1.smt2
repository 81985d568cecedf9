; SPDX-License-Identifier: GPL-2.0-only
; Companion of pcc_misplaced_paren: with batch = 1 the broken test does fold (any nonzero sum),
; so the lemma above needs batch >= 2 and is not vacuous. A model exists.
; expect: sat
(set-logic QF_BV)
(declare-const count (_ BitVec 64))
(declare-const amount (_ BitVec 64))
(define-fun abs64 ((x (_ BitVec 64))) (_ BitVec 64) (ite (bvslt x #x0000000000000000) (bvneg x) x))
(define-fun unlikely ((x (_ BitVec 64))) (_ BitVec 64) (ite (= x #x0000000000000000) #x0000000000000000 #x0000000000000001))
(assert (bvsge (unlikely (abs64 (bvadd count amount))) #x0000000000000001))
(check-sat)
