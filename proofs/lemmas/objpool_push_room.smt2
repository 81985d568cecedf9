; SPDX-License-Identifier: GPL-2.0-only
; objpool push: the slot invariant 0 <= last - head <= tail - head <= nr_objs (mod 2^32) is kept
; by a push that reserves `tail` and then commits last = tail + 1, given that the pushed object is
; not already in the slot (no duplication), i.e. tail - head < nr_objs before the reservation.
; Pops in between only move head forward within [head, last], which keeps it too.
; expect: unsat
(set-logic QF_BV)
(declare-const head (_ BitVec 32))
(declare-const tail (_ BitVec 32))
(declare-const last (_ BitVec 32))
(declare-const n (_ BitVec 32))
(assert (bvuge n #x00000001))
(assert (bvule n #x01000000))
; before: invariant, the slot is idle (last = tail), and there is room for the object pushed
(assert (= last tail))
(assert (bvule (bvsub tail head) n))
(assert (bvult (bvsub tail head) n))
; after the reservation and the commit
(define-fun tail2 () (_ BitVec 32) (bvadd tail #x00000001))
(define-fun last2 () (_ BitVec 32) (bvadd tail #x00000001))
(assert (not (and (bvule (bvsub last2 head) (bvsub tail2 head))
                  (bvule (bvsub tail2 head) n))))
(check-sat)
