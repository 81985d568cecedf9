// SPDX-License-Identifier: GPL-2.0-only
// The objpool variants (impl/VARIANTS.md): each kernel version, proposed fix and known-bad mutant
// as a policy of the handful of knobs that differ, and the lists the checks iterate. The pool
// that reads the knobs: impl/objpool.hpp.
#pragma once

#include "impl/variant_list.hpp"

namespace kverify {

// ----- variant knobs -----

// How push reserves sequence number `tail` in its own slot.
enum class objpool_reserve {
    cas_acquire,  // try_cmpxchg_acquire: SMP-atomic (merged kernel)
    cas_local,    // try_cmpxchg_local: atomic only against this CPU (the Oct 2023 proposal)
};

// How pop's outer loop visits the possible CPUs (all three visit the same CPUs in the same order).
enum class objpool_walk {
    popcount_each_pop,  // v6.7..v6.9: `i < num_possible_cpus()`, a popcount per iteration
    cached_count,       // v6.10: `i < pool->nr_possible_cpus`, counted once at init
    possible_wrap,      // v6.15: each possible CPU once, from the start CPU up, wrapping to 0
};

// How push commits `last`, i.e. publishes its entry (proofs/objpool.md, F2).
enum class objpool_commit {
    // store_release(last, tail + 1) for its own reservation `tail` (every kernel version).
    // Assumes pushes on one CPU commit in reservation order, which an NMI push nested between
    // an outer push's reservation and its commit breaks.
    reservation,
    // Our repair: a push commits only if its reservation is the oldest uncommitted one on this
    // CPU (last == its sequence: it is the outermost push in flight there); it publishes its
    // own entry, then re-reads tail and publishes up to it until tail stops moving (pushes
    // nested inside it leave their entries written but unpublished, for it to publish).
    outermost,
    // The repair without the re-read of tail after the commit: the outermost push publishes
    // only its own entry, and one that a push nested inside it left stays unpublished (known bad).
    outermost_once,
    // The repair without the outermost test: every push publishes up to tail, so a nested push
    // publishes the outer push's unwritten entry (known bad).
    every_push,
    // The repair re-reading tail once instead of until it stops moving: wrong only when a second
    // NMI push lands in the same push, after that re-read (known bad).
    outermost_recheck_once,
};

// The merged v6.7 algorithm; every other variant derives from one of these and restates only
// what it changes. `name` and `known_bad` are restated by every variant.
struct objpool_v6_7 {
    static constexpr const char* name = "v6.7";
    static constexpr bool known_bad = false;

    // push
    static constexpr bool push_irqs_off = true;  // irq_save around the push
    static constexpr objpool_reserve push_reserve = objpool_reserve::cas_acquire;
    static constexpr bool push_to_next_cpu = false;    // push into the next possible CPU's slot
    static constexpr bool push_commit_first = false;   // store `last` before the entry
    static constexpr bool push_commit_release = true;  // store_release(last) (else WRITE_ONCE)
    static constexpr objpool_commit push_commit = objpool_commit::reservation;
    // push's tail - head > nr_objs warning: in the reservation loop, against the tail read
    // before it (kernel), or once the sequence is reserved (fix-nested-push; F4)
    static constexpr bool push_warn_reserved = false;
    // pop
    static constexpr bool pop_range_check = true;        // the v6.7 "head overrun" fix
    static constexpr bool pop_last_acquire = false;      // READ_ONCE(last) (else smp_load_acquire)
    static constexpr bool pop_head_release = true;       // cas_rel(head) (else cas_relaxed)
    static constexpr bool pop_entry_after_head = false;  // read the entry after moving head
    // after a failed cas of head: the head it read (kernel), or head read again by acquire
    static constexpr bool pop_refresh_acquire = false;
    static constexpr objpool_walk pop_walk = objpool_walk::popcount_each_pop;
    // init
    static constexpr bool capacity_holds_all = true;  // capacity >= nr_objs (else a CPU's share)
};

// v6.7-rc1, before the head-overrun fix (found on an ARM big.LITTLE board).
// Known bad: kept to prove the checker finds the head overrun (duplicate object) that a stale
// `last` causes under the weak model; never for use. Sequentially it is correct.
struct objpool_v6_7_rc1 : objpool_v6_7 {
    static constexpr const char* name = "v6.7-rc1";
    static constexpr bool known_bad = true;
    static constexpr bool pop_range_check = false;
};

// v6.10: push/pop inlined in the header (same behaviour) and the CPU count cached at init.
struct objpool_v6_10 : objpool_v6_7 {
    static constexpr const char* name = "v6.10";
    static constexpr bool known_bad = false;
    static constexpr objpool_walk pop_walk = objpool_walk::cached_count;
};

// v6.15: pop's walk written as "each possible CPU once, wrapping from the start CPU".
struct objpool_v6_15 : objpool_v6_10 {
    static constexpr const char* name = "v6.15";
    static constexpr bool known_bad = false;
    static constexpr objpool_walk pop_walk = objpool_walk::possible_wrap;
};

// The first seed (proposed Oct 2023, never merged): reserve `tail` with a CPU-local cas. Sound
// because only the owner CPU writes `tail` and, with irqs off, only an NMI on that CPU can
// interleave. Otherwise v6.7. The negative control: it must NOT be reported.
struct objpool_local_cas : objpool_v6_7 {
    static constexpr const char* name = "local-cas";
    static constexpr bool known_bad = false;
    static constexpr objpool_reserve push_reserve = objpool_reserve::cas_local;
};

// Not a kernel version: our proposed fix for the C11 reading of pop. The kernel reads `last` with
// READ_ONCE, so in C11 nothing acquires push's store_release(last): a popper may see the new
// `last` and still read the stale entry, and the object's contents are handed over without a
// happens-before edge. Here pop reads `last` with smp_load_acquire. Otherwise v6.15.
struct objpool_fix_acquire_last : objpool_v6_15 {
    static constexpr const char* name = "fix-acquire-last";
    static constexpr bool known_bad = false;
    static constexpr bool pop_last_acquire = true;
};

// Not a kernel version: our repair of F2 and F4 (proofs/objpool.md), on top of fix-acquire-last
// so that F1 cannot mask what it does. An NMI push that lands inside a push on the same CPU
// (between the outer push's reservation and its commit) does not commit: it leaves its entry
// written but unpublished, and the outer push, the oldest uncommitted reservation on this CPU,
// publishes both. `last` then only moves forward and never covers an unwritten entry. No atomic
// RMW is added: the commit reads `last` and `tail` (this CPU's own words, on a cache line push
// already holds) and, only when an NMI pushed during the commit, stores `last` once more.
struct objpool_fix_nested_push : objpool_fix_acquire_last {
    static constexpr const char* name = "fix-nested-push";
    static constexpr bool known_bad = false;
    static constexpr objpool_commit push_commit = objpool_commit::outermost;
    // F4: the warning is checked once the sequence is reserved, where no NMI can make it stale.
    static constexpr bool push_warn_reserved = true;
};

// Not a kernel version: a hardening of fix-nested-push for the LKMM (proofs/objpool.md, "Under
// the LKMM: the refill after a failed cmpxchg"). A failed cmpxchg of head reads without
// ordering, so under the LKMM objpool itself orders nothing of what this CPU does next (a push
// refilling the position a thief is still reading) after the thief's move of head that it read;
// the kernel's pop relies on the caller's push depending on the object pop returned. Here pop
// reads head again with smp_load_acquire after a failed cmpxchg, which pairs with the release of
// whoever moved it: every later access of this CPU comes after that popper's read of its entry,
// and the `last` read next is no older than the one it saw (the range check's retry is not
// entered after a failure).
struct objpool_refresh_acquire : objpool_fix_nested_push {
    static constexpr const char* name = "refresh-acquire";
    static constexpr bool known_bad = false;
    static constexpr bool pop_refresh_acquire = true;
};

// ----- known-bad mutants: one line each away from the variant they derive from -----
// Most derive from fix-acquire-last, the variant that passes in the C11 model: derived from a
// kernel version, the model would report the kernel's own finding (proofs/objpool.md, F1) in
// the same configurations, and the mutant's bug would not be told apart from it.

// Kept to prove the checker finds a popper reading an entry that is not written yet (lost or
// duplicated object, even under sequential consistency): push publishes `last` before it
// writes the entry; never for use.
struct objpool_mut_publish_before_entry : objpool_fix_acquire_last {
    static constexpr const char* name = "mut-publish-before-entry";
    static constexpr bool known_bad = true;
    static constexpr bool push_commit_first = true;
};

// Kept to prove the checker finds the single-owner violation the review feared (then a lost
// reservation): the local-cas push whose helper takes a cpu argument is handed the next possible
// CPU, so two CPUs issue CPU-local cas on one `tail`; never for use.
struct objpool_mut_push_remote : objpool_local_cas {
    static constexpr const char* name = "mut-push-remote";
    static constexpr bool known_bad = true;
    static constexpr bool push_to_next_cpu = true;
};

// Kept to prove the checker finds nested pushes on one CPU (an IRQ between reservation and
// commit publishes an unwritten entry, then `last` moves backwards) and pushes from a migrated
// task: push runs with irqs on; never for use.
struct objpool_mut_push_irqs_on : objpool_fix_acquire_last {
    static constexpr const char* name = "mut-push-irqs-on";
    static constexpr bool known_bad = true;
    static constexpr bool push_irqs_off = false;
};

// Kept to prove the checker finds an unordered publication (entry or payload seen stale after
// the new `last`): push commits `last` with WRITE_ONCE instead of smp_store_release; never for
// use. Based on fix-acquire-last, because in the kernel pop nothing acquires `last` anyway.
struct objpool_mut_commit_once : objpool_fix_acquire_last {
    static constexpr const char* name = "mut-commit-once";
    static constexpr bool known_bad = true;
    static constexpr bool push_commit_release = false;
};

// Kept to prove the checker finds the head overrun that the release on `head` prevents when
// there is no range check: pop moves `head` with a relaxed cas, so the next popper's acquire of
// `head` no longer brings a `last` at least as new. Based on v6.7-rc1 (with the range check the
// stale `last` is caught and retried); never for use.
struct objpool_mut_pop_head_relaxed : objpool_v6_7_rc1 {
    static constexpr const char* name = "mut-pop-head-relaxed";
    static constexpr bool known_bad = true;
    static constexpr bool pop_head_release = false;
};

// Kept to prove the checker finds the v6.7-rc1 head overrun on its own: rc1's pop, but with
// `last` read by load_acquire as in fix-acquire-last, so the stale-entry finding of the kernel
// pops (proofs/objpool.md) cannot mask it. A failed release cas refreshes head without
// ordering; a stale `last` below it then passes rc1's `head != last` test; never for use.
struct objpool_mut_rc1_acquire_last : objpool_v6_7_rc1 {
    static constexpr const char* name = "mut-rc1-acquire-last";
    static constexpr bool known_bad = true;
    static constexpr bool pop_last_acquire = true;
};

// Kept to prove the checker finds a popper reading an entry that the owner already refilled
// (duplicate object; needs nr_objs == capacity, e.g. 1, 2 or 4): pop moves `head` first and
// reads the entry afterwards; never for use.
struct objpool_mut_pop_entry_after_head : objpool_fix_acquire_last {
    static constexpr const char* name = "mut-pop-entry-after-head";
    static constexpr bool known_bad = true;
    static constexpr bool pop_entry_after_head = true;
};

// Kept to prove the checker finds ring overflow once objects drift to one CPU (a live entry is
// overwritten: lost and duplicated objects, even sequentially): the capacity is sized for one
// CPU's share, ceil(nr_objs / N), instead of for every object; never for use.
struct objpool_mut_small_capacity : objpool_fix_acquire_last {
    static constexpr const char* name = "mut-small-capacity";
    static constexpr bool known_bad = true;
    static constexpr bool capacity_holds_all = false;
};

// Kept to prove the checker finds why fix-nested-push re-reads tail after its commit: without
// it the outermost push publishes only its own entry, and an NMI push that nested inside it (and
// so did not commit) stays unpublished: its object is lost in [last, tail); never for use.
struct objpool_mut_nested_no_recheck : objpool_fix_nested_push {
    static constexpr const char* name = "mut-nested-no-recheck";
    static constexpr bool known_bad = true;
    static constexpr objpool_commit push_commit = objpool_commit::outermost_once;
};

// Kept to prove the checker finds why fix-nested-push lets only the outermost push commit:
// without that test, an NMI push inside a push publishes the outer push's entry before it is
// written, and a popper takes whatever was there before (a duplicate object); never for use.
struct objpool_mut_nested_not_outermost : objpool_fix_nested_push {
    static constexpr const char* name = "mut-nested-not-outermost";
    static constexpr bool known_bad = true;
    static constexpr objpool_commit push_commit = objpool_commit::every_push;
};

// Kept to prove that the configurations with two NMIs on a CPU reach two NMI pushes inside one
// push: fix-nested-push re-reading tail once, not until it stops moving. One nested push is
// published by that re-read; a second one landing after it stays unpublished and its object is
// lost. With one NMI it is correct; never for use.
struct objpool_mut_nested_recheck_once : objpool_fix_nested_push {
    static constexpr const char* name = "mut-nested-recheck-once";
    static constexpr bool known_bad = true;
    static constexpr objpool_commit push_commit = objpool_commit::outermost_recheck_once;
};

// Kept to prove the checker finds F4 (proofs/objpool.md) once F2 is repaired: fix-nested-push
// with the kernel's warning in the reservation loop. An NMI push between push's read of tail
// and its read of head, then a pop on another CPU, puts head past that stale tail and the
// warning fires in a sound pool (a panic with panic_on_warn); never for use.
struct objpool_mut_nested_warn_in_loop : objpool_fix_nested_push {
    static constexpr const char* name = "mut-nested-warn-in-loop";
    static constexpr bool known_bad = true;
    static constexpr bool push_warn_reserved = false;
};

// ----- variant lists -----

template <class... Vs>
using objpool_variant_list = variant_list<Vs...>;

// Every variant, each named once: kernel releases, the seed, our proposed fixes, then the
// known-bad ones. The model checks, typed tests and benchmarks iterate this list or its filters.
using objpool_all_variants =
    objpool_variant_list<objpool_v6_7, objpool_v6_10, objpool_v6_15, objpool_local_cas,
                         objpool_fix_acquire_last, objpool_fix_nested_push, objpool_refresh_acquire,
                         objpool_v6_7_rc1, objpool_mut_publish_before_entry,
                         objpool_mut_push_remote, objpool_mut_push_irqs_on, objpool_mut_commit_once,
                         objpool_mut_pop_head_relaxed, objpool_mut_pop_entry_after_head,
                         objpool_mut_small_capacity, objpool_mut_rc1_acquire_last,
                         objpool_mut_nested_no_recheck, objpool_mut_nested_not_outermost,
                         objpool_mut_nested_warn_in_loop, objpool_mut_nested_recheck_once>;
// The variants that must pass every check, and those some checker must reject.
using objpool_good_variants = variant_filter_t<variant_is_sound, objpool_all_variants>;
using objpool_bad_variants = variant_filter_t<variant_is_known_bad, objpool_all_variants>;

static_assert(variant_names_distinct(objpool_all_variants{}), "two objpool variants share a name");

template <class F>
void for_each_objpool_variant(F&& f) {
    objpool_all_variants::for_each(static_cast<F&&>(f));
}

}  // namespace kverify
