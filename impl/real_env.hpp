// SPDX-License-Identifier: GPL-2.0-only
// real_env: the Env of impl/ENV.md on std::atomic and real threads.
//
// Each test thread registers as one virtual CPU (cpu_scope); its id lives in a thread-local, so
// per-CPU data keeps its single-owner meaning in user space. Interrupts are POSIX signals sent to
// the thread of a virtual CPU: SIGUSR1 plays an IRQ (deferred while the thread's irqs are off and
// run by local_irq_restore, as the kernel does), SIGUSR2 an NMI (never deferred by irqs-off).
// The CPU-local CAS and this_cpu RMWs are single x86 instructions without LOCK: atomic against a
// signal handler on the same thread, not against other threads, which is exactly the kernel
// property. Off x86-64 or under ThreadSanitizer (which cannot see inline assembly) they fall back
// to relaxed std::atomic RMWs; local_ops_impl() says which one this build uses.
//
// Differences from the kernel: the `*_nocheck` RMWs use the generic (weakest-arch) form, a load
// and a store, so a signal can split them; on x86 the kernel's __this_cpu ops are one instruction.
// local_irq_save/restore keep irqs-off as a thread-local flag, and for cost realism also do what
// user mode can of the kernel's x86 sequence: the flags save (pushf) and, standing in for the
// restore's sti, a popf of the saved flags; the privileged cli and sti themselves are missing.
#pragma once

#include <pthread.h>
#include <signal.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <type_traits>

#include "impl/common.hpp"
#include "impl/guards.hpp"

#if defined(__SANITIZE_THREAD__)
#define KVERIFY_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define KVERIFY_TSAN 1
#endif
#endif

#if defined(__x86_64__) && !defined(KVERIFY_TSAN) && !defined(KVERIFY_NO_LOCAL_ASM)
#define KVERIFY_LOCAL_ASM 1
#endif

namespace kverify {

using irq_handler_fn = void (*)(unsigned cpu, void* arg);

namespace detail {

// Per-thread virtual CPU state. Trivially initialised so a signal handler can touch it without a
// TLS constructor guard. Fields written by both the thread and its signal handler are volatile;
// the thread orders its own accesses against the handler with atomic_signal_fence.
struct real_cpu_state {
    int cpu;
    unsigned preempt_count;
    volatile bool irqs_off;
    volatile bool irq_pending;
    volatile bool in_irq;
    volatile bool in_nmi;
    std::uint64_t rng;
};

inline real_cpu_state& this_thread_state() noexcept {
    static thread_local real_cpu_state state{-1, 0, false, false, false, false, 0};
    return state;
}

inline void signal_barrier() noexcept { std::atomic_signal_fence(std::memory_order_seq_cst); }

// The CPU flags register (x86 pushf / popf), only for the cost of the kernel's irq save and
// restore. In user mode popf cannot change the interrupt flag, so this changes no behaviour.
inline unsigned long read_cpu_flags() noexcept {
#if defined(__x86_64__)
    return __builtin_ia32_readeflags_u64();
#else
    return 0;
#endif
}
inline void write_cpu_flags([[maybe_unused]] unsigned long flags) noexcept {
#if defined(__x86_64__)
    __builtin_ia32_writeeflags_u64(flags);
#endif
}

struct real_machine {
    std::atomic<std::uint64_t> possible{cpumask::first_n(4).bits()};
    std::atomic<std::uint64_t> online{cpumask::first_n(4).bits()};
    std::atomic<std::uint64_t> dying{0};
    std::atomic<irq_handler_fn> irq_handler[cpumask::max_cpus]{};
    std::atomic<void*> irq_arg[cpumask::max_cpus]{};
    std::atomic<irq_handler_fn> nmi_handler[cpumask::max_cpus]{};
    std::atomic<void*> nmi_arg[cpumask::max_cpus]{};
    std::mutex threads_lock;  // guards thread/registered against a raise racing an unregister
    pthread_t thread[cpumask::max_cpus]{};
    bool registered[cpumask::max_cpus]{};
    std::atomic<std::uint64_t> irqs_run{0}, irqs_deferred{0}, nmis_run{0}, nmis_dropped{0};
    std::atomic<std::uint64_t> warnings{0}, preempt_violations{0};
    std::atomic<long> kmalloc_budget{-1};  // successful kmallocs left before injected failure
    std::once_flag signals_installed;
};

inline real_machine& machine() noexcept {
    static real_machine m;
    return m;
}

inline void run_irq(real_cpu_state& t) noexcept {
    real_machine& m = machine();
    const unsigned cpu = static_cast<unsigned>(t.cpu);
    t.irqs_off = true;
    t.in_irq = true;
    signal_barrier();
    if (irq_handler_fn fn = m.irq_handler[cpu].load(std::memory_order_acquire))
        fn(cpu, m.irq_arg[cpu].load(std::memory_order_relaxed));
    m.irqs_run.fetch_add(1, std::memory_order_relaxed);
    signal_barrier();
    t.in_irq = false;
    t.irqs_off = false;
}

inline void on_irq_signal(int) {
    const int saved_errno = errno;
    real_cpu_state& t = this_thread_state();
    if (t.cpu >= 0) {
        if (t.irqs_off || t.in_irq || t.in_nmi) {
            t.irq_pending = true;  // replayed by local_irq_restore
            machine().irqs_deferred.fetch_add(1, std::memory_order_relaxed);
        } else {
            run_irq(t);
        }
    }
    errno = saved_errno;
}

inline void on_nmi_signal(int) {
    const int saved_errno = errno;
    real_cpu_state& t = this_thread_state();
    real_machine& m = machine();
    if (t.cpu >= 0) {
        if (t.in_nmi) {
            m.nmis_dropped.fetch_add(1, std::memory_order_relaxed);  // NMIs do not nest
        } else {
            const unsigned cpu = static_cast<unsigned>(t.cpu);
            t.in_nmi = true;
            signal_barrier();
            if (irq_handler_fn fn = m.nmi_handler[cpu].load(std::memory_order_acquire))
                fn(cpu, m.nmi_arg[cpu].load(std::memory_order_relaxed));
            m.nmis_run.fetch_add(1, std::memory_order_relaxed);
            signal_barrier();
            t.in_nmi = false;
        }
    }
    errno = saved_errno;
}

inline void install_signal_handlers() {
    std::call_once(machine().signals_installed, [] {
        struct sigaction sa {};
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = SA_RESTART;
        sa.sa_handler = on_irq_signal;
        sigaction(SIGUSR1, &sa, nullptr);
        sa.sa_handler = on_nmi_signal;
        sigaction(SIGUSR2, &sa, nullptr);
    });
}

inline void report_preempt_violation(const char* what, src_loc loc) {
    if (machine().preempt_violations.fetch_add(1, std::memory_order_relaxed) == 0)
        std::fprintf(stderr, "kverify: BUG: %s in preemptible code at %s:%u (%s)\n", what, loc.file,
                     loc.line, loc.func);
}

}  // namespace detail

struct real_env {
    static constexpr const char* name = "real";
    using irq_flags = unsigned long;

    // ----- types -----
    template <class T>
    class atomic {
    public:
        constexpr atomic(T v = T{}) noexcept : v_(v) {}
        atomic(const atomic&) = delete;
        atomic& operator=(const atomic&) = delete;

    private:
        friend struct real_env;
        std::atomic<T> v_;
    };

    template <class T>
    class cell {
    public:
        constexpr cell(T v = T{}) noexcept : v_(v) {}
        cell(const cell&) = delete;
        cell& operator=(const cell&) = delete;

    private:
        friend struct real_env;
        T v_;
    };

    template <class T>
    class percpu {
        static_assert(std::is_integral<T>::value, "per-CPU values are machine words");

    public:
        percpu() noexcept = default;
        percpu(const percpu&) = delete;
        percpu& operator=(const percpu&) = delete;

    private:
        friend struct real_env;
        struct alignas(64) slot {
            std::atomic<T> v{};
        };
        slot slots_[cpumask::max_cpus];
    };

    class spinlock {
    public:
        spinlock() noexcept = default;
        spinlock(const spinlock&) = delete;
        spinlock& operator=(const spinlock&) = delete;

    private:
        friend struct real_env;
        std::atomic<bool> locked_{false};
    };

    // ----- marked accesses -----
    // READ_ONCE / WRITE_ONCE: relaxed, as the mapping table says.
    template <class T>
    static T read_once(const atomic<T>& a, src_loc = {}) noexcept {
        return a.v_.load(std::memory_order_relaxed);
    }
    template <class T>
    static void write_once(atomic<T>& a, T v, src_loc = {}) noexcept {
        a.v_.store(v, std::memory_order_relaxed);
    }
    template <class T>
    static T load_acquire(const atomic<T>& a, src_loc = {}) noexcept {
        return a.v_.load(std::memory_order_acquire);
    }
    template <class T>
    static void store_release(atomic<T>& a, T v, src_loc = {}) noexcept {
        a.v_.store(v, std::memory_order_release);
    }
    template <class T>
    static bool try_cmpxchg(atomic<T>& a, T& old, T nv, src_loc = {}) noexcept {
        return a.v_.compare_exchange_strong(old, nv, std::memory_order_seq_cst,
                                            std::memory_order_seq_cst);
    }
    template <class T>
    static bool try_cmpxchg_acquire(atomic<T>& a, T& old, T nv, src_loc = {}) noexcept {
        return a.v_.compare_exchange_strong(old, nv, std::memory_order_acquire,
                                            std::memory_order_relaxed);
    }
    template <class T>
    static bool try_cmpxchg_release(atomic<T>& a, T& old, T nv, src_loc = {}) noexcept {
        return a.v_.compare_exchange_strong(old, nv, std::memory_order_release,
                                            std::memory_order_relaxed);
    }
    template <class T>
    static bool try_cmpxchg_relaxed(atomic<T>& a, T& old, T nv, src_loc = {}) noexcept {
        return a.v_.compare_exchange_strong(old, nv, std::memory_order_relaxed,
                                            std::memory_order_relaxed);
    }
    template <class T>
    static bool try_cmpxchg_local(atomic<T>& a, T& old, T nv, src_loc = {}) noexcept {
        return local_cas(a.v_, old, nv);
    }
    static void smp_mb(src_loc = {}) noexcept {
        std::atomic_thread_fence(std::memory_order_seq_cst);
    }
    static void smp_rmb(src_loc = {}) noexcept {
        std::atomic_thread_fence(std::memory_order_acquire);
    }
    static void smp_wmb(src_loc = {}) noexcept {
        std::atomic_thread_fence(std::memory_order_release);
    }

    template <class T>
    static T plain_read(const cell<T>& c, src_loc = {}) noexcept {
        return c.v_;
    }
    template <class T>
    static void plain_write(cell<T>& c, T v, src_loc = {}) noexcept {
        c.v_ = v;
    }
    template <class T>
    static T peek(const atomic<T>& a) noexcept {
        return a.v_.load(std::memory_order_relaxed);
    }

    // ----- dependencies: the model build tracks them (model/kernel/tracked.hpp); here the plain
    // types and statements, at no cost -----
    template <class T>
    using val = T;
    static constexpr bool when(bool cond) noexcept { return cond; }
    template <class T>
    static constexpr T raw(T v) noexcept {
        return v;
    }
    template <class A>
    static constexpr A& at(A* array, std::size_t index) noexcept {
        return array[index];
    }

    // ----- CPUs -----
    static cpumask possible_mask() noexcept { return cpumask(detail::machine().possible.load()); }
    static cpumask online_mask() noexcept { return cpumask(detail::machine().online.load()); }
    static unsigned nr_cpu_ids() noexcept { return possible_mask().span(); }
    static bool cpu_possible(unsigned c) noexcept { return possible_mask().test(c); }
    static unsigned num_possible_cpus() noexcept { return possible_mask().weight(); }
    static bool cpu_online(unsigned c) noexcept { return online_mask().test(c); }
    static bool cpu_dying(unsigned c) noexcept {
        return cpumask(detail::machine().dying.load()).test(c);
    }
    static unsigned num_online_cpus() noexcept { return online_mask().weight(); }

    static unsigned smp_processor_id(src_loc loc = {}) noexcept {
        check_preemption_disabled("smp_processor_id()", loc);
        return raw_smp_processor_id(loc);
    }
    static unsigned raw_smp_processor_id(src_loc loc = {}) noexcept {
        const int cpu = detail::this_thread_state().cpu;
        if (cpu < 0) {
            std::fprintf(stderr, "kverify: %s:%u: thread has no virtual CPU (use cpu_scope)\n",
                         loc.file, loc.line);
            std::abort();
        }
        return static_cast<unsigned>(cpu);
    }

    // ----- interrupts and preemption -----
    // The saved flags are an x86 flags image, as in the kernel: irq_flags_on (EFLAGS.IF) is set
    // when irqs were on. Reading the flags register is the kernel's save; its cli has no
    // user-mode form.
    static constexpr irq_flags irq_flags_on = 1ul << 9;
    static irq_flags local_irq_save(src_loc = {}) noexcept {
        detail::real_cpu_state& t = detail::this_thread_state();
        irq_flags flags = detail::read_cpu_flags() | irq_flags_on;
        if (t.irqs_off) flags &= ~irq_flags_on;
        t.irqs_off = true;
        detail::signal_barrier();  // the section starts after irqs are off, for the compiler too
        return flags;
    }
    static void local_irq_restore(irq_flags flags, src_loc = {}) noexcept {
        detail::real_cpu_state& t = detail::this_thread_state();
        detail::signal_barrier();  // the section ends before irqs are back on
        const bool on = (flags & irq_flags_on) != 0;
        // popf of the saved flags: the cost stand-in for the kernel's sti (IF stays as it is).
        detail::write_cpu_flags(flags | irq_flags_on);
        t.irqs_off = !on;
        // irq_pending first: the common case (nothing pending) costs one flag read.
        if (on && t.irq_pending && !t.in_irq && !t.in_nmi) {
            // An IRQ that arrived while irqs were off runs now, as on irq enable in the kernel.
            while (t.irq_pending) {
                t.irq_pending = false;
                detail::run_irq(t);
            }
        }
    }
    static bool irqs_disabled() noexcept { return detail::this_thread_state().irqs_off; }
    static bool in_task() noexcept {
        const detail::real_cpu_state& t = detail::this_thread_state();
        return !t.in_irq && !t.in_nmi;
    }
    static void preempt_disable(src_loc = {}) noexcept {
        ++detail::this_thread_state().preempt_count;
        detail::signal_barrier();
    }
    static void preempt_enable(src_loc = {}) noexcept {
        detail::signal_barrier();
        --detail::this_thread_state().preempt_count;
    }

    // ----- per-CPU operations -----
    template <class T>
    static T this_cpu_read(const percpu<T>& p, src_loc loc = {}) noexcept {
        return mine(p, loc).load(std::memory_order_relaxed);
    }
    template <class T>
    static void this_cpu_write(percpu<T>& p, T v, src_loc loc = {}) noexcept {
        mine(p, loc).store(v, std::memory_order_relaxed);
    }
    template <class T>
    static void this_cpu_add(percpu<T>& p, T v, src_loc loc = {}) noexcept {
        local_add(mine(p, loc), v);
    }
    template <class T>
    static void this_cpu_sub(percpu<T>& p, T v, src_loc loc = {}) noexcept {
        local_add(mine(p, loc), static_cast<T>(T{0} - v));
    }
    template <class T>
    static bool this_cpu_try_cmpxchg(percpu<T>& p, T& old, T nv, src_loc loc = {}) noexcept {
        return local_cas(mine(p, loc), old, nv);
    }
    template <class T>
    static T this_cpu_read_nocheck(const percpu<T>& p, src_loc loc = {}) noexcept {
        check_preemption_disabled("__this_cpu_read()", loc);
        return this_cpu_read(p, loc);
    }
    template <class T>
    static void this_cpu_write_nocheck(percpu<T>& p, T v, src_loc loc = {}) noexcept {
        check_preemption_disabled("__this_cpu_write()", loc);
        this_cpu_write(p, v, loc);
    }
    template <class T>
    static void this_cpu_add_nocheck(percpu<T>& p, T v, src_loc loc = {}) noexcept {
        check_preemption_disabled("__this_cpu_add()", loc);
        generic_rmw_add(mine(p, loc), v);
    }
    template <class T>
    static void this_cpu_sub_nocheck(percpu<T>& p, T v, src_loc loc = {}) noexcept {
        check_preemption_disabled("__this_cpu_sub()", loc);
        generic_rmw_add(mine(p, loc), static_cast<T>(T{0} - v));
    }
    template <class T>
    static bool this_cpu_try_cmpxchg_nocheck(percpu<T>& p, T& old, T nv,
                                             src_loc loc = {}) noexcept {
        check_preemption_disabled("__this_cpu_cmpxchg()", loc);
        std::atomic<T>& a = mine(p, loc);
        const T cur = a.load(std::memory_order_relaxed);
        detail::signal_barrier();  // generic form: an interrupt may land between read and write
        if (cur != old) {
            old = cur;
            return false;
        }
        a.store(nv, std::memory_order_relaxed);
        return true;
    }
    template <class T>
    static T raw_cpu_read(const percpu<T>& p, src_loc loc = {}) noexcept {
        return this_cpu_read(p, loc);
    }
    // Remote accesses: plain untorn words (relaxed atomics), as the kernel relies on.
    template <class T>
    static T per_cpu_read(const percpu<T>& p, unsigned cpu, src_loc = {}) noexcept {
        return p.slots_[cpu].v.load(std::memory_order_relaxed);
    }
    template <class T>
    static void per_cpu_write(percpu<T>& p, unsigned cpu, T v, src_loc = {}) noexcept {
        p.slots_[cpu].v.store(v, std::memory_order_relaxed);
    }

    // ----- locks -----
    // raw_spin_lock also disables preemption, as in the kernel.
    static void spin_lock(spinlock& l, src_loc loc = {}) noexcept {
        preempt_disable(loc);
        // acquire: pairs with the release in spin_unlock of the previous holder.
        while (l.locked_.exchange(true, std::memory_order_acquire)) {
            while (l.locked_.load(std::memory_order_relaxed)) cpu_relax();
        }
    }
    static void spin_unlock(spinlock& l, src_loc loc = {}) noexcept {
        l.locked_.store(false, std::memory_order_release);  // pairs with the acquire in spin_lock
        preempt_enable(loc);
    }
    static irq_flags spin_lock_irqsave(spinlock& l, src_loc loc = {}) noexcept {
        const irq_flags f = local_irq_save(loc);
        spin_lock(l, loc);
        return f;
    }
    static void spin_unlock_irqrestore(spinlock& l, irq_flags f, src_loc loc = {}) noexcept {
        spin_unlock(l, loc);
        local_irq_restore(f, loc);
    }

    // ----- memory, diagnostics, choice -----
    static void* kmalloc(std::size_t bytes, src_loc = {}) noexcept {
        std::atomic<long>& budget = detail::machine().kmalloc_budget;
        long left = budget.load(std::memory_order_relaxed);
        while (left >= 0) {
            if (left == 0) return nullptr;  // injected allocation failure
            if (budget.compare_exchange_weak(left, left - 1, std::memory_order_relaxed)) break;
        }
        return std::malloc(bytes);
    }
    static void kfree(void* p, src_loc = {}) noexcept { std::free(p); }

    static bool warn_once(bool cond, const char* what, src_loc loc = {}) noexcept {
        if (cond && detail::machine().warnings.fetch_add(1, std::memory_order_relaxed) == 0)
            std::fprintf(stderr, "kverify: WARNING: %s at %s:%u (%s)\n", what, loc.file, loc.line,
                         loc.func);
        return cond;
    }
    static void cpu_relax(src_loc = {}) noexcept {
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
    }
    template <class T>
    static void declare_cpu_local(atomic<T>&, unsigned) noexcept {}
    static unsigned choose(unsigned n) noexcept {
        std::uint64_t& s = detail::this_thread_state().rng;
        if (s == 0) s = 0x9e3779b97f4a7c15ull ^ reinterpret_cast<std::uintptr_t>(&s);
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        return n == 0 ? 0 : static_cast<unsigned>(s % n);
    }

    // ----- harness side: machine setup, virtual CPUs, interrupt injection -----
    static void configure(cpumask possible) noexcept { configure(possible, possible); }
    static void configure(cpumask possible, cpumask online) noexcept {
        detail::real_machine& m = detail::machine();
        m.possible.store(possible.bits());
        m.online.store(online.bits());
        m.dying.store(0);
    }
    static void set_cpu_online(unsigned cpu, bool on) noexcept {
        if (on)
            detail::machine().online.fetch_or(std::uint64_t{1} << cpu);
        else
            detail::machine().online.fetch_and(~(std::uint64_t{1} << cpu));
    }
    static void set_cpu_dying(unsigned cpu, bool dying) noexcept {
        if (dying)
            detail::machine().dying.fetch_or(std::uint64_t{1} << cpu);
        else
            detail::machine().dying.fetch_and(~(std::uint64_t{1} << cpu));
    }

    // Registers the calling thread as virtual CPU `cpu` for the scope's lifetime.
    class cpu_scope {
    public:
        explicit cpu_scope(unsigned cpu) {
            detail::install_signal_handlers();
            detail::real_machine& m = detail::machine();
            detail::real_cpu_state& t = detail::this_thread_state();
            t = detail::real_cpu_state{static_cast<int>(cpu), 0, false, false, false, false, 0};
            std::lock_guard<std::mutex> g(m.threads_lock);
            m.thread[cpu] = pthread_self();
            m.registered[cpu] = true;
        }
        ~cpu_scope() {
            detail::real_machine& m = detail::machine();
            detail::real_cpu_state& t = detail::this_thread_state();
            {
                std::lock_guard<std::mutex> g(m.threads_lock);
                m.registered[t.cpu] = false;
            }
            // A signal sent just before unregistering may still arrive: it finds cpu < 0.
            t.cpu = -1;
        }
        cpu_scope(const cpu_scope&) = delete;
        cpu_scope& operator=(const cpu_scope&) = delete;
    };

    static void set_irq_handler(unsigned cpu, irq_handler_fn fn, void* arg) noexcept {
        detail::machine().irq_arg[cpu].store(arg, std::memory_order_relaxed);
        detail::machine().irq_handler[cpu].store(fn, std::memory_order_release);
    }
    static void set_nmi_handler(unsigned cpu, irq_handler_fn fn, void* arg) noexcept {
        detail::machine().nmi_arg[cpu].store(arg, std::memory_order_relaxed);
        detail::machine().nmi_handler[cpu].store(fn, std::memory_order_release);
    }
    // Sends an IRQ (or NMI) to the thread registered as `cpu`; false if none is registered.
    static bool raise_irq(unsigned cpu) { return raise(cpu, SIGUSR1); }
    static bool raise_nmi(unsigned cpu) { return raise(cpu, SIGUSR2); }

    struct counters {
        std::uint64_t irqs_run, irqs_deferred, nmis_run, nmis_dropped, warnings, preempt_violations;
    };
    static counters stats() noexcept {
        detail::real_machine& m = detail::machine();
        return {m.irqs_run.load(),     m.irqs_deferred.load(), m.nmis_run.load(),
                m.nmis_dropped.load(), m.warnings.load(),      m.preempt_violations.load()};
    }
    static void reset_stats() noexcept {
        detail::real_machine& m = detail::machine();
        m.irqs_run = 0;
        m.irqs_deferred = 0;
        m.nmis_run = 0;
        m.nmis_dropped = 0;
        m.warnings = 0;
        m.preempt_violations = 0;
    }
    // kmalloc succeeds `n` more times, then fails; n < 0 never fails.
    static void fail_kmalloc_after(long n) noexcept { detail::machine().kmalloc_budget.store(n); }

    static const char* local_ops_impl() noexcept {
#ifdef KVERIFY_LOCAL_ASM
        return "x86-64 cmpxchg/add without LOCK";
#else
        return "relaxed std::atomic RMW (fallback: no x86-64, or ThreadSanitizer)";
#endif
    }

private:
    template <class T>
    static std::atomic<T>& mine(const percpu<T>& p, src_loc loc) noexcept {
        return const_cast<std::atomic<T>&>(p.slots_[raw_smp_processor_id(loc)].v);
    }
    static void check_preemption_disabled(const char* what, src_loc loc) noexcept {
        const detail::real_cpu_state& t = detail::this_thread_state();
        if (t.preempt_count == 0 && !t.irqs_off && !t.in_irq && !t.in_nmi)
            detail::report_preempt_violation(what, loc);
    }
    static bool raise(unsigned cpu, int sig) {
        detail::real_machine& m = detail::machine();
        std::lock_guard<std::mutex> g(m.threads_lock);
        if (cpu >= cpumask::max_cpus || !m.registered[cpu]) return false;
        return pthread_kill(m.thread[cpu], sig) == 0;
    }

    // One instruction without LOCK: atomic against this thread's signal handlers only.
    template <class T>
    static bool local_cas(std::atomic<T>& a, T& old, T nv) noexcept {
#ifdef KVERIFY_LOCAL_ASM
        static_assert(sizeof(std::atomic<T>) == sizeof(T), "lock-free word");
        bool ok;
        T* p = reinterpret_cast<T*>(&a);
        asm volatile("cmpxchg %3, %1" : "=@ccz"(ok), "+m"(*p), "+a"(old) : "r"(nv) : "memory");
        return ok;
#else
        return a.compare_exchange_strong(old, nv, std::memory_order_relaxed,
                                         std::memory_order_relaxed);
#endif
    }
    template <class T>
    static void local_add(std::atomic<T>& a, T v) noexcept {
#ifdef KVERIFY_LOCAL_ASM
        T* p = reinterpret_cast<T*>(&a);
        asm volatile("add %1, %0" : "+m"(*p) : "r"(v) : "cc", "memory");
#else
        a.fetch_add(v, std::memory_order_relaxed);
#endif
    }
    template <class T>
    static void generic_rmw_add(std::atomic<T>& a, T v) noexcept {
        const T cur = a.load(std::memory_order_relaxed);
        detail::signal_barrier();  // generic form: an interrupt may land between read and write
        a.store(static_cast<T>(cur + v), std::memory_order_relaxed);
    }
};

}  // namespace kverify
