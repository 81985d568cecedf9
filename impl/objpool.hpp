// SPDX-License-Identifier: GPL-2.0-only
// objpool: the kernel's lock-free MPMC bag of preallocated objects (lib/objpool.c and
// include/linux/objpool.h), over one Env; each version it builds is described in impl/VARIANTS.md.
//
// One ring of object pointers per possible CPU. A CPU pushes only into its own ring and pops from
// its own ring first, then from the other possible CPUs in cyclic order. Each kernel version and
// each known-bad mutant is a variant policy (end of file): the handful of knobs that differ.
//
// Differences from the kernel: a class instead of struct objpool_head plus free functions; one
// Env::kmalloc per slot (no gfp flags, vmalloc or NUMA placement); the pool is `this`, so drop()
// has no null-pool case; read-only introspection for checkers; a quiescent test hook that moves
// the sequence numbers (to reach 32-bit wrap-around cheaply).
//
// Three properties the kernel versions do not have, each shown by a test (proofs/objpool.md):
// - pop reads `last` with READ_ONCE, so in C11 (and for ThreadSanitizer) nothing acquires push's
//   release of `last`: no happens-before edge hands the entry or the object's contents over
//   (objpool_fix_acquire_last; tests/stress PayloadHandoverThroughThePoolIsOrdered).
// - push assumes pushes on one CPU commit in reservation order; an NMI push nested inside a push
//   publishes the outer, unwritten entry and then `last` moves backwards (tests/unit
//   ObjpoolFinding.NmiPushNestedInPushDuplicatesAndLosesObjects; F2);
// - push's tail - head > nr_objs warning uses a tail read before an NMI push and fires in a sound
//   pool after a pop on another CPU (ObjpoolFinding.NmiPushBeforeTheHeadReadFiresTheWarning; F4).
// objpool_fix_nested_push repairs the last two: only the outermost push on a CPU commits, and
// the warning is checked once the sequence is reserved.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>

#include "impl/common.hpp"
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
using objpool_all_variants = objpool_variant_list<
    objpool_v6_7, objpool_v6_10, objpool_v6_15, objpool_local_cas, objpool_fix_acquire_last,
    objpool_fix_nested_push, objpool_v6_7_rc1, objpool_mut_publish_before_entry,
    objpool_mut_push_remote, objpool_mut_push_irqs_on, objpool_mut_commit_once,
    objpool_mut_pop_head_relaxed, objpool_mut_pop_entry_after_head, objpool_mut_small_capacity,
    objpool_mut_rc1_acquire_last, objpool_mut_nested_no_recheck, objpool_mut_nested_not_outermost,
    objpool_mut_nested_warn_in_loop, objpool_mut_nested_recheck_once>;
// The variants that must pass every check, and those some checker must reject.
using objpool_good_variants = variant_filter_t<variant_is_sound, objpool_all_variants>;
using objpool_bad_variants = variant_filter_t<variant_is_known_bad, objpool_all_variants>;

static_assert(variant_names_distinct(objpool_all_variants{}), "two objpool variants share a name");

template <class F>
void for_each_objpool_variant(F&& f) {
    objpool_all_variants::for_each(static_cast<F&&>(f));
}

// Pool limits, as in the kernel.
inline constexpr int objpool_nr_object_max = 1 << 24;
inline constexpr int objpool_object_size_max = 1 << 16;

// ----- the pool -----

template <class Env, class Variant = objpool_v6_15>
class objpool {
public:
    using variant = Variant;
    // Builds one object in place (its memory is zeroed); nonzero aborts init with that value.
    using objinit_fn = int (*)(void* obj, void* context);
    // Called once, after the slots are freed, when the last reference goes.
    using release_fn = int (*)(objpool* pool, void* context);

    // What a checker reads of one slot (Env::peek: the newest values, never for the algorithm).
    struct slot_snapshot {
        std::uint32_t head, tail, last;
    };

    objpool() = default;
    // Like the kernel's objpool_head there is no destructor work: the owner must fini() (or drop
    // every object and fini) so that release runs; a forgotten pool leaks and leak checks see it.
    ~objpool() = default;
    objpool(const objpool&) = delete;
    objpool& operator=(const objpool&) = delete;

    // Creates nr_objs objects of object_size bytes spread over the possible CPUs. Returns 0,
    // err_inval for bad sizes, err_nomem (everything freed, release not called) or objinit's
    // nonzero result (everything freed, release not called).
    int init(int nr_objs, int object_size, objinit_fn objinit, void* context, release_fn release) {
        if (nr_objs <= 0 || nr_objs > objpool_nr_object_max || object_size <= 0 ||
            object_size > objpool_object_size_max)
            return err_inval;

        // The kernel zeroes the head first, so a pool may be initialised again after free().
        cpu_slots_ = nullptr;
        nr_objs_ = 0;
        nr_possible_cpus_ = Env::num_possible_cpus();
        nr_cpu_ids_ = Env::nr_cpu_ids();
        obj_size_ = round_up(object_size, sizeof(long));
        // Every slot can hold every object: objects drift to whichever CPU pushes them.
        capacity_ =
            Variant::capacity_holds_all
                ? roundup_pow_of_two(static_cast<std::uint32_t>(nr_objs))
                : roundup_pow_of_two((static_cast<std::uint32_t>(nr_objs) + nr_possible_cpus_ - 1) /
                                     nr_possible_cpus_);
        context_ = context;
        release_ = release;

        void* array = Env::kmalloc(nr_cpu_ids_ * sizeof(slot*));
        if (array == nullptr) return err_nomem;
        cpu_slots_ = static_cast<slot**>(array);
        for (unsigned i = 0; i < nr_cpu_ids_; i++) cpu_slots_[i] = nullptr;

        const int rc = init_percpu_slots(nr_objs, context, objinit);
        if (rc != 0) {
            fini_percpu_slots();
            return rc;
        }
        // One reference per object plus one for the pool itself (dropped by fini). Relaxed: no
        // other CPU can see the pool before init returns.
        Env::write_once(ref_, nr_objs_ + 1);
        return 0;
    }

    // Returns an object to the pool: into this CPU's slot, always succeeds (capacity >= nr_objs).
    int push(void* obj) {
        [[maybe_unused]] typename Env::irq_flags flags{};
        // irqs off: no IRQ can nest a second push on this CPU, and no migration between reading
        // the CPU id and the commit. NMIs are NOT blocked.
        if constexpr (Variant::push_irqs_off) flags = Env::local_irq_save();
        unsigned cpu = Env::raw_smp_processor_id();
        if constexpr (Variant::push_to_next_cpu) cpu = next_possible_wrap(cpu);
        const int rc = try_add_slot(obj, cpu);
        if constexpr (Variant::push_irqs_off) Env::local_irq_restore(flags);
        return rc;
    }

    // Takes an object: from this CPU's slot first, then each other possible CPU once, cyclically.
    // nullptr means every slot looked empty when it was visited.
    void* pop() {
        void* obj = nullptr;
        // irqs off: the CPU id stays ours for the whole walk (the kernel uses raw_ accessors).
        const typename Env::irq_flags flags = Env::local_irq_save();
        const unsigned start = Env::raw_smp_processor_id();
        if constexpr (Variant::pop_walk == objpool_walk::possible_wrap) {
            const cpumask possible = Env::possible_mask();
            for (unsigned cpu = possible.next(static_cast<int>(start) - 1);
                 obj == nullptr && cpu < cpumask::max_cpus;
                 cpu = possible.next(static_cast<int>(cpu)))
                obj = Env::raw(try_get_slot(cpu));  // the caller's from here
            for (unsigned cpu = possible.next(-1); obj == nullptr && cpu < start;
                 cpu = possible.next(static_cast<int>(cpu)))
                obj = Env::raw(try_get_slot(cpu));  // the caller's from here
        } else {
            unsigned cpu = start;
            // The bound is re-evaluated every iteration, as in the kernel: up to v6.9 that is a
            // popcount of the possible mask each time, from v6.10 the count cached at init.
            for (unsigned i = 0; i < walk_count(); i++) {
                obj = Env::raw(try_get_slot(cpu));  // the caller's from here
                if (obj != nullptr) break;
                cpu = next_possible_wrap(cpu);
            }
        }
        Env::local_irq_restore(flags);
        return obj;
    }

    // Retires an object for good: one reference less; the last one frees the pool (0).
    int drop(void* obj) {
        if (obj == nullptr) return err_inval;
        if (ref_sub_and_test(1)) {
            free();
            return 0;
        }
        return err_again;
    }

    // Pops every object still in the pool and drops them together with the pool's own reference.
    // Contract: no push is in flight or starts once fini begins (users wait a grace period).
    int fini() {
        int count = 1;  // the pool's own reference
        while (pop() != nullptr) count++;
        if (ref_sub_and_test(count)) free();
        return 0;
    }

    // Frees every slot and the slot array, then calls release (the kernel's objpool_free).
    void free() {
        if (cpu_slots_ == nullptr) return;
        fini_percpu_slots();
        if (release_ != nullptr) release_(this, context_);
    }

    // ----- introspection for checkers: never used by the algorithm -----
    friend struct objpool_words;  // a checker's names for the pool's words in its traces
    int nr_objs() const { return nr_objs_; }
    std::uint32_t capacity() const { return capacity_; }
    unsigned nr_possible_cpus() const { return nr_possible_cpus_; }
    std::size_t obj_size() const { return obj_size_; }
    bool allocated() const { return cpu_slots_ != nullptr; }
    int refcount() const { return Env::peek(ref_); }
    bool has_slot(unsigned cpu) const {
        return cpu_slots_ != nullptr && cpu < nr_cpu_ids_ && cpu_slots_[cpu] != nullptr;
    }
    slot_snapshot slot_state(unsigned cpu) const {
        const slot& s = *cpu_slots_[cpu];
        return {Env::peek(s.head), Env::peek(s.tail), Env::peek(s.last)};
    }
    void* entry_at(unsigned cpu, std::uint32_t seq) const {
        const slot& s = *cpu_slots_[cpu];
        return Env::peek(entries(s)[seq & s.mask]);
    }
    // Objects created in this CPU's slot at init (the k-th possible CPU's share).
    unsigned objects_in_slot(unsigned cpu) const {
        if (!has_slot(cpu)) return 0;
        // k = how many possible CPUs come before cpu
        const std::uint64_t below = (std::uint64_t{1} << cpu) - 1;
        const unsigned k = cpumask(Env::possible_mask().bits() & below).weight();
        return share(k, static_cast<unsigned>(nr_objs_));
    }
    // The i-th object laid out behind this CPU's entries.
    void* object_at(unsigned cpu, unsigned i) const {
        return objects(*cpu_slots_[cpu]) + static_cast<std::size_t>(i) * obj_size_;
    }
    // True iff p is the start of one of the pool's objects.
    bool is_pool_object(const void* p) const {
        if (cpu_slots_ == nullptr) return false;
        const auto* b = static_cast<const unsigned char*>(p);
        for (unsigned cpu = 0; cpu < nr_cpu_ids_; cpu++) {
            if (cpu_slots_[cpu] == nullptr) continue;
            const unsigned char* first = objects(*cpu_slots_[cpu]);
            const std::size_t span = objects_in_slot(cpu) * obj_size_;
            // Compare as integers: pointers into different allocations are not ordered in C++.
            const auto off =
                reinterpret_cast<std::uintptr_t>(b) - reinterpret_cast<std::uintptr_t>(first);
            if (off < span && off % obj_size_ == 0) return true;
        }
        return false;
    }

    // Test hook, quiescent pools only: renumbers every slot so that head == base, keeping each
    // slot's published objects and their order (then head <= last == tail). Lets tests cross
    // 2^32 without 2^32 operations. Returns err_nomem if its scratch buffer cannot be allocated.
    int rebase_for_test(std::uint32_t base) {
        if (cpu_slots_ == nullptr) return 0;
        void* mem = Env::kmalloc(capacity_ * sizeof(void*));
        if (mem == nullptr) return err_nomem;
        void** old = static_cast<void**>(mem);
        for (unsigned cpu = 0; cpu < nr_cpu_ids_; cpu++) {
            if (cpu_slots_[cpu] == nullptr) continue;
            slot& s = *cpu_slots_[cpu];
            const std::uint32_t head = Env::peek(s.head);
            const std::uint32_t n = Env::peek(s.last) - head;
            for (std::uint32_t i = 0; i < capacity_; i++) old[i] = Env::peek(entries(s)[i]);
            // Rotate the whole ring so that the entry of sequence head + i lands at base + i.
            for (std::uint32_t i = 0; i < capacity_; i++)
                Env::write_once(entries(s)[(base + i) & s.mask], old[(head + i) & s.mask]);
            Env::write_once(s.head, base);
            Env::write_once(s.tail, base + n);
            Env::write_once(s.last, base + n);
        }
        Env::kfree(mem);
        return 0;
    }

private:
    using seq_atomic = typename Env::template atomic<std::uint32_t>;
    using entry = typename Env::template atomic<void*>;

    // One per possible CPU, followed in the same allocation by entries[capacity] and then by the
    // objects this CPU received at init.
    // Invariant (no bug): head <= last <= tail and tail - head <= nr_objs <= capacity, mod 2^32;
    // [last, tail) is non-empty only while the owner CPU is inside a push.
    struct slot {
        seq_atomic head{0};  // consumer sequence: moved by any CPU with a release cas
        seq_atomic tail{0};  // reservation sequence: moved only by the owner CPU
        seq_atomic last{0};  // commit sequence: [head, last) are published entries
        std::uint32_t mask;  // capacity - 1
    };

    static constexpr std::size_t round_up(std::size_t v, std::size_t to) {
        return (v + to - 1) / to * to;
    }
    static constexpr std::size_t entries_offset = round_up(sizeof(slot), alignof(entry));
    std::size_t objects_offset() const {
        return round_up(entries_offset + capacity_ * sizeof(entry), alignof(long));
    }
    static entry* entries(const slot& s) {
        auto* base = reinterpret_cast<unsigned char*>(const_cast<slot*>(&s));
        return std::launder(reinterpret_cast<entry*>(base + entries_offset));
    }
    unsigned char* objects(const slot& s) const {
        return reinterpret_cast<unsigned char*>(const_cast<slot*>(&s)) + objects_offset();
    }
    // The k-th possible CPU's share of n objects.
    unsigned share(unsigned k, unsigned n) const {
        return n / nr_possible_cpus_ + (k < n % nr_possible_cpus_ ? 1u : 0u);
    }

    int init_percpu_slots(int nr_objs, void* context, objinit_fn objinit) {
        unsigned k = 0;  // counts possible CPUs only: holes in the mask are skipped
        for (unsigned cpu = 0; cpu < nr_cpu_ids_; cpu++) {
            if (!Env::cpu_possible(cpu)) continue;
            const unsigned nodes = share(k++, static_cast<unsigned>(nr_objs));
            const std::size_t size = objects_offset() + nodes * obj_size_;
            void* mem = Env::kmalloc(size);
            if (mem == nullptr) return err_nomem;
            std::memset(mem, 0, size);  // objects start zeroed, as with the kernel's memset
            slot* s = ::new (mem) slot;
            s->mask = capacity_ - 1;
            for (std::uint32_t i = 0; i < capacity_; i++) ::new (&entries(*s)[i]) entry(nullptr);
            // Only this CPU issues CPU-local RMWs on tail, and only it writes last.
            Env::declare_cpu_local(s->tail, cpu);
            Env::declare_cpu_local(s->last, cpu);
            cpu_slots_[cpu] = s;

            const int rc = init_percpu_slot(*s, nodes, context, objinit);
            if (rc != 0) return rc;
        }
        return 0;
    }

    int init_percpu_slot(slot& s, unsigned nodes, void* context, objinit_fn objinit) {
        unsigned char* obj = objects(s);
        for (unsigned i = 0; i < nodes; i++) {
            if (objinit != nullptr) {
                const int rc = objinit(obj, context);
                if (rc != 0) return rc;
            }
            // Relaxed: the pool is not shared yet; publishing it to other CPUs orders these.
            const auto tail = Env::read_once(s.tail);
            Env::write_once(Env::at(entries(s), tail & s.mask), static_cast<void*>(obj));
            Env::write_once(s.tail, tail + 1);
            Env::write_once(s.last, tail + 1);
            // Invariant established: head == 0 <= last == tail == i + 1 <= nr_objs.
            obj += obj_size_;
            nr_objs_++;
        }
        return 0;
    }

    void fini_percpu_slots() {
        if (cpu_slots_ == nullptr) return;
        for (unsigned cpu = 0; cpu < nr_cpu_ids_; cpu++) {
            slot* s = cpu_slots_[cpu];
            if (s == nullptr) continue;
            // The model constructs and leak-checks every atomic: destroy them before kfree.
            for (std::uint32_t i = 0; i < capacity_; i++) entries(*s)[i].~entry();
            s->~slot();
            Env::kfree(s);
        }
        Env::kfree(cpu_slots_);
        cpu_slots_ = nullptr;
    }

    // The next possible CPU after cpu, wrapping to the first (kernel cpumask_next_wrap).
    static unsigned next_possible_wrap(unsigned cpu) {
        const cpumask possible = Env::possible_mask();
        unsigned next = possible.next(static_cast<int>(cpu));
        if (next >= Env::nr_cpu_ids()) next = possible.next(-1);
        return next;
    }

    unsigned walk_count() const {
        if constexpr (Variant::pop_walk == objpool_walk::popcount_each_pop)
            return Env::num_possible_cpus();
        else
            return nr_possible_cpus_;
    }

    // Appends obj to cpu's slot. Correct only for cpu == this CPU with irqs off (single owner).
    int try_add_slot(void* obj, unsigned cpu) {
        slot& s = *cpu_slots_[cpu];
        // Relaxed: only this CPU writes tail, so we read our own latest value (an NMI push that
        // moves it in between only makes the cas below fail and refresh it).
        auto tail = Env::read_once(s.tail);
        if constexpr (!Variant::push_warn_reserved) {
            do {
                // Relaxed: head feeds only the diagnostic below, never a decision.
                const auto head = Env::read_once(s.head);
                // Invariant relied on: tail - head <= nr_objs, else some object is in the pool
                // twice. With NMIs this tail may be stale: an NMI push since our read of it,
                // and a pop on another CPU since then, can put head past it (F4: the warning
                // fires, and the kernel's WARN_ON_ONCE with it, in a sound pool).
                Env::warn_once(tail - head > static_cast<std::uint32_t>(nr_objs_),
                               "objpool: push finds tail - head > nr_objs");
            } while (!reserve(s.tail, tail));
        } else {
            while (!reserve(s.tail, tail)) {
            }
            // Relaxed: head feeds only the diagnostic, never a decision.
            const auto head = Env::read_once(s.head);
            // Invariant relied on (fix-nested-push): with `tail` reserved and not yet committed,
            // head <= last <= tail, and our object is in no slot, so 0 < tail + 1 - head <=
            // nr_objs, whatever NMIs did before. Else some object is in the pool twice, or head
            // overran `last`.
            Env::warn_once(tail + 1 - head > static_cast<std::uint32_t>(nr_objs_),
                           "objpool: push finds tail - head > nr_objs");
        }
        // Sequence `tail` is ours: [last, tail + 1) is non-empty until the commit below.
        if constexpr (Variant::push_commit_first) {
            static_assert(Variant::push_commit == objpool_commit::reservation, "one commit knob");
            publish(s.last, tail + 1);
            Env::write_once(Env::at(entries(s), tail & s.mask), obj);  // mutant: already published
        } else {
            // Relaxed: published by the commit of `last` below.
            Env::write_once(Env::at(entries(s), tail & s.mask), obj);
            commit(s, tail);
        }
        return 0;
    }

    // Publishes sequence `seq`, reserved and written by this push, and whatever else is due.
    static void commit(slot& s, val_t<Env, std::uint32_t> seq) {
        if constexpr (Variant::push_commit == objpool_commit::reservation) {
            // The kernel: correct only if pushes on this CPU commit in reservation order.
            publish(s.last, seq + 1);
            return;
        }
        // fix-nested-push. Pushes on one CPU only nest (an NMI runs to completion before the code
        // it interrupted resumes), so the pushes in flight on this CPU form a stack.
        // Invariant (per slot): every sequence in [last, tail) is either reserved by a push still
        // in flight on this CPU (its entry may be unwritten) or written by a nested push that
        // returned without committing; if [last, tail) is non-empty, sequence `last` belongs to
        // the outermost push in flight; `last` never decreases.
        if constexpr (Variant::push_commit != objpool_commit::every_push) {
            // Relaxed: only this CPU writes `last`, so this is its newest value (a nested push
            // that ran since then has returned). last != seq means an interrupted push below us
            // holds an older sequence, possibly unwritten: we must not publish past it. It
            // publishes ours when it commits, since it reads tail after we return.
            if (auto c = Env::when(Env::read_once(s.last) != seq)) return;
        }
        // We are the outermost push in flight on this CPU: every sequence below seq is
        // published, and every one in (seq, tail) was written by a push that nested inside us
        // and returned. Publish up to seq + 1 first, then up to tail until it stops moving.
        val_t<Env, std::uint32_t> upto = seq + 1;
        for (unsigned stores = 1;; ++stores) {
            publish(s.last, upto);
            if constexpr (Variant::push_commit == objpool_commit::outermost_once) return;
            if constexpr (Variant::push_commit == objpool_commit::outermost_recheck_once) {
                if (stores == 2) return;  // the mutant: no re-read after its second store
            }
            // Relaxed: only this CPU writes tail. An NMI push that reserved after our read of
            // tail (or of seq) saw last != its sequence and left its entry for us to publish. An
            // NMI that came after the store above found last == its sequence and committed
            // itself, up to the tail we now read: storing that value again keeps `last` monotonic.
            const auto now = Env::read_once(s.tail);
            if (auto c = Env::when(now == upto)) return;
            upto = now;
        }
    }

    static bool reserve(seq_atomic& tail_seq, val_t<Env, std::uint32_t>& tail) {
        if constexpr (Variant::push_reserve == objpool_reserve::cas_local)
            // CPU-local: atomic against an NMI on this CPU, which is all that can interleave,
            // because only the owner CPU ever writes tail (the single-owner rule).
            return Env::try_cmpxchg_local(tail_seq, tail, tail + 1);
        else
            // Acquire, as in the kernel: the entry store below stays after the reservation.
            // No other CPU releases tail (only the owner writes it), so nothing pairs with it.
            return Env::try_cmpxchg_acquire(tail_seq, tail, tail + 1);
    }

    static void publish(seq_atomic& last, val_t<Env, std::uint32_t> seq) {
        if constexpr (Variant::push_commit_release)
            // Release: publishes the entry written above, and the object's contents written by
            // its holder before push, to a popper reading `last` (pairs with the acquire of
            // `last` in pop only in fix-acquire-last; the kernel reads it with READ_ONCE).
            Env::store_release(last, seq);
        else
            Env::write_once(last, seq);  // the mutant: publishes nothing
    }

    val_t<Env, std::uint32_t> read_last(const slot& s) const {
        if constexpr (Variant::pop_last_acquire)
            // Acquire: pairs with the store_release of `last` in push; the entry at `head` and
            // the object's contents are then visible.
            return Env::load_acquire(s.last);
        else
            // Relaxed (kernel READ_ONCE): only decides whether to try; the kernel leans on the
            // control dependency, which orders no later load in C11 or the LKMM.
            return Env::read_once(s.last);
    }

    bool move_head(slot& s, val_t<Env, std::uint32_t>& head) {
        if constexpr (Variant::pop_head_release)
            // Release: the entry read above is done before the slot position is given back, and
            // the next popper's acquire of head sees a `last` no older than the one we used.
            // Failure is unordered and refreshes head.
            return Env::try_cmpxchg_release(s.head, head, head + 1);
        else
            return Env::try_cmpxchg_relaxed(s.head, head, head + 1);
    }

    // Takes the oldest published entry of cpu's slot, or nullptr if [head, last) looks empty.
    val_t<Env, void*> try_get_slot(unsigned cpu) {
        slot& s = *cpu_slots_[cpu];
        // Acquire: pairs with the release cas of head by the popper that moved it here.
        auto head = Env::load_acquire(s.head);
        while (auto c = Env::when(head != read_last(s))) {
            if constexpr (Variant::pop_range_check) {
                // Invariant relied on: a consistent (head, last) has 0 < last - head <= nr_objs.
                // Otherwise head came from a newer moment than last (head overran the stale last
                // we read): re-read head, relaxed because the cas below validates it anyway.
                if (auto c = Env::when(read_last(s) - head - 1 >= std::uint32_t(nr_objs_))) {
                    head = Env::read_once(s.head);
                    // Not in the kernel: marks the spin-loop iteration (a pause on real CPUs;
                    // in the model the yield the mapping table prescribes for spin loops, so
                    // the search stays fair instead of spinning on stale values).
                    Env::cpu_relax();
                    continue;
                }
            }
            if constexpr (!Variant::pop_entry_after_head) {
                // Relaxed: published by push's commit of `last`; read BEFORE head moves on, since
                // after that the owner may refill this position.
                const auto obj = Env::read_once(Env::at(entries(s), head & s.mask));
                if (move_head(s, head)) return obj;
            } else {
                const auto seq = head;
                if (move_head(s, head)) return Env::read_once(Env::at(entries(s), seq & s.mask));
            }
        }
        return nullptr;
    }

    // refcount_sub_and_test: release on every decrement, acquire on the one that reaches zero, so
    // every holder's accesses to the pool come before the free (the kernel's documented ordering).
    // The kernel gets the acquire from smp_acquire__after_ctrl_dep() after a fetch_sub_release; we
    // take the zero-reaching step with a fully ordered cas: the same guarantee, one ThreadSanitizer
    // can see (it ignores standalone fences). Underflow warns and leaves the count (saturation).
    bool ref_sub_and_test(int n) {
        auto old = Env::read_once(ref_);  // relaxed: the cas below validates it
        for (;;) {
            if (auto c = Env::when(Env::warn_once(old < n, "objpool: reference count underflow")))
                return false;
            if (auto c = Env::when(old == n)) {
                // Fully ordered: acquires every earlier release decrement (below) before the
                // free; a failure refreshes old and we decide again.
                if (Env::try_cmpxchg(ref_, old, 0)) return true;
            } else {
                // Release: our accesses to the pool and its objects happen before the free;
                // pairs with the fully ordered cas above of whoever reaches zero.
                if (Env::try_cmpxchg_release(ref_, old, old - n)) return false;
            }
        }
    }

    slot** cpu_slots_ = nullptr;  // [nr_cpu_ids]; null for impossible CPUs
    std::size_t obj_size_ = 0;    // rounded up to a multiple of sizeof(long)
    int nr_objs_ = 0;             // objects actually created
    unsigned nr_possible_cpus_ = 0;
    unsigned nr_cpu_ids_ = 0;
    std::uint32_t capacity_ = 0;  // next power of two >= nr_objs: a slot can hold every object
    typename Env::template atomic<int> ref_{0};  // nr_objs + 1 after init
    release_fn release_ = nullptr;
    void* context_ = nullptr;
};

}  // namespace kverify
