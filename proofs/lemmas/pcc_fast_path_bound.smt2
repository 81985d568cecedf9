; SPDX-License-Identifier: GPL-2.0-only
; percpu_counter add_batch: the fast path stores count + amount only when
; |count + amount| < batch, so the local stays strictly below batch and, with
; 1 <= batch <= 2^31 - 1, always fits in s32 (the 64-bit sum is computed exactly first).
; Precondition: |amount| < 2^62, so count + amount cannot wrap and abs() is defined (abs of
; S64_MIN is S64_MIN, negative, and would pass the `< batch` test: a companion lemma shows it).
; expect: unsat
(set-logic QF_BV)
(declare-const count (_ BitVec 64))   ; the local, sign-extended
(declare-const amount (_ BitVec 64))
(declare-const batch (_ BitVec 64))
(define-fun abs64 ((x (_ BitVec 64))) (_ BitVec 64) (ite (bvslt x #x0000000000000000) (bvneg x) x))
(assert (bvsge batch #x0000000000000001))
(assert (bvsle batch #x000000007fffffff))
(assert (bvsge count #xffffffff80000000))                            ; the local is an s32
(assert (bvsle count #x000000007fffffff))
(assert (bvslt (abs64 count) batch))                                ; invariant before
(assert (bvslt amount #x4000000000000000))                          ; |amount| < 2^62
(assert (bvsgt amount #xc000000000000000))
(define-fun sum () (_ BitVec 64) (bvadd count amount))
(assert (bvslt (abs64 sum) batch))                                  ; fast path taken
(assert (not (and (bvslt (abs64 sum) batch)
                  (bvsge sum #xffffffff80000000) (bvsle sum #x000000007fffffff))))
(check-sat)
