// SPDX-License-Identifier: GPL-2.0-only
// The dpor adapter: the interface `model::engine` that the simulated kernel (kernel.hpp) and the
// Env (model_env.hpp) are written against, implemented on the project's own engine (model/dpor).
//
// The engine explores execution graphs, not schedules: two threads may only communicate through
// its events, or the reduction would miss the dependency. So every piece of simulator state that
// more than one task touches is an engine location here: each CPU is a token word (a task
// waiting for a held CPU blocks until a release is read), the online and dying masks are seq_cst
// words, the global migration budget is a word every migration decrements, and a task's end is a
// flag word. State of one CPU is kept by the task holding its token and travels in the token's
// value to the next holder, and state of one task is only touched by that task, so both stay plain.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>

#include "impl/common.hpp"
#include "model/dpor/engine.hpp"
#include "model/engines/handoff.hpp"

namespace kverify::model {
inline namespace eng_dpor {

struct engine {
    static constexpr const char* name = "dpor";
    // Several interrupts may be delivered at one delivery point, one after another, within the
    // budgets (back-to-back interrupts in one window).
    static constexpr bool repeat_delivery = true;

    using order = dpor::mo;
    static constexpr order relaxed = dpor::mo::relaxed;
    static constexpr order acquire = dpor::mo::acquire;
    static constexpr order release = dpor::mo::release;
    static constexpr order acq_rel = dpor::mo::acq_rel;
    static constexpr order seq_cst = dpor::mo::seq_cst;

    // The kernel's labeler (unused here: the runner passes the engine a context function).
    using labeler_fn = void (*)(char* buf, std::size_t n, src_loc loc);
    static labeler_fn& labeler() {
        static thread_local labeler_fn f = nullptr;  // set by each thread's kernel
        return f;
    }
    static bool tracing() { return dpor::rt::tracing(); }
    static void note(const char* text, src_loc loc) {
        if (tracing()) dpor::rt::note(text, loc);
    }
    // Memory named by its role in traces (model_env::name_as); only a trace run keeps names.
    static bool naming() { return tracing(); }
    // Reads may take values of writes that run later (dpor-lkmm): scenario.hpp, lkmm_ready.
    static bool load_buffering() { return dpor::rt::load_buffering(); }
    static void name_memory(const void* p, std::size_t bytes, const std::string& name) {
        dpor::rt::name_memory(p, bytes, name);
    }

    // Values as the engine's 64-bit words and back (pointers, integers of any signedness).
    template <class T>
    static dpor::value_t to_word(T v) {
        if constexpr (std::is_pointer_v<T>)
            return reinterpret_cast<std::uintptr_t>(v);
        else if constexpr (std::is_same_v<T, bool>)
            return v ? 1 : 0;
        else
            return static_cast<dpor::value_t>(static_cast<std::make_unsigned_t<T>>(v));
    }
    template <class T>
    static T from_word(dpor::value_t v) {
        if constexpr (std::is_pointer_v<T>)
            return reinterpret_cast<T>(static_cast<std::uintptr_t>(v));
        else if constexpr (std::is_same_v<T, bool>)
            return v != 0;
        else
            return static_cast<T>(static_cast<std::make_unsigned_t<T>>(v));
    }

    // ----- what the LKMM needs (dpor/engine.hpp, namespace rt; the other models ignore it) -----
    // A read named as a dependency (an index among its thread's events), the thread it belongs
    // to, and the kernel primitive of the next access.
    using dep_id = dpor::rt::dep_id;
    using lk = dpor::lk;
    static bool dependencies() { return dpor::rt::reads_dependencies(); }
    static unsigned dep_thread() { return dpor::rt::thread(); }
    static dep_id last_event() { return dpor::rt::last_event(); }
    static void annotate(lk kind, const dep_id* addr = nullptr, std::size_t n_addr = 0,
                         const dep_id* data = nullptr, std::size_t n_data = 0) {
        dpor::rt::annotate_next(kind, addr, n_addr, data, n_data);
    }
    static void ctrl_begin(const dep_id* cond, std::size_t n) { dpor::rt::ctrl_begin(cond, n); }
    static void ctrl_end() { dpor::rt::ctrl_end(); }
    static void depend_after(const dep_id* reads, std::size_t n) {
        if (n) dpor::rt::depend_after(reads, n);
    }
    static void handler_begin() { dpor::rt::handler_begin(); }
    static void handler_end() { dpor::rt::handler_end(); }

    // ----- memory -----
    // The engine keeps the values; the object only gives the location its address.
    template <class T>
    class atomic_word {
        static_assert(sizeof(T) <= 8, "engine words are at most 64 bits");

    public:
        explicit atomic_word(T v, src_loc l = {}) {
            if constexpr (std::is_pointer_v<T>) dpor::rt::pointer_values(this);
            dpor::rt::init_atomic(this, sizeof(T), to_word(v), l);
        }
        atomic_word(const atomic_word&) = delete;
        atomic_word& operator=(const atomic_word&) = delete;
        T load(order o, src_loc l) const { return from_word<T>(dpor::rt::load(this, o, l)); }
        void store(T v, order o, src_loc l) { dpor::rt::store(this, to_word(v), o, l); }
        bool cas(T& old, T nv, order success, order failure, src_loc l) {
            dpor::value_t e = to_word(old);
            const bool ok = dpor::rt::cas(this, e, to_word(nv), success, failure, l);
            if (!ok) old = from_word<T>(e);
            return ok;
        }
        // The kernel's try_cmpxchg: fully ordered when it succeeds, unordered when it fails.
        bool cas_full(T& old, T nv, src_loc l) {
            dpor::value_t e = to_word(old);
            const bool ok = dpor::rt::cas_fully_ordered(this, e, to_word(nv), l);
            if (!ok) old = from_word<T>(e);
            return ok;
        }
        T peek() const { return from_word<T>(dpor::rt::peek(this)); }

    private:
        std::uint64_t storage_ = 0;
    };

    template <class T>
    class plain_word {
        static_assert(sizeof(T) <= 8, "engine words are at most 64 bits");

    public:
        explicit plain_word(T v, src_loc l = {}) {
            if constexpr (std::is_pointer_v<T>) dpor::rt::pointer_values(this);
            dpor::rt::init_plain(this, sizeof(T), to_word(v), l);
        }
        plain_word(const plain_word&) = delete;
        plain_word& operator=(const plain_word&) = delete;
        T read(src_loc l) const { return from_word<T>(dpor::rt::plain_load(this, l)); }
        void write(T v, src_loc l) { dpor::rt::plain_store(this, to_word(v), l); }

    private:
        std::uint64_t storage_ = 0;
    };

    // A lock word for the kernel's spinlock: a cas with acquire; when it fails the task would
    // spin, which the engine turns into a block that a later unlock revisits (spin-assume).
    // Under the LKMM the cas is lock.cat's lock (LKR and LKW; a failed one LF), the store UL.
    class lock_word {
    public:
        explicit lock_word(src_loc l = {}) { dpor::rt::init_atomic(this, 8, 0, l); }
        lock_word(const lock_word&) = delete;
        lock_word& operator=(const lock_word&) = delete;
        void lock(src_loc l) {
            dpor::value_t expected = 0;
            dpor::rt::annotate_next(dpor::lk::lock);
            dpor::rt::await_next(dpor::await_kind::cas_fails);  // see take below
            // Acquire: pairs with the release in unlock.
            if (!dpor::rt::cas(this, expected, 1, dpor::mo::acquire, dpor::mo::relaxed, l))
                dpor::rt::block("lock", l);
        }
        void unlock(src_loc l) {
            dpor::rt::annotate_next(dpor::lk::unlock);
            dpor::rt::store(this, 0, dpor::mo::release, l);  // release
        }

    private:
        std::uint64_t storage_ = 0;
    };

    static void fence(order o, src_loc l) { dpor::rt::fence(o, l); }
    // The end of a failed spin-loop iteration: a repeated one blocks (dpor/engine.hpp).
    static void spin(src_loc l) { dpor::rt::spin_iteration(l); }

    static void* alloc(std::size_t bytes, src_loc l) { return dpor::rt::alloc(bytes, l); }
    static void free(void* p, src_loc l) {
        if (p) dpor::rt::dealloc(p, l);
    }

    // ----- threads, choice, failure -----
    // Engine thread 0 is the harness (the scenario's constructor and after()); task t is thread
    // t + 1.
    static bool in_thread() { return dpor::rt::thread() != 0; }
    static unsigned thread_index() { return dpor::rt::thread() - 1; }
    static unsigned choose(unsigned n, src_loc l) { return n <= 1 ? 0 : dpor::rt::choose(n, l); }
    [[noreturn]] static void fail(const char* cls, const char* msg, src_loc l) {
        dpor::rt::fail(cls, msg, l);
    }
    // No scheduler to hold: the engine only interleaves at events.
    struct no_switch {};
    static void on_point(src_loc) {}  // the engine keeps its own time budget

    // The read just made decides whether (and how) this thread goes on: under load buffering
    // every later event of the thread depends on it (the other models need nothing).
    static void after_read_decides() {
        if (!dpor::rt::load_buffering()) return;
        const dpor::rt::dep_id read = dpor::rt::last_event();
        dpor::rt::depend_after(&read, 1);
    }

    // ----- the kernel's shared words -----
    // seq_cst: the hotplug machinery changes the masks under stop_machine, a global barrier.
    // Under the LKMM a change is the engine's default for a seq_cst word (a ONCE store between
    // two smp_mb: every CPU is stopped around it), and a read is an acquire read: a reader that
    // sees a mask sees what the hotplug step did before it (stop_machine's barriers on the
    // reader's CPU), and what follows the read cannot move before it, so no load-buffering
    // revisit reaches past it (its value may leave untracked). Not a full barrier: the kernel's
    // read is a plain bitmap read, and a read that ordered earlier stores before later loads
    // hid fix-limited-add's smp_mb (MAPPING.md, note 9).
    class shared_mask {
    public:
        void init(std::uint64_t v, src_loc l) { dpor::rt::init_atomic(&w_, 8, v, l); }
        std::uint64_t load(src_loc l) const {
            dpor::rt::annotate_next(dpor::lk::acquire);
            return dpor::rt::load(&w_, dpor::mo::seq_cst, l);
        }
        void store(std::uint64_t v, src_loc l) { dpor::rt::store(&w_, v, dpor::mo::seq_cst, l); }

    private:
        std::uint64_t w_ = 0;
    };

    // Migrations, all tasks together. Taking one decrements the shared word (relaxed: it is a
    // count, it orders nothing), and an execution that finds it spent is cut (assume), so
    // complete executions never migrate more than the budget. A task offers a migration while
    // the budget it knows is left is not spent: at first the whole budget; after a take of its
    // own, what that take left; after it took a CPU, no more than what the task releasing that
    // CPU knew (the token carries it: cpu_token). Every write to the word decrements the one
    // before it (or, in a take that is then cut, wraps 0 around), and the task's next take is
    // later in coherence than each write it knows of: its own (coherence of one location, under
    // every model), and one the releasing task made or knew of before its release, which the
    // release and the acquire of the take order before it (happens-before under SC and RC11;
    // under the LKMM the message-passing shape of a release read by an acquire, which forbids
    // reading an older write, cumulative along a chain of such handoffs). So once the task knows
    // 0 is left, every take it could still offer would only be cut: those executions are not
    // started.
    class budget_word {
    public:
        void init(unsigned v, src_loc l) {
            initial_ = v;
            for (unsigned& s : seen_) s = v;
            if (v) dpor::rt::init_atomic(&w_, 8, v, l);
        }
        bool may_take() const { return seen_[dpor::rt::thread()] > 0; }
        // What this engine thread knows is left, and what it learns from a CPU's token
        // (cpu_taken::no_news: nothing).
        unsigned known() const { return seen_[dpor::rt::thread()]; }
        void learn(unsigned left) {
            unsigned& s = seen_[dpor::rt::thread()];
            s = std::min(s, left);
        }
        void take(src_loc l) {
            dpor::rt::annotate_next(dpor::lk::once);  // a _relaxed RMW under the LKMM
            const dpor::value_t old =
                dpor::rt::fetch_add(&w_, ~dpor::value_t{0}, dpor::mo::relaxed, l);
            // Whether the task goes on depends on the value read: under load buffering, what
            // follows is run anew when that read changes (never kept past a block it now meets).
            after_read_decides();
            if (old == 0 || old > initial_) dpor::rt::block("budget", l);
            seen_[dpor::rt::thread()] = unsigned(old - 1);
        }

    private:
        std::uint64_t w_ = 0;
        unsigned initial_ = 0;
        // What each engine thread knows is left (its own: under load buffering a take may run,
        // in the engine's order, before another thread's take it follows in coherence).
        unsigned seen_[dpor::max_threads] = {};
    };

    // A CPU as a token: word = (state << 32) | (budget + 1) << 24 | yielded << 8 | (holder + 1),
    // 0 in the low byte when free, 0 in the budget byte in the initial word. A take is one event
    // (rt::claim: the low byte must be clear, and the taker's number goes there; the rest of the
    // word travels with it). Acquire and release pair, so the task arriving on a CPU sees what
    // the leaving one did there (the run-queue lock's ordering). `state` is the kernel's word for
    // the CPU's own state (kernel::handoff_word) and `budget` the migration budget as the
    // releasing task knew it left (budget_word::known): the release stores both and the take
    // returns them, so a holder starts from exactly what the release it read left, even one that
    // runs later in the engine's order (load buffering). `yielded`: bit t of it set by task t's
    // release at a point where it may be preempted, so that its take back tells its own release
    // from another task's.
    class cpu_token {
    public:
        using taken = cpu_taken;  // the initial word teaches no budget (no_news)
        // A preemption is a window (kernel::preemption_window): the holder lets the CPU go and
        // takes it back, and a waiting task's take that reads that release is the preemption.
        static constexpr bool preempt_by_window = true;
        void init(unsigned /*cpu*/, bool handoff, src_loc l) {
            handoff_ = handoff;
            dpor::rt::init_atomic(&w_, 8, 0, l);
        }
        taken acquire(unsigned task, src_loc l) { return take(task, 0, 0, l); }
        void release(std::uint32_t state, unsigned budget, src_loc l) {
            store(word(state, budget), l);
        }
        // The window: give the CPU up and take it back at once, unless a waiting task takes it
        // first (then after that task lets it go).
        taken window(unsigned task, std::uint32_t state, unsigned budget, src_loc l) {
            store(word(state, budget) | yielded(task), l);
            return take(task, 0, yielded(task), l);
        }
        // Preempted in place, by the holder's choice (--preempt-by-choice): give the CPU up,
        // and take it back only after another task held it (a preemption no other task uses
        // changes nothing: that execution is cut).
        taken yield_to_waiter(unsigned task, std::uint32_t state, unsigned budget, src_loc l) {
            store(word(state, budget) | yielded(task), l);
            return take(task, yielded(task), yielded(task), l);
        }
        // Whether a task may be waiting: unknown without an event, so whenever CPUs can change
        // hands (a migration budget, or more tasks than CPUs).
        bool contended() const { return handoff_; }

    private:
        // `budget` fits its byte: kernel::configure refuses a budget above max_migration_budget.
        static dpor::value_t word(std::uint32_t state, unsigned budget) {
            return dpor::value_t{state} << 32 | dpor::value_t{budget + 1} << 24;
        }
        static dpor::value_t yielded(unsigned task) {
            static_assert(dpor::max_threads <= 16, "a task's yield bit fits bits 8 to 23");
            return dpor::value_t{1} << (8 + task);
        }
        void store(dpor::value_t v, src_loc l) {
            dpor::rt::annotate_next(dpor::lk::release);
            dpor::rt::store(&w_, v, dpor::mo::release, l);  // pairs with take
        }
        // Blocks the task while the CPU is held, or reads a release with the bits `not_after`
        // (its own, when it yielded by choice): the failed claim is a declared await, revisited
        // by the next release. `own`: the bit of this task's own release, if it made one.
        taken take(unsigned task, dpor::value_t not_after, dpor::value_t own, src_loc l) {
            // Under the LKMM an acquire as well: ordered before all that follows it, so no
            // load-buffering revisit keeps an event after it unchanged.
            dpor::rt::annotate_next(dpor::lk::acquire);
            dpor::rt::await_next(dpor::await_kind::cas_fails);
            dpor::value_t v = 0;
            if (!dpor::rt::claim(&w_, task + 1, 0xff | not_after, v, dpor::mo::acquire,
                                 dpor::mo::relaxed, l))
                dpor::rt::block((v & 0xff) != 0 ? "wait" : "yield", l);
            taken t;
            t.state = std::uint32_t(v >> 32);
            const unsigned b = unsigned(v >> 24 & 0xff);
            t.budget = b == 0 ? taken::no_news : b - 1;
            t.preempted = own != 0 && (v & own) == 0;
            return t;
        }
        std::uint64_t w_ = 0;
        bool handoff_ = false;
    };

    // A task's end, waited for by other tasks: a flag set with release, read with acquire; a
    // waiter that reads it unset blocks until a revisit lets it read the set flag.
    class completion {
    public:
        explicit completion(src_loc l = {}) { dpor::rt::init_atomic(&w_, 8, 0, l); }
        completion(const completion&) = delete;
        completion& operator=(const completion&) = delete;
        // `value` (nonzero) is what wait returns: a waiter learns it from what it read, which
        // stays true under load buffering (the poster may run later in the engine's order).
        void post(unsigned /*waiters*/, src_loc l, std::uint64_t value = 1) {
            dpor::rt::store(&w_, value, dpor::mo::release, l);
        }
        std::uint64_t wait(src_loc l) {
            dpor::rt::await_next(dpor::await_kind::equal_or_bits, 0, 0);  // blocks on 0
            const std::uint64_t v = dpor::rt::load(&w_, dpor::mo::acquire, l);
            after_read_decides();  // as in budget_word::take
            if (v == 0) dpor::rt::block("wait", l);
            return v;
        }

    private:
        std::uint64_t w_ = 0;
    };
};

}  // namespace eng_dpor
}  // namespace kverify::model
