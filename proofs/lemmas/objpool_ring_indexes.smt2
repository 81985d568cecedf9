; SPDX-License-Identifier: GPL-2.0-only
; objpool: with capacity a power of two >= nr_objs and mask = capacity - 1, the nr_objs sequence
; numbers of any window [t, t + nr_objs) map to pairwise distinct entries (seq & mask), also when
; the window wraps past 2^32. This is why a slot can hold every object (Invariant:
; tail - head <= nr_objs) without overwriting a live entry.
; expect: unsat
(set-logic QF_BV)
(declare-const t (_ BitVec 32))
(declare-const i (_ BitVec 32))
(declare-const j (_ BitVec 32))
(declare-const k (_ BitVec 32))   ; capacity = 2^k
(declare-const n (_ BitVec 32))
(define-fun cap () (_ BitVec 32) (bvshl #x00000001 k))
(define-fun mask () (_ BitVec 32) (bvsub cap #x00000001))
(assert (bvule k #x00000018))               ; capacity <= 2^24 (nr_objs <= 2^24)
(assert (bvuge n #x00000001))
(assert (bvule n cap))                      ; capacity >= nr_objs
(assert (bvult i n))
(assert (bvult j n))
(assert (not (= i j)))
(assert (= (bvand (bvadd t i) mask) (bvand (bvadd t j) mask)))
(check-sat)
