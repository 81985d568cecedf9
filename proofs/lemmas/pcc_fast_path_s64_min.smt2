; SPDX-License-Identifier: GPL-2.0-only
; Companion of pcc_fast_path_bound: without a bound on |amount| the fast-path test is fooled by
; abs(S64_MIN) = S64_MIN < batch, and S64_MIN would be stored into the s32 local. The lemma's
; precondition is needed (callers never pass such amounts; the kernel's abs() of S64_MIN is the
; same value). A model exists.
; expect: sat
(set-logic QF_BV)
(declare-const count (_ BitVec 64))
(declare-const amount (_ BitVec 64))
(declare-const batch (_ BitVec 64))
(define-fun abs64 ((x (_ BitVec 64))) (_ BitVec 64) (ite (bvslt x #x0000000000000000) (bvneg x) x))
(assert (bvsge batch #x0000000000000001))
(assert (bvsle batch #x000000007fffffff))
(assert (bvsge count #xffffffff80000000))
(assert (bvsle count #x000000007fffffff))
(assert (bvslt (abs64 count) batch))
(define-fun sum () (_ BitVec 64) (bvadd count amount))
(assert (bvslt (abs64 sum) batch))
(assert (not (and (bvsge sum #xffffffff80000000) (bvsle sum #x000000007fffffff))))
(check-sat)
