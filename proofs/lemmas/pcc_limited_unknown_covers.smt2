; SPDX-License-Identifier: GPL-2.0-only
; percpu_counter limited_add (v6.7), step 2 under the lock, amount > 0: it accepts when
; count + amount + unknown <= limit, unknown = batch x online CPUs. If every CPU that holds a
; delta is counted in unknown and every delta is at most the batch in magnitude (limited_add's
; shortcut keeps <=), the precise total then stays within the limit. Three CPUs, all online: no
; overshoot. (Step 1's shortcut is the same test on a count read without the lock; its overshoot
; is a race, found by the model check percpu_counter/limited-add/smp-race, not arithmetic.)
; expect: unsat
(set-logic QF_LIA)
(define-fun absi ((v Int)) Int (ite (< v 0) (- v) v))
(declare-const b Int)
(declare-const count Int)
(declare-const amount Int)
(declare-const limit Int)
(declare-const d0 Int)
(declare-const d1 Int)
(declare-const d2 Int)
(assert (and (>= b 1) (> amount 0)))
(assert (and (<= (absi d0) b) (<= (absi d1) b) (<= (absi d2) b)))
(define-fun unknown () Int (* 3 b))
(assert (<= (+ count amount unknown) limit))                  ; step 2 accepts
(assert (> (+ count d0 d1 d2 amount) limit))                  ; the precise total crosses
(check-sat)
