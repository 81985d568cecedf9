// SPDX-License-Identifier: GPL-2.0-only
// objpool: the kernel's lock-free MPMC bag of preallocated objects (lib/objpool.c and
// include/linux/objpool.h), over one Env; each version it builds is described in impl/VARIANTS.md.
//
// One ring of object pointers per possible CPU. A CPU pushes only into its own ring and pops from
// its own ring first, then from the other possible CPUs in cyclic order. Each kernel version and
// each known-bad mutant is a variant policy (impl/objpool_variants.hpp): the knobs that differ.
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
#include "impl/objpool_variants.hpp"

namespace kverify {

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
    // obj is a tracked value in the model build: a caller that pushes what it popped keeps the
    // data dependency from pop's read of the entry to push's write of it (the LKMM orders the two;
    // proofs/objpool.md, "the refill after a failed cmpxchg").
    int push(val_t<Env, void*> obj) {
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
    // nullptr means every slot looked empty when it was visited. The object comes back as the
    // value pop read from the entry (a tracked value in the model build), so what the caller
    // computes from it, push included, depends on that read as in the kernel.
    val_t<Env, void*> pop() {
        val_t<Env, void*> obj = nullptr;
        // irqs off: the CPU id stays ours for the whole walk (the kernel uses raw_ accessors).
        const typename Env::irq_flags flags = Env::local_irq_save();
        const unsigned start = Env::raw_smp_processor_id();
        if constexpr (Variant::pop_walk == objpool_walk::possible_wrap) {
            const cpumask possible = Env::possible_mask();
            bool found = false;
            for (unsigned cpu = possible.next(static_cast<int>(start) - 1);
                 !found && cpu < cpumask::max_cpus; cpu = possible.next(static_cast<int>(cpu)))
                found = took(obj, try_get_slot(cpu));
            for (unsigned cpu = possible.next(-1); !found && cpu < start;
                 cpu = possible.next(static_cast<int>(cpu)))
                found = took(obj, try_get_slot(cpu));
        } else {
            unsigned cpu = start;
            // The bound is re-evaluated every iteration, as in the kernel: up to v6.9 that is a
            // popcount of the possible mask each time, from v6.10 the count cached at init.
            for (unsigned i = 0; i < walk_count(); i++) {
                if (took(obj, try_get_slot(cpu))) break;
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
        while (auto c = Env::when(pop() != nullptr)) count++;
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
    int try_add_slot(val_t<Env, void*> obj, unsigned cpu) {
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

    // Whether a slot gave an object (then it is obj). The walk stops there: a control dependency
    // of the stop on the entry read, which (as the LKMM's) covers the stop, not the rest of pop.
    static bool took(val_t<Env, void*>& obj, val_t<Env, void*> got) {
        obj = got;
        if (auto c = Env::when(got != nullptr)) return true;
        return false;
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
                // Failed: `head` is what the cas read, unordered. The repair reads it again.
                if constexpr (Variant::pop_refresh_acquire) head = Env::load_acquire(s.head);
            } else {
                static_assert(!Variant::pop_refresh_acquire, "one pop knob at a time");
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
