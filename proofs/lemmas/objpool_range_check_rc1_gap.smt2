; SPDX-License-Identifier: GPL-2.0-only
; Why v6.7-rc1 needed the fix: its loop only tests head != last. A (head, last) pair with
; head != last that is not a valid window exists (e.g. a stale `last` behind a head moved by
; other poppers: last - head wraps to a huge value), so rc1 can read an entry outside
; [head, last) and move head past last. A model exists.
; expect: sat
(set-logic QF_BV)
(declare-const head (_ BitVec 32))
(declare-const last (_ BitVec 32))
(declare-const n (_ BitVec 32))
(assert (bvuge n #x00000001))
(assert (bvule n #x01000000))
(assert (not (= head last)))
(assert (not (and (bvugt (bvsub last head) #x00000000) (bvule (bvsub last head) n))))
(check-sat)
