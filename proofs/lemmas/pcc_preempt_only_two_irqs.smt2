; SPDX-License-Identifier: GPL-2.0-only
; Companion of pcc_preempt_only_bound: the 3 x batch bound holds for one interrupted add from a
; sound delta, not along a run. Two adds, each hit by one IRQ: the first (fast path) leaves up to
; 3 x batch - 3; the second reads that, takes the slow path, an IRQ replaces it by a value below
; the batch, and the relative subtraction of the stale read leaves up to 4 x batch - 4. At
; batch = INT32_MAX / 3 that is outside s32: the stored delta would wrap. A model exists (e.g.
; L0 = -(b-1), a1 = x1 = 2b-2, a2 = 1, x2 = -(4b-4)); the model check
; percpu_counter/preempt-only/irq2-weak-bound finds the same shape at batch 4.
; expect: sat
(set-logic QF_LIA)
(define-fun absi ((v Int)) Int (ite (< v 0) (- v) v))
(define-fun b () Int 715827882)                          ; pcc_max_batch
(declare-const L0 Int)
(declare-const a1 Int)
(declare-const x1 Int)
(declare-const a2 Int)
(declare-const x2 Int)
(assert (< (absi L0) b))
; add 1: fast path decided from L0, the IRQ adds x1 on its own fast path, then the task adds a1
(assert (< (absi (+ L0 a1)) b))
(assert (< (absi (+ L0 x1)) b))
(define-fun L1 () Int (+ L0 x1 a1))
; add 2: slow path decided from L1, the IRQ adds x2 on its own fast path, the task subtracts L1
(assert (>= (absi (+ L1 a2)) b))
(assert (< (absi (+ L1 x2)) b))
(define-fun L2 () Int (- (+ L1 x2) L1))
(assert (or (< L2 (- 2147483648)) (> L2 2147483647)))
(check-sat)
