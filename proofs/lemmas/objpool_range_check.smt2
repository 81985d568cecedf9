; SPDX-License-Identifier: GPL-2.0-only
; objpool pop, v6.7 "head overrun" fix: the unsigned test `last - head - 1 >= nr_objs` is exactly
; NOT (0 < last - head <= nr_objs) in 32-bit wrapping arithmetic, for every head and last and
; every legal nr_objs (1 .. 2^24). So the fix retries precisely when the (head, last) pair read
; cannot be a valid non-empty window of the slot, including across 2^32 wrap-around.
; expect: unsat
(set-logic QF_BV)
(declare-const head (_ BitVec 32))
(declare-const last (_ BitVec 32))
(declare-const n (_ BitVec 32))
(assert (bvuge n #x00000001))
(assert (bvule n #x01000000))
(define-fun retry () Bool (bvuge (bvsub (bvsub last head) #x00000001) n))
(define-fun valid_window () Bool
  (and (bvugt (bvsub last head) #x00000000) (bvule (bvsub last head) n)))
(assert (not (= retry (not valid_window))))
(check-sat)
