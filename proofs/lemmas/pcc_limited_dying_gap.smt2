; SPDX-License-Identifier: GPL-2.0-only
; Companion of pcc_limited_unknown_covers: while a CPU is dying (offline, its delta not yet folded
; by cpu_dead) unknown = batch x online CPUs leaves its delta out, but the precise total still
; holds it. Two CPUs online, a third dying with a delta up to the batch: step 2 accepts an add
; that takes the precise total past the limit, by up to the batch. A model exists; the model
; check percpu_counter/limited-add/dying-window finds it (batch 4, limit 8, total 9).
; expect: sat
(set-logic QF_LIA)
(define-fun absi ((v Int)) Int (ite (< v 0) (- v) v))
(declare-const b Int)
(declare-const count Int)
(declare-const amount Int)
(declare-const limit Int)
(declare-const d0 Int)
(declare-const d1 Int)
(declare-const d_dying Int)
(assert (and (>= b 1) (> amount 0)))
(assert (and (<= (absi d0) b) (<= (absi d1) b) (<= (absi d_dying) b)))
(define-fun unknown () Int (* 2 b))                           ; two online CPUs
(assert (<= (+ count amount unknown) limit))
(assert (> (+ count d0 d1 d_dying amount) limit))
(check-sat)
