// SPDX-License-Identifier: GPL-2.0-only
// model_env: the Env of impl/ENV.md on the simulated kernel (kernel.hpp) and the engine this
// translation unit is built for (engine.hpp: Relacy, or the dpor engine). Written once: every
// operation first offers a delivery point (interrupt, NMI, migration, preemption), then performs
// the engine access, so traces name the algorithm's own line. The primitive mapping is the fixed
// table of model/kernel/MAPPING.md, its LKMM column included: each access's kernel primitive and
// dependencies are declared right before it (engine::annotate; the values are tracked.hpp's).
#pragma once

#include <cstring>
#include <string>
#include <type_traits>

#include "impl/common.hpp"
#include "impl/guards.hpp"
#include "model/check/ordering.hpp"
#include "model/kernel/kernel.hpp"
#include "model/kernel/tracked.hpp"  // and <type_traits>
#if !defined(KVERIFY_ENGINE_DPOR)
#include "model/kernel/heap.hpp"  // Relacy's kmalloc heap: engine::alloc and engine::free
#endif

namespace kverify {
inline namespace KVERIFY_ENGINE_NS {

struct model_env {
    static constexpr const char* name = "model";
    using irq_flags = unsigned long;
    using engine = model::engine;

    template <class T>
    class atomic {
    public:
        atomic(T v = T{}) : v_(v) {}
        atomic(const atomic&) = delete;
        atomic& operator=(const atomic&) = delete;

    private:
        friend struct model_env;
        engine::atomic_word<T> v_;
        model::kernel::local_rmw_state local_;
    };

    template <class T>
    class cell {
    public:
        cell(T v = T{}) : v_(v) {}
        cell(const cell&) = delete;
        cell& operator=(const cell&) = delete;

    private:
        friend struct model_env;
        engine::plain_word<T> v_;
    };

    template <class T>
    class percpu {
        static_assert(std::is_integral<T>::value, "per-CPU values are machine words");

    public:
        percpu() {
            for (unsigned c = 0; c < model::max_cpus; ++c) slots_[c].local_.owner = int(c);
        }
        percpu(const percpu&) = delete;
        percpu& operator=(const percpu&) = delete;

    private:
        friend struct model_env;
        atomic<T> slots_[model::max_cpus];
    };

    class spinlock {
    public:
        spinlock() = default;
        spinlock(const spinlock&) = delete;
        spinlock& operator=(const spinlock&) = delete;

    private:
        friend struct model_env;
        engine::lock_word m_;
    };

    using lk = engine::lk;
    // A loaded value: the plain value and the reads it came from (tracked.hpp).
    template <class T>
    using val = model::tracked<T>;
    template <class X>
    struct identity {
        using type = X;
    };
    // A parameter whose type comes from the other arguments (the atomic's), never deduced.
    template <class X>
    using same = typename identity<X>::type;

    // Right before each engine access (after the delivery point, whose interrupt handler makes
    // accesses of its own) the Env tells the engine the access's kernel primitive and its
    // dependencies (engine::annotate): what the LKMM reads; RC11, SC and Relacy ignore it.
    // ----- marked accesses: the mapping table -----
    template <class T>
    static val<T> read_once(const atomic<T>& a, src_loc loc = {}) {
        if (weakened(loc, "READ_ONCE")) return load(a, {}, lk::acquire, engine::acquire, loc);
        return load(a, {}, lk::once, engine::relaxed, loc);
    }
    template <class T>
    static val<T> read_once(const model::addressed<const atomic<T>>& a, src_loc loc = {}) {
        if (weakened(loc, "READ_ONCE"))
            return load(a.obj, a.addr, lk::acquire, engine::acquire, loc);
        return load(a.obj, a.addr, lk::once, engine::relaxed, loc);
    }
    template <class T>
    static val<T> read_once(const model::addressed<atomic<T>>& a, src_loc loc = {}) {
        if (weakened(loc, "READ_ONCE"))
            return load(a.obj, a.addr, lk::acquire, engine::acquire, loc);
        return load(a.obj, a.addr, lk::once, engine::relaxed, loc);
    }
    template <class T>
    static void write_once(atomic<T>& a, same<val<T>> v, src_loc loc = {}) {
        if (weakened(loc, "WRITE_ONCE")) return store(a, {}, v, lk::release, engine::release, loc);
        store(a, {}, v, lk::once, engine::relaxed, loc);
    }
    template <class T>
    static void write_once(const model::addressed<atomic<T>>& a, same<val<T>> v, src_loc loc = {}) {
        if (weakened(loc, "WRITE_ONCE"))
            return store(a.obj, a.addr, v, lk::release, engine::release, loc);
        store(a.obj, a.addr, v, lk::once, engine::relaxed, loc);
    }
    template <class T>
    static val<T> load_acquire(const atomic<T>& a, src_loc loc = {}) {
        if (weakened(loc, "smp_load_acquire")) return load(a, {}, lk::once, engine::relaxed, loc);
        return load(a, {}, lk::acquire, engine::acquire, loc);
    }
    template <class T>
    static void store_release(atomic<T>& a, same<val<T>> v, src_loc loc = {}) {
        if (weakened(loc, "smp_store_release"))
            return store(a, {}, v, lk::once, engine::relaxed, loc);
        store(a, {}, v, lk::release, engine::release, loc);
    }
    // Fully ordered: on success seq_cst fence; seq_cst CAS; seq_cst fence, on failure no
    // ordering (the table's row). Relacy orders a failure too (model/ASSUMPTIONS.md). Under the
    // LKMM one MB-tagged RMW, whose ordering the engine drops when it fails.
    template <class T>
    static bool try_cmpxchg(atomic<T>& a, val<T>& old, same<val<T>> nv, src_loc loc = {}) {
        if (const char* f = weakened(loc, "try_cmpxchg")) return other_cmpxchg(a, old, nv, f, loc);
        return full_cas(a, old, nv, loc);
    }
    template <class T>
    static bool try_cmpxchg_acquire(atomic<T>& a, val<T>& old, same<val<T>> nv, src_loc loc = {}) {
        if (const char* f = weakened(loc, "try_cmpxchg_acquire"))
            return other_cmpxchg(a, old, nv, f, loc);
        return cas(a, old, nv, engine::acquire, lk::acquire, loc);
    }
    template <class T>
    static bool try_cmpxchg_release(atomic<T>& a, val<T>& old, same<val<T>> nv, src_loc loc = {}) {
        if (const char* f = weakened(loc, "try_cmpxchg_release"))
            return other_cmpxchg(a, old, nv, f, loc);
        return cas(a, old, nv, engine::release, lk::release, loc);
    }
    template <class T>
    static bool try_cmpxchg_relaxed(atomic<T>& a, val<T>& old, same<val<T>> nv, src_loc loc = {}) {
        if (const char* f = weakened(loc, "try_cmpxchg_relaxed"))
            return other_cmpxchg(a, old, nv, f, loc);
        return cas(a, old, nv, engine::relaxed, lk::once, loc);
    }
    // CPU-local CAS: one instruction on this CPU (no delivery point inside), but against other
    // CPUs a separate read and write with a scheduling point between them.
    template <class T>
    static bool try_cmpxchg_local(atomic<T>& a, val<T>& old, same<val<T>> nv, src_loc loc = {}) {
        const char* f = weakened(loc, "try_cmpxchg_local");
        if (f && std::strcmp(f, "try_cmpxchg_acquire") == 0)  // stronger: the kernel's form
            return cas(a, old, nv, engine::acquire, lk::acquire, loc);
        k().point(loc);
        if (f) return generic_cas(a, old, nv, "try_cmpxchg_local", loc);
        return local_cas(a, old, nv, "try_cmpxchg_local", loc);
    }
    // The LKMM's own fences (f_mb, f_rmb, f_wmb), not C11's: RC11 and SC keep the C11 fences.
    static void smp_mb(src_loc loc = {}) {
        if (const char* f = weakened(loc, "smp_mb")) return other_fence(f, loc);
        fence(engine::seq_cst, lk::f_mb, loc);
    }
    static void smp_rmb(src_loc loc = {}) {
        if (const char* f = weakened(loc, "smp_rmb")) return other_fence(f, loc);
        fence(engine::acquire, lk::f_rmb, loc);
    }
    static void smp_wmb(src_loc loc = {}) {
        if (const char* f = weakened(loc, "smp_wmb")) return other_fence(f, loc);
        fence(engine::release, lk::f_wmb, loc);
    }

    // Plain accesses are graph events under the LKMM: the value read comes from the write it
    // reads (its dependencies travel through reads-from), and a plain write's data is declared.
    template <class T>
    static val<T> plain_read(const cell<T>& c, src_loc loc = {}) {
        engine::annotate(lk::automatic);
        const T v = c.v_.read(loc);
        return val<T>(v, model::dep_set::last_read());
    }
    template <class T>
    static void plain_write(cell<T>& c, same<val<T>> v, src_loc loc = {}) {
        annotate_data(lk::automatic, {}, v.deps());
        c.v_.write(v.value(), loc);
    }
    template <class T>
    static T peek(const atomic<T>& a) {
        return a.v_.peek();
    }

    // ----- dependencies (the real build: the plain types and statements) -----
    // The guard of a control dependency: `if (auto c = Env::when(cond))` (tracked.hpp).
    static model::ctrl_scope when(const val<bool>& cond) { return model::ctrl_scope(cond); }
    // A value leaves the tracked world (the engine treats every later event as dependent on it).
    template <class T>
    static T raw(const val<T>& v) {
        return v.raw();
    }
    // array[index] with an address dependency on the index's reads.
    template <class A, class I>
    static model::addressed<A> at(A* array, const I& index) {
        return {array[model::tracked_detail::value_of(index)],
                model::tracked_detail::deps_of(index)};
    }

    // ----- CPUs -----
    static cpumask possible_mask() { return k().config().possible; }
    static cpumask online_mask(src_loc loc = {}) { return k().online(loc); }
    static unsigned nr_cpu_ids() { return possible_mask().span(); }
    static bool cpu_possible(unsigned c) { return possible_mask().test(c); }
    static unsigned num_possible_cpus() { return possible_mask().weight(); }
    static bool cpu_online(unsigned c, src_loc loc = {}) { return online_mask(loc).test(c); }
    static bool cpu_dying(unsigned c, src_loc loc = {}) { return k().dying(loc).test(c); }
    static unsigned num_online_cpus(src_loc loc = {}) { return online_mask(loc).weight(); }
    static unsigned smp_processor_id(src_loc loc = {}) {
        k().point(loc);
        k().check_preemption_disabled("smp_processor_id()", loc);
        return k().current_cpu();
    }
    static unsigned raw_smp_processor_id(src_loc loc = {}) {
        k().point(loc);
        return k().current_cpu();
    }

    // ----- interrupts and preemption -----
    static irq_flags local_irq_save(src_loc loc = {}) {
        const bool to_preempt = weakened(loc, "local_irq_save") != nullptr;
        k().point(loc);
        if (to_preempt) {
            k().preempt_disable();
            return flags_preempt_instead;
        }
        return k().irq_save();
    }
    static void local_irq_restore(irq_flags f, src_loc = {}) {
        if (f >= flags_preempt_instead) return weaker_irq_restore(f);
        k().irq_restore(f);
    }
    static bool irqs_disabled() { return k().irqs_disabled(); }
    static bool in_task() {
        const model::kernel::task_state* t = k().current_task();
        return t == nullptr || t->depth == 0;
    }
    static void preempt_disable(src_loc loc = {}) {
        const char* f = weakened(loc, "preempt_disable");
        k().point(loc);
        if (f && std::strcmp(f, "local_irq_save") == 0) {  // stronger: irqs off as well
            k().preempt_disable();
            strong_irq_flags() = k().irq_save();
            return;
        }
        if (!f) k().preempt_disable();
    }
    // impl/ pairs them in preempt_guard, which hands both the same line: a weakened disable's
    // enable is skipped by that line, a strengthened one restores the irqs too.
    static void preempt_enable(src_loc loc = {}) {
        if (const char* f = weakened(loc, "preempt_disable")) {
            if (std::strcmp(f, "local_irq_save") != 0) return;
            k().irq_restore(strong_irq_flags());
        }
        k().preempt_enable();
    }

    // ----- per-CPU operations -----
    // The LKMM has no CPU-local operations. Each is a pair of ONCE accesses here: irq-safe on
    // this CPU (no delivery point between them) but unordered against other CPUs, as the kernel
    // documents the this_cpu ops; an RMW's write has a data dependency on its read.
    template <class T>
    static val<T> this_cpu_read(const percpu<T>& p, src_loc loc = {}) {
        k().point(loc);  // first: a migration there changes which slot is mine
        return load_here(mine(p), {}, lk::once, engine::relaxed, loc);
    }
    template <class T>
    static void this_cpu_write(percpu<T>& p, same<val<T>> v, src_loc loc = {}) {
        k().point(loc);
        store_here(mine(p), {}, v, lk::once, engine::relaxed, loc);
    }
    template <class T>
    static void this_cpu_add(percpu<T>& p, same<val<T>> v, src_loc loc = {}) {
        const bool generic = weakened(loc, "this_cpu_add") != nullptr;
        k().point(loc);
        local_add(mine(p), v, "this_cpu_add", generic, loc);
    }
    template <class T>
    static void this_cpu_sub(percpu<T>& p, same<val<T>> v, src_loc loc = {}) {
        const bool generic = weakened(loc, "this_cpu_sub") != nullptr;
        k().point(loc);
        local_add(mine(p), val<T>(T{0} - v), "this_cpu_sub", generic, loc);
    }
    template <class T>
    static bool this_cpu_try_cmpxchg(percpu<T>& p, val<T>& old, same<val<T>> nv, src_loc loc = {}) {
        const bool generic = weakened(loc, "this_cpu_try_cmpxchg") != nullptr;
        k().point(loc);
        if (generic) return generic_cas(mine(p), old, nv, "this_cpu_try_cmpxchg", loc);
        return local_cas(mine(p), old, nv, "this_cpu_try_cmpxchg", loc);
    }
    template <class T>
    static val<T> this_cpu_read_nocheck(const percpu<T>& p, src_loc loc = {}) {
        k().point(loc);
        k().check_preemption_disabled("__this_cpu_read()", loc);
        return load_here(mine(p), {}, lk::once, engine::relaxed, loc);
    }
    template <class T>
    static void this_cpu_write_nocheck(percpu<T>& p, same<val<T>> v, src_loc loc = {}) {
        k().point(loc);
        k().check_preemption_disabled("__this_cpu_write()", loc);
        store_here(mine(p), {}, v, lk::once, engine::relaxed, loc);
    }
    // The generic __this_cpu RMWs: a read and a write that an interrupt on this CPU can split.
    template <class T>
    static void this_cpu_add_nocheck(percpu<T>& p, same<val<T>> v, src_loc loc = {}) {
        if (weakened(loc, "__this_cpu_add")) return this_cpu_add_local(p, v, loc);
        k().point(loc);
        k().check_preemption_disabled("__this_cpu_add()", loc);
        local_add(mine(p), v, "__this_cpu_add", true, loc);
    }
    template <class T>
    static void this_cpu_sub_nocheck(percpu<T>& p, same<val<T>> v, src_loc loc = {}) {
        if (weakened(loc, "__this_cpu_sub")) return this_cpu_add_local(p, val<T>(T{0} - v), loc);
        k().point(loc);
        k().check_preemption_disabled("__this_cpu_sub()", loc);
        local_add(mine(p), val<T>(T{0} - v), "__this_cpu_sub", true, loc);
    }
    template <class T>
    static bool this_cpu_try_cmpxchg_nocheck(percpu<T>& p, val<T>& old, same<val<T>> nv,
                                             src_loc loc = {}) {
        const bool local = weakened(loc, "__this_cpu_cmpxchg") != nullptr;
        k().point(loc);
        if (local) return local_cas(mine(p), old, nv, "this_cpu_try_cmpxchg", loc);
        k().check_preemption_disabled("__this_cpu_cmpxchg()", loc);
        return generic_cas(mine(p), old, nv, "__this_cpu_cmpxchg", loc);
    }
    template <class T>
    static val<T> raw_cpu_read(const percpu<T>& p, src_loc loc = {}) {
        k().point(loc);  // first: a migration there changes which slot is mine
        return load_here(mine(p), {}, lk::once, engine::relaxed, loc);
    }
    // Remote plain word accesses (modeling assumption: untorn, hence ONCE; relaxed atomics).
    template <class T>
    static val<T> per_cpu_read(const percpu<T>& p, unsigned cpu, src_loc loc = {}) {
        return load(p.slots_[cpu], {}, lk::once, engine::relaxed, loc);
    }
    template <class T>
    static void per_cpu_write(percpu<T>& p, unsigned cpu, same<val<T>> v, src_loc loc = {}) {
        store(p.slots_[cpu], {}, v, lk::once, engine::relaxed, loc);
    }

    // ----- locks: raw_spin_lock disables preemption, as in the kernel -----
    static void spin_lock(spinlock& l, src_loc loc = {}) {
        const bool irqsave = weakened(loc, "spin_lock") != nullptr;
        k().point(loc);
        const irq_flags f = irqsave ? k().irq_save() : flags_untouched;
        k().preempt_disable();
        lock(l, loc);
        if (model::ordering().on) strong_lock_flags(&l) = f;
    }
    static void spin_unlock(spinlock& l, src_loc loc = {}) {
        k().point(loc);
        k().lock_released(&l);
        l.m_.unlock(loc);
        k().preempt_enable();
        if (__builtin_expect(model::ordering().on, 0)) {  // a strengthened spin_lock's irqs
            irq_flags& f = strong_lock_flags(&l);
            if (f != flags_untouched) k().irq_restore(f);
            f = flags_untouched;
        }
    }
    static irq_flags spin_lock_irqsave(spinlock& l, src_loc loc = {}) {
        const bool plain = weakened(loc, "spin_lock_irqsave") != nullptr;
        k().point(loc);
        const irq_flags f = plain ? flags_untouched : k().irq_save();
        k().preempt_disable();
        lock(l, loc);
        if (model::ordering().on) strong_lock_flags(&l) = flags_untouched;
        return f;
    }
    static void spin_unlock_irqrestore(spinlock& l, irq_flags f, src_loc loc = {}) {
        spin_unlock(l, loc);
        local_irq_restore(f, loc);
    }

    // ----- memory, diagnostics, choice -----
    // The engine's leak-checked heap (Relacy: model/kernel/heap.hpp; dpor: the engine's arenas).
    static void* kmalloc(std::size_t bytes, src_loc loc = {}) { return engine::alloc(bytes, loc); }
    static void kfree(void* p, src_loc loc = {}) { engine::free(p, loc); }
    // The condition comes back as it went in: a branch on it is the caller's (Env::when).
    static val<bool> warn_once(const val<bool>& cond, const char* what, src_loc loc = {}) {
        if (cond.value()) k().warn(what, loc);
        return cond;
    }
    // A spin-loop iteration (Relacy: a yield; dpor: a failed iteration, see dpor/README.md).
    static void cpu_relax(src_loc loc = {}) { engine::spin(loc); }
    // Scenario side: a task's next round begins (kernel_config::irq_rounds_interchangeable).
    static void round_boundary() { k().round_boundary(); }
    template <class T>
    static void declare_cpu_local(atomic<T>& a, unsigned cpu) {
        a.local_.owner = static_cast<int>(cpu);
    }
    static unsigned choose(unsigned n, src_loc loc = {}) { return engine::choose(n, loc); }

    // ----- names for traces: memory by its role (slot[cpu1].last), never by its address -----
    // Checkers call these (through an algorithm's introspection) once their objects exist; only
    // a dpor trace run keeps them (engine::naming()), so a search pays nothing.
    static bool naming() { return engine::naming(); }
    // Under load buffering (dpor-lkmm) a read may take the value of a write that runs later in
    // the engine's order, so a checker's own state shared between tasks is not a global
    // timeline: an lkmm_ready scenario then keeps per-task logs and judges them in after().
    static bool load_buffering() { return engine::load_buffering(); }
    static void name_as(const void* p, std::size_t bytes, const std::string& role) {
        if (naming()) engine::name_memory(p, bytes, role);
    }
    template <class T>
    static void name_as(const atomic<T>& a, const std::string& role) {
        name_as(&a.v_, sizeof a.v_, role);
    }
    template <class T>
    static void name_as(const cell<T>& c, const std::string& role) {
        name_as(&c.v_, sizeof c.v_, role);
    }
    static void name_as(const spinlock& l, const std::string& role) {
        name_as(&l.m_, sizeof l.m_, role);
    }
    // Each CPU's word: role[cpuN].
    template <class T>
    static void name_as(const percpu<T>& p, const std::string& role) {
        if (!naming()) return;
        for (unsigned c = 0; c < model::max_cpus; ++c)
            name_as(p.slots_[c], role + "[cpu" + std::to_string(c) + "]");
    }

    // ----- harness side: hotplug steps and interrupt handlers -----
    static void set_cpu_online(unsigned cpu, bool on, src_loc loc = {}) {
        k().point(loc);
        k().log(loc, "cpu%u %s the online mask", cpu, on ? "enters" : "leaves");
        k().set_online(cpu, on, loc);
    }
    static void set_cpu_dying(unsigned cpu, bool dying, src_loc loc = {}) {
        k().point(loc);
        k().log(loc, "cpu%u %s dying", cpu, dying ? "marked" : "no longer");
        k().set_dying(cpu, dying, loc);
    }
    static void set_irq_handler(unsigned cpu, model::handler_fn fn, void* arg) {
        k().set_irq_handler(cpu, fn, arg);
    }
    static void set_nmi_handler(unsigned cpu, model::handler_fn fn, void* arg) {
        k().set_nmi_handler(cpu, fn, arg);
    }

private:
    static model::kernel& k() { return model::kernel::get(); }

    // ----- the ordering override (model/check/ordering.hpp; kverify run --weaken, orders) -----
    // The form this site runs as (one step weaker or stronger), nullptr for its own. Without an
    // override: one load and branch.
    static const char* weakened(const src_loc& loc, const char* primitive) {
        model::ordering_state& o = model::ordering();
        if (__builtin_expect(!o.on, 1)) return nullptr;
        return o.at(loc.file, loc.line, loc.func, primitive);
    }
    // A weakened irq-save hands back one of these instead of the irqs-off flag (0 or 1).
    static constexpr irq_flags flags_preempt_instead = 2;  // preemption was disabled instead
    static constexpr irq_flags flags_untouched = 3;        // irqs were left as they were
    static void weaker_irq_restore(irq_flags f) {
        if (f == flags_preempt_instead) k().preempt_enable();
    }
    template <class T>
    static bool full_cas(atomic<T>& a, val<T>& old, const val<T>& nv, src_loc loc) {
        k().point(loc);
        annotate_rmw(lk::mb, old, nv);
        T o = old.value();
        const bool ok = a.v_.cas_full(o, nv.value(), loc);
        return cas_result(ok, old, o);
    }
    template <class T>
    static bool other_cmpxchg(atomic<T>& a, val<T>& old, const val<T>& nv, const char* form,
                              src_loc loc) {
        if (std::strcmp(form, "try_cmpxchg") == 0) return full_cas(a, old, nv, loc);
        if (std::strcmp(form, "try_cmpxchg_acquire") == 0)
            return cas(a, old, nv, engine::acquire, lk::acquire, loc);
        if (std::strcmp(form, "try_cmpxchg_release") == 0)
            return cas(a, old, nv, engine::release, lk::release, loc);
        return cas(a, old, nv, engine::relaxed, lk::once, loc);
    }
    static void other_fence(const char* form, src_loc loc) {
        if (std::strcmp(form, "smp_mb") == 0) return fence(engine::seq_cst, lk::f_mb, loc);
        if (std::strcmp(form, "smp_rmb") == 0) return fence(engine::acquire, lk::f_rmb, loc);
        if (std::strcmp(form, "smp_wmb") == 0) return fence(engine::release, lk::f_wmb, loc);
        k().point(loc);  // none: the line stays a delivery point, with no fence
    }
    // A __this_cpu add run as its CPU-local this_cpu form (no delivery point inside).
    template <class T>
    static void this_cpu_add_local(percpu<T>& p, const val<T>& v, src_loc loc) {
        k().point(loc);
        local_add(mine(p), v, "this_cpu_add", false, loc);
    }
    // Where a strengthened preempt_disable keeps its irq flags until its enable: per exploring
    // thread, task and context depth (a handler's section nests inside its task's).
    static irq_flags& strong_irq_flags() {
        thread_local irq_flags saved[model::max_tasks + 1][8] = {};
        const model::kernel::task_state* t = k().current_task();
        return t ? saved[engine::thread_index()][t->depth & 7] : saved[model::max_tasks][0];
    }
    // A strengthened spin_lock's irq flags, by lock, until its unlock (flags_untouched: none).
    static irq_flags& strong_lock_flags(const spinlock* l) {
        thread_local std::pair<const spinlock*, irq_flags> saved[8] = {};
        for (auto& s : saved)
            if (s.first == l) return s.second;
        for (auto& s : saved)
            if (s.first == nullptr) return (s = {l, flags_untouched}).second;
        return (saved[0] = {l, flags_untouched}).second;
    }

    static void lock(spinlock& l, src_loc loc) {
        k().lock_acquiring(&l, loc);
        l.m_.lock(loc);
        k().lock_acquired(&l);
    }

    template <class T>
    static atomic<T>& mine(const percpu<T>& p) {
        return const_cast<percpu<T>&>(p).slots_[k().current_cpu()];
    }
    static void annotate_data(lk kind, const model::dep_set& addr, const model::dep_set& data) {
        std::size_t na = 0, nd = 0;
        const model::dep_set::id* a = addr.here(na);
        const model::dep_set::id* d = data.here(nd);
        engine::annotate(kind, a, na, d, nd);
    }
    template <class T>
    static val<T> with_deps(val<T> v, const val<T>& from) {
        model::dep_set d = v.deps();
        d.merge(from.deps());
        return val<T>(v.value(), d);
    }
    // An access after its delivery point: the primitive and dependencies, then the engine.
    template <class T>
    static val<T> load(const atomic<T>& a, const model::dep_set& addr, lk kind, engine::order mo,
                       src_loc loc) {
        k().point(loc);
        return load_here(a, addr, kind, mo, loc);
    }
    template <class T>
    static val<T> load_here(const atomic<T>& a, const model::dep_set& addr, lk kind,
                            engine::order mo, src_loc loc) {
        annotate_data(kind, addr, {});
        const T v = a.v_.load(mo, loc);
        return val<T>(v, model::dep_set::last_read());
    }
    template <class T>
    static void store(atomic<T>& a, const model::dep_set& addr, const val<T>& v, lk kind,
                      engine::order mo, src_loc loc) {
        k().point(loc);
        store_here(a, addr, v, kind, mo, loc);
    }
    template <class T>
    static void store_here(atomic<T>& a, const model::dep_set& addr, const val<T>& v, lk kind,
                           engine::order mo, src_loc loc) {
        annotate_data(kind, addr, v.deps());
        a.v_.store(v.value(), mo, loc);
    }
    // A cas's write depends on the expected and the new value (its existence and its data).
    template <class T>
    static void annotate_rmw(lk kind, const val<T>& old, const val<T>& nv) {
        annotate_data(kind, {}, with_deps(nv, old).deps());
    }
    // On failure `old` is the value read: tracked, from the cas's read.
    template <class T>
    static bool cas_result(bool ok, val<T>& old, T read) {
        if (!ok) old = val<T>(read, model::dep_set::last_read());
        return ok;
    }
    template <class T>
    static bool cas(atomic<T>& a, val<T>& old, const val<T>& nv, engine::order mo, lk kind,
                    src_loc loc) {
        k().point(loc);
        annotate_rmw(kind, old, nv);
        T o = old.value();
        const bool ok = a.v_.cas(o, nv.value(), mo, engine::relaxed, loc);
        return cas_result(ok, old, o);
    }
    static void fence(engine::order mo, lk kind, src_loc loc) {
        k().point(loc);
        engine::annotate(kind);
        engine::fence(mo, loc);
    }
    template <class T>
    static bool local_cas(atomic<T>& a, val<T>& old, const val<T>& nv, const char* what,
                          src_loc loc) {
        k().local_rmw_begin(a.local_, what, loc);
        const val<T> cur = load_here(a, {}, lk::once, engine::relaxed, loc);
        // The engine may run another CPU here: the store below is not SMP-atomic with the load.
        const bool ok = cur.value() == old.value();
        if (ok)
            store_here(a, {}, with_deps(with_deps(nv, old), cur), lk::once, engine::relaxed, loc);
        else
            old = cur;
        k().local_rmw_end(a.local_);
        cur.deps().leave();  // two events, not the engine's cas: what follows depends on `ok`
        return ok;
    }
    // The generic form of a CPU-local cas: an interrupt may land between the read and the write.
    template <class T>
    static bool generic_cas(atomic<T>& a, val<T>& old, const val<T>& nv, const char* what,
                            src_loc loc) {
        k().local_rmw_begin(a.local_, what, loc);
        const val<T> cur = load_here(a, {}, lk::once, engine::relaxed, loc);
        k().point(loc);
        const bool ok = cur.value() == old.value();
        if (ok)
            store_here(a, {}, with_deps(nv, cur), lk::once, engine::relaxed, loc);
        else
            old = cur;
        k().local_rmw_end(a.local_);
        cur.deps().leave();  // two events, not the engine's cas: what follows depends on `ok`
        return ok;
    }
    template <class T>
    static void local_add(atomic<T>& a, const val<T>& v, const char* what, bool splittable,
                          src_loc loc) {
        k().local_rmw_begin(a.local_, what, loc);
        const val<T> cur = load_here(a, {}, lk::once, engine::relaxed, loc);
        if (splittable) k().point(loc);
        store_here(a, {}, val<T>(cur + v), lk::once, engine::relaxed, loc);
        k().local_rmw_end(a.local_);
    }
};

}  // namespace KVERIFY_ENGINE_NS
}  // namespace kverify
