// SPDX-License-Identifier: GPL-2.0-only
// percpu_counter: a global s64 `count` guarded by a raw spinlock, plus one s32 delta per CPU.
// An add stays in the adding CPU's delta until the delta would reach `batch`; then the delta and
// the amount are folded into `count` under the lock (the versions: impl/VARIANTS.md).
// add_batch is a compile-time Variant, so every version the project checks (pre-v6.3
// preempt-only, v6.3 irqsave, v6.11 local-cas, the RFC posting) and the known-bad mutants that
// the checkers must catch are built from this one source, each as the few lines where it differs.
//
// Differences from the kernel:
// - The default batch is per counter instead of the global `percpu_counter_batch`. It is computed
//   the same way (max(32, 2 x online CPUs)) at init(), by compute_batch() (the kernel's CPU-online
//   callback) and by cpu_dead(), so tests need no global state.
// - Per-CPU storage is embedded (Env::percpu), so init() cannot fail, and there is no global list
//   of counters for the hotplug callback: whoever takes a CPU down calls cpu_dead() per counter.
// - `count` is an Env atomic read with read_once where the kernel reads the plain field without
//   the lock (read(), read_positive(), the limited_add() fast path); under the lock the kernel's
//   plain `count += x` is a read_once/write_once pair, exact because the lock serialises writers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

#include "impl/common.hpp"
#include "impl/guards.hpp"
#include "impl/variant_list.hpp"

namespace kverify {

// Preconditions of every operation that takes a batch: 0 < batch <= pcc_max_batch.
// The kernel passes an s32 batch and relies, without saying so, on small batches. Our bound keeps
// every intermediate value of every variant inside s32: a fast-path amount is below 2 x batch in
// magnitude (|local| < batch and |local + amount| < batch), a limited_add() local reaches at most
// batch, and one interrupted preempt-only add starting below batch leaves the local below
// 3 x batch (see add_batch_decide_then_add). Along a run of interrupted preempt-only adds the
// local keeps growing (two give 4 x batch - 4, lemma pcc_preempt_only_two_irqs) and can leave
// s32: that variant is known bad and outside this guarantee. Amounts are s64; `count`, amounts and
// limits must stay far from S64_MIN/S64_MAX (|x| <= 2^62 is ample), as the kernel also assumes.
inline constexpr std::int32_t pcc_max_batch = INT32_MAX / 3;

// The kernel's floor for the default batch.
inline constexpr std::int32_t pcc_min_default_batch = 32;

// Which shape of add_batch a variant uses.
enum class pcc_form {
    preempt_only,  // decide, then add, with preemption off (v3.11 .. v6.2)
    irqsave,       // decide, then add, with irqs off (v6.3; archs without a CPU-local cmpxchg)
    local_cas,     // CPU-local cmpxchg loop, lock only to fold (v6.11)
};

// What it takes for a checker to see a known-bad variant misbehave.
enum class pcc_exposure {
    none,        // sound: no execution breaks a property
    sequential,  // one CPU, no interrupts: any sequential test sees it
    interrupt,   // an interrupt (or a migration) on the adding CPU inside add_batch
    smp,         // two CPUs inside the counter at once
};

// How limited_add's lockless shortcut is kept from racing with a precise sum on another CPU.
enum class pcc_limited_sync {
    // v6.7: none. The shortcut trusts an unlocked read of `count`, and the precise step trusts
    // the deltas it reads: both can decide on states from before the other's update.
    none,
    // Our repair (proofs/percpu_counter.md): a sequence count `limited_seq`, written under the
    // lock. The precise step makes it odd, then smp_mb, then reads the deltas, and makes it even
    // again (release) after its fold. The shortcut reads it (acquire) before `count`, adds to its
    // delta, smp_mb, and re-reads it: if it changed (or was odd), it takes the add back and
    // decides under the lock. With both barriers, either the precise step sees the shortcut's
    // add, or the shortcut sees the precise step (store buffering is forbidden).
    seqcount,
    // The repair with the precise step leaving the count alone: the shortcut never notices it.
    seqcount_no_bump,
    // The repair without the two smp_mb: the store buffering outcome is allowed again.
    seqcount_no_mb,
};

namespace detail {

constexpr std::int64_t pcc_abs(std::int64_t v) noexcept { return v < 0 ? -v : v; }

// Every knob at its correct (v6.11 local-cas) setting. A variant derives from this or from
// another variant and redefines only what differs; percpu_counter reads the knobs as Variant::x,
// so a redefinition in the derived type wins.
struct pcc_variant_base {
    static constexpr bool known_bad = false;
    static constexpr pcc_exposure exposure = pcc_exposure::none;
    static constexpr const char* bug = nullptr;  // the property a known-bad variant breaks

    static constexpr pcc_form form = pcc_form::local_cas;
    static constexpr bool preempt_off = false;        // local-cas: preempt_disable around it all
    static constexpr bool reread_under_lock = true;   // slow path re-reads the local when locked
    static constexpr bool fold_takes_lock = true;     // slow path folds under the spinlock
    static constexpr bool fold_adds_amount = true;    // the fold carries `amount` into count
    static constexpr bool sum_includes_dying = true;  // sum() covers online | dying CPUs (v6.3)
    // limited_add (v6.7 unless a variant says otherwise)
    static constexpr pcc_limited_sync limited_sync = pcc_limited_sync::none;
    // `unknown` = batch x (online | dying CPUs), the CPUs sum() counts (v6.7: online only)
    static constexpr bool limited_counts_dying = false;

    // The fold decision of every form: would this CPU's delta reach the batch?
    static constexpr bool must_fold(std::int64_t local_plus_amount, std::int32_t batch) noexcept {
        return pcc_abs(local_plus_amount) >= batch;
    }

    // Local-cas form: install `nv` as this CPU's delta if it still holds `old` (else `old`
    // receives the current value). Atomic against interrupts on this CPU; checked against the
    // CPU we run on at the instant of the operation, so a migration since the read just fails.
    template <class Env, class P, class T>
    static bool local_update(P& counters, T& old, T nv) {
        return Env::this_cpu_try_cmpxchg(counters, old, nv);
    }
};

}  // namespace detail

// ----- the versions -----

// v6.11 on archs with a CPU-local cmpxchg (the second seed): no preemption or irq disabling on
// the fast path at all; the slow path takes the lock with irqs off and re-reads the local.
struct pcc_local_cas : detail::pcc_variant_base {
    static constexpr const char* name = "local-cas";
};

// v6.3, still used where the arch has no CPU-local cmpxchg: the whole decide-then-add runs with
// irqs off, so no interrupt on this CPU can land between the read and the add.
struct pcc_irqsave : detail::pcc_variant_base {
    static constexpr const char* name = "irqsave";
    static constexpr pcc_form form = pcc_form::irqsave;
};

// Before v6.3: decide-then-add with only preemption off. An interrupt that adds on this CPU
// between the read and the add is not lost (the add and the fold's subtraction are relative) but
// the delta can end at or beyond the batch: |local| < 3 x batch after one interrupted add from a
// sound delta, and no bound at all along a run (proofs/percpu_counter.md). Known bad:
// kept as the kernel had it, to prove the checker finds the broken batch bound; never for use.
struct pcc_preempt_only : detail::pcc_variant_base {
    static constexpr const char* name = "preempt-only";
    static constexpr bool known_bad = true;
    static constexpr pcc_exposure exposure = pcc_exposure::interrupt;
    static constexpr const char* bug = "batch bound: |local| >= batch after an add hit by an IRQ";
    static constexpr pcc_form form = pcc_form::preempt_only;
};

// The seed's RFC posting: the local-cas loop inside preempt_disable, with the non-irq-safe
// __this_cpu_cmpxchg. Where that is a plain read-compare-write (the generic form, which real_env's
// *_nocheck tier uses), an interrupt that adds between its read and its write is overwritten.
// On x86 the kernel's __this_cpu_cmpxchg is one instruction and the RFC happens to be safe.
// Known bad: kept as posted, to prove the checker finds that lost update; never for use.
struct pcc_rfc : pcc_local_cas {
    static constexpr const char* name = "rfc";
    static constexpr bool known_bad = true;
    static constexpr pcc_exposure exposure = pcc_exposure::interrupt;
    static constexpr const char* bug = "exact sum: an IRQ's add lost inside the non-irq-safe cas";
    static constexpr bool preempt_off = true;
    template <class Env, class P, class T>
    static bool local_update(P& counters, T& old, T nv) {
        return Env::this_cpu_try_cmpxchg_nocheck(counters, old, nv);
    }
};

// Negative control: local-cas with preemption off around the whole add_batch. Provably harmless
// (it only removes migrations, which local-cas already tolerates); a report here is a false alarm.
struct pcc_local_cas_preempt_off : pcc_local_cas {
    static constexpr const char* name = "local-cas-preempt-off";
    static constexpr bool preempt_off = true;
};

// ----- known-bad mutants -----

// Kept to prove the checker finds a counter that never folds (the posted revision with
// `unlikely(abs(count + amount)) >= batch`: a 0/1 truth value compared with the batch, so for
// batch > 1 every add stays local and the delta grows without bound); never for use.
struct pcc_mut_misplaced_paren : pcc_local_cas {
    static constexpr const char* name = "mut-misplaced-paren";
    static constexpr bool known_bad = true;
    static constexpr pcc_exposure exposure = pcc_exposure::sequential;
    static constexpr const char* bug = "batch bound: never folds";
    static constexpr bool must_fold(std::int64_t local_plus_amount, std::int32_t batch) noexcept {
        return static_cast<int>(detail::pcc_abs(local_plus_amount) != 0) >= batch;
    }
};

// Kept to prove the checker finds a slow path that trusts the local it read before taking the
// lock: after an interrupt's add (or a migration) in between, the subtraction leaves a delta of
// up to 2 x batch; never for use.
struct pcc_mut_stale_local : pcc_local_cas {
    static constexpr const char* name = "mut-stale-local";
    static constexpr bool known_bad = true;
    static constexpr pcc_exposure exposure = pcc_exposure::interrupt;
    static constexpr const char* bug = "batch bound: fold subtracts a stale local";
    static constexpr bool reread_under_lock = false;
};

// Kept to prove the checker finds a fold done without the lock (irqs off only): two CPUs folding
// at once race on `count` and one fold is lost; never for use.
struct pcc_mut_unlocked_fold : pcc_local_cas {
    static constexpr const char* name = "mut-unlocked-fold";
    static constexpr bool known_bad = true;
    static constexpr pcc_exposure exposure = pcc_exposure::smp;
    static constexpr const char* bug = "exact sum: concurrent folds lose one";
    static constexpr bool fold_takes_lock = false;
};

// Kept to prove the checker finds a fast path without a CPU-local cmpxchg: it reads the local,
// then writes back local + amount with this_cpu_write, so an interrupt's add in between is
// overwritten (a lost update); never for use.
struct pcc_mut_write_back : pcc_local_cas {
    static constexpr const char* name = "mut-write-back";
    static constexpr bool known_bad = true;
    static constexpr pcc_exposure exposure = pcc_exposure::interrupt;
    static constexpr const char* bug = "exact sum: an IRQ's add overwritten by the write-back";
    template <class Env, class P, class T>
    static bool local_update(P& counters, T& /*old*/, T nv) {
        Env::this_cpu_write(counters, nv);
        return true;
    }
};

// Kept to prove the checker finds a fold that moves only the old delta into `count` and drops
// the amount that triggered it; never for use.
struct pcc_mut_fold_drops_amount : pcc_local_cas {
    static constexpr const char* name = "mut-fold-drops-amount";
    static constexpr bool known_bad = true;
    static constexpr pcc_exposure exposure = pcc_exposure::sequential;
    static constexpr const char* bug = "exact sum: every fold loses its amount";
    static constexpr bool fold_adds_amount = false;
};

// Kept to prove the checker finds the pre-v6.3 sum over online CPUs only, which misses the delta
// of a CPU that is going down (offline, still dying, not yet folded by cpu_dead); never for use.
struct pcc_mut_sum_skips_dying : pcc_local_cas {
    static constexpr const char* name = "mut-sum-skips-dying";
    static constexpr bool known_bad = true;
    static constexpr pcc_exposure exposure = pcc_exposure::sequential;
    static constexpr const char* bug = "exact sum: a dying CPU's delta is skipped";
    static constexpr bool sum_includes_dying = false;
};

// ----- limited_add: our repair and its twins -----

// Not a kernel version: our repair of limited_add's two overshoots (proofs/percpu_counter.md),
// otherwise local-cas. `unknown` covers the dying CPUs, whose deltas the precise sum counts, and
// a sequence count keeps the lockless shortcut from racing with a precise step on another CPU.
// Cost on the shortcut: an acquire load and a re-load of the sequence count and one smp_mb.
struct pcc_fix_limited_add : pcc_local_cas {
    static constexpr const char* name = "fix-limited-add";
    static constexpr pcc_limited_sync limited_sync = pcc_limited_sync::seqcount;
    static constexpr bool limited_counts_dying = true;
};

// Kept to prove the checker finds why fix-limited-add counts the dying CPUs in `unknown`:
// without it, an add between a CPU going offline and cpu_dead() crosses the limit by up to that
// CPU's delta, with no concurrency at all; never for use.
struct pcc_mut_limited_online_only : pcc_fix_limited_add {
    static constexpr const char* name = "mut-limited-online-only";
    static constexpr bool known_bad = true;
    static constexpr pcc_exposure exposure = pcc_exposure::sequential;
    static constexpr const char* bug = "limit: unknown leaves out a dying CPU's delta";
    static constexpr bool limited_counts_dying = false;
};

// Kept to prove the checker finds why the precise step of fix-limited-add bumps the sequence
// count: without it the shortcut's re-check never fires, and the v6.7 race is back; never for
// use.
struct pcc_mut_limited_no_bump : pcc_fix_limited_add {
    static constexpr const char* name = "mut-limited-no-bump";
    static constexpr bool known_bad = true;
    static constexpr pcc_exposure exposure = pcc_exposure::smp;
    static constexpr const char* bug = "limit: a precise step unseen by a racing shortcut";
    static constexpr pcc_limited_sync limited_sync = pcc_limited_sync::seqcount_no_bump;
};

// Kept to prove the checker finds why fix-limited-add needs its two smp_mb: without them the
// shortcut may read the old sequence count while the precise step reads the old delta (store
// buffering), which no interleaving shows; never for use.
struct pcc_mut_limited_no_mb : pcc_fix_limited_add {
    static constexpr const char* name = "mut-limited-no-mb";
    static constexpr bool known_bad = true;
    static constexpr pcc_exposure exposure = pcc_exposure::smp;
    static constexpr const char* bug = "limit: store buffering between shortcut and precise step";
    static constexpr pcc_limited_sync limited_sync = pcc_limited_sync::seqcount_no_mb;
};

// ----- variant lists, for tests and checkers that iterate them -----

template <class T>
using pcc_tag = variant_tag<T>;
template <class... Vs>
using pcc_variant_list = variant_list<Vs...>;

// Every variant, each named once.
using pcc_all_variants =
    pcc_variant_list<pcc_preempt_only, pcc_irqsave, pcc_local_cas, pcc_rfc,
                     pcc_local_cas_preempt_off, pcc_mut_misplaced_paren, pcc_mut_stale_local,
                     pcc_mut_unlocked_fold, pcc_mut_write_back, pcc_mut_fold_drops_amount,
                     pcc_mut_sum_skips_dying, pcc_fix_limited_add, pcc_mut_limited_online_only,
                     pcc_mut_limited_no_bump, pcc_mut_limited_no_mb>;

template <class List, class F>
void pcc_for_each_variant(F&& f) {
    List::for_each(static_cast<F&&>(f));
}

template <class V>
using pcc_is_sound = variant_is_sound<V>;
template <class V>
using pcc_is_known_bad = variant_is_known_bad<V>;
// Correct in every execution without interrupts, migrations or a second CPU.
template <class V>
struct pcc_is_sequentially_correct : std::bool_constant<V::exposure != pcc_exposure::sequential> {};
// limited_add differs from v6.7 (its add_batch is that of the variant it derives from).
template <class V>
struct pcc_changes_limited_add
    : std::bool_constant<V::limited_sync != pcc_limited_sync::none || V::limited_counts_dying> {};

namespace detail {
template <class... Vs>
constexpr bool pcc_traits_consistent(pcc_variant_list<Vs...>) {
    return (... && (Vs::known_bad == (Vs::exposure != pcc_exposure::none) &&
                    Vs::known_bad == (Vs::bug != nullptr)));
}
}  // namespace detail

template <template <class> class Pred, class List>
using pcc_filter_t = variant_filter_t<Pred, List>;

using pcc_sound_variants = pcc_filter_t<pcc_is_sound, pcc_all_variants>;
using pcc_known_bad_variants = pcc_filter_t<pcc_is_known_bad, pcc_all_variants>;

static_assert(detail::pcc_traits_consistent(pcc_all_variants{}),
              "known_bad, exposure and bug must agree for every variant");
static_assert(variant_names_distinct(pcc_all_variants{}),
              "two percpu_counter variants share a name");

// ----- the counter -----

template <class Env, class Variant = pcc_local_cas>
class percpu_counter {
    using s32 = std::int32_t;
    using s64 = std::int64_t;

public:
    using env = Env;
    using variant = Variant;

    // The kernel's default batch for a machine with `online` CPUs.
    static constexpr s32 default_batch_for(unsigned online) noexcept {
        const s64 b = 2 * static_cast<s64>(online);
        return b > pcc_min_default_batch ? static_cast<s32>(b) : pcc_min_default_batch;
    }

    percpu_counter() = default;
    percpu_counter(const percpu_counter&) = delete;
    percpu_counter& operator=(const percpu_counter&) = delete;

    // Before anyone else can see the counter (the kernel: percpu_counter_init). Nothing to
    // allocate, so it cannot fail. Relaxed stores suffice: whoever publishes the counter to other
    // CPUs provides the ordering (a thread start, a release store of the pointer).
    void init(s64 amount) {
        Env::write_once(count_, amount);
        for_each_cpu(Env::possible_mask(),
                     [&](unsigned cpu) { Env::per_cpu_write(counters_, cpu, s32{0}); });
        compute_batch();
    }

    // After everyone has stopped using it (the kernel frees the per-CPU area). Returns the
    // object to its initial state so a use after destroy reads 0, not a leftover delta.
    void destroy() { init(0); }

    // Recomputes the default batch from the online CPUs (the kernel's CPU-online callback).
    // Relaxed: add() may read the old or the new batch; either is a valid batch.
    void compute_batch() { Env::write_once(batch_, default_batch_for(Env::num_online_cpus())); }

    // ----- adds -----

    void add_batch(s64 amount, s32 batch) {
        if constexpr (Variant::form != pcc_form::local_cas) {
            add_batch_decide_then_add(amount, batch);
        } else if constexpr (Variant::preempt_off) {
            preempt_guard<Env> no_preempt;
            add_batch_local_cas(amount, batch);
        } else {
            add_batch_local_cas(amount, batch);
        }
    }
    void add(s64 amount) { add_batch(amount, batch()); }
    void sub(s64 amount) { add(-amount); }
    void inc() { add(1); }
    void dec() { add(-1); }

    // Adds `amount` only if the total stays within `limit` (amount > 0: total + amount <= limit;
    // amount < 0: total + amount >= limit); returns whether it added. The v6.7 algorithm,
    // including its lockless shortcut, which can overshoot: see limited_add(limit, amount, batch).
    bool limited_add(s64 limit, s64 amount) { return limited_add(limit, amount, batch()); }
    bool limited_add(s64 limit, s64 amount, s32 batch);

    // ----- reads -----

    // Cheap and approximate: off from sum() by at most the deltas, |error| < batch x CPUs.
    // Relaxed: an approximation by contract; nothing else is published through `count`.
    s64 read() const { return Env::raw(Env::read_once(count_)); }
    s64 read_positive() const {
        const s64 v = Env::raw(Env::read_once(count_));  // one read, tested and returned as is
        return v >= 0 ? v : 0;
    }

    // Exact at quiescence: count plus the delta of every online or dying CPU, under the lock
    // with irqs off. Concurrent fast-path adds are each counted 0 or 1 times (each is one write
    // of its CPU's delta); folds cannot interleave (they take the lock).
    s64 sum() const {
        const typename Env::irq_flags flags = Env::spin_lock_irqsave(lock_);
        const s64 ret = Env::raw(Env::read_once(count_)) + locals_sum_locked();  // lock held
        Env::spin_unlock_irqrestore(lock_, flags);
        return ret;
    }
    s64 sum_positive() const {
        const s64 v = sum();
        return v >= 0 ? v : 0;
    }

    // Sets the total to v: zero every possible CPU's delta, then count = v, under the lock.
    // An add racing on another CPU's fast path may be lost, by contract (as in the kernel).
    void set(s64 v) {
        const typename Env::irq_flags flags = Env::spin_lock_irqsave(lock_);
        for_each_cpu(Env::possible_mask(), [&](unsigned cpu) {
            Env::per_cpu_write(counters_, cpu, s32{0});  // remote untorn store; see above
        });
        Env::write_once(count_, v);  // lock held; write_once for the lockless readers
        Env::spin_unlock_irqrestore(lock_, flags);
    }

    // Sign of (total - rhs): from read() when it is farther from rhs than the deltas could
    // explain (batch x online CPUs), else from the exact sum(). `batch` must bound every delta.
    int compare(s64 rhs, s32 batch) const {
        s64 count = read();
        if (detail::pcc_abs(count - rhs) > static_cast<s64>(batch) * Env::num_online_cpus())
            return count > rhs ? 1 : -1;
        count = sum();
        return count > rhs ? 1 : count < rhs ? -1 : 0;
    }
    int compare(s64 rhs) const { return compare(rhs, batch()); }

    // ----- hotplug -----

    // After `cpu` is dead (offline, running nothing): fold its delta into count and zero it,
    // under the lock with irqs off; recompute the default batch first, as the kernel does.
    void cpu_dead(unsigned cpu) {
        compute_batch();
        const typename Env::irq_flags flags = Env::spin_lock_irqsave(lock_);
        // Remote relaxed access is enough: a dead CPU writes its delta no more, and every other
        // writer of a remote delta (set, cpu_dead) holds the lock.
        const s32 local = Env::raw(Env::per_cpu_read(counters_, cpu));
        add_to_count_locked(local);
        Env::per_cpu_write(counters_, cpu, s32{0});
        Env::spin_unlock_irqrestore(lock_, flags);
    }

    // ----- introspection for checkers (not part of the kernel API) -----

    // CPU `cpu`'s delta: a relaxed remote read, untorn, possibly already stale.
    s32 local(unsigned cpu) const { return Env::raw(Env::per_cpu_read(counters_, cpu)); }
    // The default batch add() and limited_add(limit, amount) use. Relaxed: see compute_batch().
    s32 batch() const { return Env::raw(Env::read_once(batch_)); }
    // The newest value of count, for invariants only.
    s64 peek_count() const { return Env::peek(count_); }
    // Names the counter's words by role for a checker's traces (Env::name_as, model Envs only).
    void name_words() const {
        Env::name_as(lock_, "fbc->lock");
        Env::name_as(count_, "fbc->count");
        Env::name_as(counters_, "counters");
        Env::name_as(batch_, "fbc->batch");
        if constexpr (has_limited_seq) Env::name_as(limited_seq_, "fbc->limited_seq");
    }

private:
    template <class F>
    static void for_each_cpu(cpumask mask, F&& f) {
        for (unsigned cpu = mask.next(-1); cpu < cpumask::max_cpus;
             cpu = mask.next(static_cast<int>(cpu)))
            f(cpu);
    }

    // Caller holds lock_ (mut-unlocked-fold: only irqs off). The lock orders every writer of
    // count, so a relaxed read then write is exact; write_once because read() and the
    // limited_add() fast path read count without the lock.
    void add_to_count_locked(s64 delta) { Env::write_once(count_, Env::read_once(count_) + delta); }

    // Caller holds lock_. Deltas of every online or dying CPU (online only for the pre-v6.3
    // mutant). Each remote read is relaxed: an untorn word that its owner may be changing with a
    // fast-path add; any value it held is acceptable (the add is then counted 0 or 1 times).
    s64 locals_sum_locked() const {
        const cpumask online = Env::online_mask();
        s64 s = 0;
        for_each_cpu(Env::possible_mask(), [&](unsigned cpu) {
            if (online.test(cpu) || (Variant::sum_includes_dying && Env::cpu_dying(cpu)))
                s += Env::raw(Env::per_cpu_read(counters_, cpu));
        });
        return s;
    }

    // The CPUs whose deltas limited_add's `unknown` covers: online ones (v6.7), or online and
    // dying ones (fix-limited-add: the CPUs sum() counts; only those can hold a delta).
    static s64 limited_cpus() {
        if constexpr (!Variant::limited_counts_dying) {
            return Env::num_online_cpus();
        } else {
            const cpumask online = Env::online_mask();
            s64 n = 0;
            for_each_cpu(Env::possible_mask(),
                         [&](unsigned cpu) { n += online.test(cpu) || Env::cpu_dying(cpu); });
            return n;
        }
    }

    // preempt-only and irqsave: read the delta, decide, then either fold or add.
    void add_batch_decide_then_add(s64 amount, s32 batch) {
        constexpr bool irqs_off = Variant::form == pcc_form::irqsave;
        using section = std::conditional_t<irqs_off, irq_save_guard<Env>, preempt_guard<Env>>;
        section pinned;  // both keep us on this CPU, so the *_nocheck tier is allowed
        const s64 count = s64{Env::raw(Env::this_cpu_read_nocheck(counters_))} + amount;
        if (Variant::must_fold(count, batch)) {
            [[maybe_unused]] typename Env::irq_flags flags{};
            if constexpr (irqs_off)
                Env::spin_lock(lock_);  // irqs are already off
            else
                flags = Env::spin_lock_irqsave(lock_);
            add_to_count_locked(count);
            // Subtract what was read, not whatever is there now: relative, so an interrupt's add
            // that landed after the read (preempt-only) stays in the delta instead of being lost.
            Env::this_cpu_sub_nocheck(counters_, static_cast<s32>(count - amount));
            if constexpr (irqs_off)
                Env::spin_unlock(lock_);
            else
                Env::spin_unlock_irqrestore(lock_, flags);
        } else {
            // |read + amount| < batch, so |amount| < 2 x batch fits in s32.
            // irqsave: Invariant: |local| < batch after this add (irqs off since the read).
            // preempt-only: an interrupt on this CPU may have changed the delta since the read
            // (leaving it below batch, as every add run with irqs off does). this_cpu_add is
            // irq-safe, so nothing is lost, but only |local| < batch + 2 x batch = 3 x batch
            // holds after it, and only if the local was below batch when the add started.
            Env::this_cpu_add(counters_, static_cast<s32>(amount));
        }
    }

    // local-cas and its relatives: a CPU-local cmpxchg loop, the lock only to fold.
    void add_batch_local_cas(s64 amount, s32 batch) {
        // Only a first guess (relaxed, this CPU's own word): the cmpxchg re-checks it against the
        // delta of whichever CPU we are on by then, and a failure hands back the current value.
        val_t<Env, s32> count = Env::this_cpu_read(counters_);
        do {
            if (Variant::must_fold(s64{Env::raw(count)} + amount, batch)) {
                fold(Env::raw(count), amount);
                return;
            }
            // Invariant: |count + amount| < batch, so the new delta fits in s32 and, once
            // installed, |local| < batch after this add.
        } while (!Variant::template local_update<Env>(counters_, count,
                                                      val_t<Env, s32>(count + amount)));
    }

    // Slow path of the local-cas form: move this CPU's delta and `amount` into count.
    void fold(s32 seen, s64 amount) {
        typename Env::irq_flags flags;
        if constexpr (Variant::fold_takes_lock)
            flags = Env::spin_lock_irqsave(lock_);
        else
            flags = Env::local_irq_save();  // mut-unlocked-fold: irqs off, no lock
        s32 local = seen;
        if constexpr (Variant::reread_under_lock) {
            // Since `seen` was read we may have migrated or been interrupted; with irqs off on
            // this CPU and the lock held, this read is the value we fold (nobody else writes an
            // online CPU's delta: set() and cpu_dead() take the lock).
            local = Env::raw(Env::this_cpu_read_nocheck(counters_));
        }
        add_to_count_locked(Variant::fold_adds_amount ? s64{local} + amount : s64{local});
        Env::this_cpu_sub_nocheck(counters_, local);
        // Invariant (reread_under_lock): this CPU's delta is 0 here.
        if constexpr (Variant::fold_takes_lock)
            Env::spin_unlock_irqrestore(lock_, flags);
        else
            Env::local_irq_restore(flags);
    }

    mutable typename Env::spinlock lock_;  // mutable: sum() and compare() are const but lock
    typename Env::template atomic<s64> count_{0};
    typename Env::template percpu<s32> counters_;
    typename Env::template atomic<s32> batch_{pcc_min_default_batch};
    // fix-limited-add's sequence count: odd while a precise step of limited_add reads the
    // deltas, written only with the lock held. Absent (an empty member) in the other variants.
    struct no_seq {
        explicit constexpr no_seq(std::uint32_t) noexcept {}
    };
    static constexpr bool has_limited_seq = Variant::limited_sync != pcc_limited_sync::none;
    std::conditional_t<has_limited_seq, typename Env::template atomic<std::uint32_t>, no_seq>
        limited_seq_{0};
};

// v6.7 (with the negative-amount extension merged in the same release). Three steps:
//  1. With irqs off, a lockless shortcut: if this CPU's delta stays within the batch and even the
//     worst case of the other deltas (`unknown` = batch x online CPUs) cannot cross the limit,
//     add to the delta and return true. It reads `count` WITHOUT the lock.
//  2. Else, under the lock: decide from count + amount and `unknown` when that is conclusive.
//  3. Else compute the precise sum (count + deltas of online and dying CPUs) and decide.
// On success steps 2 and 3 fold this CPU's delta and the amount into count.
//
// Where this can let the total exceed the limit (property 6; tests/unit/percpu_counter_test.cpp
// reproduces both deterministically, tests/stress measures the first):
//  - The shortcut's check of `count` and its add are not atomic against another CPU: a slow-path
//    add on another CPU that reads our delta before our add, and writes count after our read,
//    makes both succeed although together they cross the limit. (Upstream, the unlocked plain
//    read of `count` is also a data race reported by KCSAN.)
//  - `unknown` counts online CPUs only, while a dying CPU may still hold a delta up to batch that
//    the precise sum includes: steps 1 and 2 can accept an add that crosses the limit by that
//    much, even sequentially, between a CPU going offline and cpu_dead().
// A fast-path add may leave |local| == batch (the test is <=, not <): add_batch's strict bound
// does not hold after limited_add, and `unknown` is written to cover |local| <= batch.
//
// fix-limited-add closes both (proofs/percpu_counter.md): `unknown` counts online | dying CPUs,
// and the shortcut re-checks `limited_seq_` after its add, so that it never overlaps a precise
// step unseen. Step 2 needs no such guard: it assumes the worst for every delta, including one a
// shortcut is changing, as long as every |delta| <= batch.
template <class Env, class Variant>
bool percpu_counter<Env, Variant>::limited_add(s64 limit, s64 amount, s32 batch) {
    if (amount == 0) return true;
    constexpr pcc_limited_sync sync = Variant::limited_sync;
    constexpr bool with_mb = sync != pcc_limited_sync::seqcount_no_mb;

    const typename Env::irq_flags flags = Env::local_irq_save();
    const s64 unknown = static_cast<s64>(batch) * limited_cpus();
    s64 count = Env::raw(Env::this_cpu_read_nocheck(counters_));  // irqs off: stable on this CPU
    const auto within = [&](s64 global) {
        return (amount > 0 && global + unknown <= limit) ||
               (amount < 0 && global - unknown >= limit);
    };

    // Step 1.
    if (detail::pcc_abs(count + amount) <= batch) {
        if constexpr (sync == pcc_limited_sync::none) {
            // The unlocked read of count is relaxed and pairs with nothing: nothing orders it
            // against a fold on another CPU, which is the first overshoot above.
            if (within(Env::raw(Env::read_once(count_)))) {
                Env::this_cpu_add(counters_, static_cast<s32>(amount));  // |amount| <= 2 x batch
                Env::local_irq_restore(flags);
                return true;
            }
        } else {
            // Acquire: pairs with the release that ends a precise step, so the count read below
            // is at least the one that step wrote. Odd: a precise step is reading the deltas.
            const std::uint32_t seq = Env::raw(Env::load_acquire(limited_seq_));
            // Relaxed: any count at least as new as seq's is fine to decide from; a fold by
            // step 2 since then is covered by `unknown` (it assumed the worst of our delta).
            if ((seq & 1u) == 0 && within(Env::raw(Env::read_once(count_)))) {
                Env::this_cpu_add(counters_, static_cast<s32>(amount));  // |amount| <= 2 x batch
                // Full barrier: orders our add before the re-read of seq; pairs with the smp_mb
                // after a precise step makes seq odd. Either that step reads our add, or we read
                // its odd (or later) seq: both reading the old value is store buffering, which
                // two full barriers forbid.
                if constexpr (with_mb) Env::smp_mb();
                // Relaxed: the barrier above does the ordering.
                if (Env::raw(Env::read_once(limited_seq_)) == seq) {
                    Env::local_irq_restore(flags);
                    return true;
                }
                // A precise step overlapped us and may have decided without our add: take it
                // back (no one else writes this delta) and decide under the lock instead.
                Env::this_cpu_sub(counters_, static_cast<s32>(amount));
            }
        }
    }

    Env::spin_lock(lock_);                              // irqs already off
    count = Env::raw(Env::read_once(count_)) + amount;  // stable: lock held

    // Step 2: +1 surely within the limit, -1 surely beyond it, 0 needs the precise sum.
    int verdict = 0;
    if (amount > 0)
        verdict = count - unknown > limit ? -1 : count + unknown <= limit ? 1 : 0;
    else
        verdict = count + unknown < limit ? -1 : count - unknown >= limit ? 1 : 0;

    // Step 3.
    [[maybe_unused]] std::uint32_t seq = 0;
    if (verdict == 0) {
        if constexpr (sync == pcc_limited_sync::seqcount ||
                      sync == pcc_limited_sync::seqcount_no_mb) {
            // Relaxed: the lock makes us the only writer. Odd: shortcuts that start now go to
            // the lock; those under way notice the change when they re-check.
            seq = Env::raw(Env::read_once(limited_seq_)) + 1;
            Env::write_once(limited_seq_, seq);
            // Full barrier: orders the odd seq before our reads of the deltas; pairs with the
            // smp_mb in the shortcut between its add and its re-check.
            if constexpr (with_mb) Env::smp_mb();
        }
        count += locals_sum_locked();
        verdict = (amount > 0 ? count <= limit : count >= limit) ? 1 : -1;
    }

    if (verdict > 0) {
        const s32 local = Env::raw(Env::this_cpu_read_nocheck(counters_));  // irqs off, lock held
        add_to_count_locked(s64{local} + amount);
        Env::this_cpu_sub_nocheck(counters_, local);
        // Invariant: this CPU's delta is 0 here.
    }
    if constexpr (sync == pcc_limited_sync::seqcount || sync == pcc_limited_sync::seqcount_no_mb) {
        // Release: the count of our fold is visible to a shortcut that reads this even seq
        // (pairs with its acquire).
        if ((seq & 1u) != 0) Env::store_release(limited_seq_, seq + 1);
    }
    Env::spin_unlock(lock_);
    Env::local_irq_restore(flags);
    return verdict > 0;
}

}  // namespace kverify
