; SPDX-License-Identifier: GPL-2.0-only
; percpu_counter preempt-only add_batch (before v6.3): one add, hit by at most one IRQ on its CPU
; between its read of the delta and its update, starting from |delta| < batch, leaves
; |delta| <= 3 x batch - 3; with batch <= INT32_MAX / 3 (pcc_max_batch) that fits in s32.
; The IRQ runs with irqs off, so its own add is atomic on this CPU: it either keeps its result on
; its fast path (|L + x| < batch) or folds and leaves 0. The task then either adds its amount
; (fast path, decided from the stale L) or subtracts the L it read (slow path).
; Mathematical integers: every value here is far inside s64, so nothing wraps before the store.
; Only one interrupted add from a sound delta: pcc_preempt_only_two_irqs shows the bound does not
; survive a second one.
; expect: unsat
(set-logic QF_LIA)
(define-fun absi ((v Int)) Int (ite (< v 0) (- v) v))
(declare-const b Int)      ; batch
(declare-const L Int)      ; delta read by the task
(declare-const a Int)      ; the task's amount
(declare-const x Int)      ; the IRQ's amount
(declare-const irq Bool)   ; did an IRQ land in the window
(assert (and (>= b 1) (<= b 715827882)))                 ; 0 < batch <= INT32_MAX / 3
(assert (< (absi L) b))                                  ; sound start
(define-fun irq_fast () Bool (< (absi (+ L x)) b))
(define-fun L2 () Int (ite irq (ite irq_fast (+ L x) 0) L))     ; delta after the IRQ
(define-fun fast () Bool (< (absi (+ L a)) b))           ; the task's decision, from L
(define-fun final () Int (ite fast (+ L2 a) (- L2 L)))
(assert (not (and (<= (absi final) (- (* 3 b) 3))
                  (>= final (- 2147483648)) (<= final 2147483647))))
(check-sat)
