// SPDX-License-Identifier: GPL-2.0-only
// The Relacy adapter: the interface `model::engine` that the simulated kernel (kernel.hpp) and
// the Env (model_env.hpp) are written against, implemented on Relacy Race Detector. Everything
// that names Relacy, apart from its runner (runners/relacy.cpp) and heap (heap.hpp), is here.
//
// Relacy explores schedules: simulator state may stay plain C++ state (it is read and written in
// schedule order), so the kernel's shared words (masks, budget) are plain here, and a task waiting
// for a CPU spins with Relacy's yield.
#pragma once

#include <chrono>
#include <cstring>
#include <set>

#include "impl/common.hpp"
#include "model/engines/handoff.hpp"
// Relacy itself, included here only. Standard headers come first; Relacy's convenience macros
// (new, delete, malloc, free, assert, errno, memory_order_*) are removed again afterwards so the
// rest of the code keeps standard meanings and uses the rl:: names directly.
#include <algorithm>
#include <cassert>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#pragma push_macro("errno")
#pragma push_macro("assert")
#include <relacy/relacy.hpp>
#undef new
#undef delete
#undef malloc
#undef calloc
#undef realloc
#undef free
#undef memory_order_relaxed
#undef memory_order_consume
#undef memory_order_acquire
#undef memory_order_release
#undef memory_order_acq_rel
#undef memory_order_seq_cst
#undef errno
#undef assert
#pragma pop_macro("assert")
#pragma pop_macro("errno")

namespace kverify::model {
inline namespace eng_relacy {

struct engine {
    static constexpr const char* name = "relacy";
    // Relacy interleaves only at its own scheduling points; one interrupt per delivery point.
    static constexpr bool repeat_delivery = false;

    using order = rl::memory_order;
    static constexpr order relaxed = rl::mo_relaxed;
    static constexpr order acquire = rl::mo_acquire;
    static constexpr order release = rl::mo_release;
    static constexpr order acq_rel = rl::mo_acq_rel;
    static constexpr order seq_cst = rl::mo_seq_cst;

    // ----- trace context: the kernel installs a function naming where the caller runs -----
    using labeler_fn = void (*)(char* buf, std::size_t n, src_loc loc);
    static labeler_fn& labeler() {
        static labeler_fn f = nullptr;
        return f;
    }
    static bool tracing() { return rl::is_ctx() && rl::ctx().collecting_history(); }
    // Relacy debug info naming the CPU and context: built only while Relacy collects a history
    // (the replay of a failing execution), so the search itself stays cheap.
    static rl::debug_info info(src_loc loc) {
        if (!tracing() || labeler() == nullptr) return rl::debug_info(loc.func, loc.file, loc.line);
        char buf[160];
        labeler()(buf, sizeof buf, loc);
        return rl::debug_info(intern(buf), loc.file, loc.line);
    }
    static void note(const char* text, src_loc loc) {
        if (tracing()) rl::ctx().exec_log_msg(info(loc), text);
    }
    // Memory named by its role in traces (model_env::name_as): Relacy's traces name addresses
    // @1, @2, ... in order of first appearance (runners/trace_text.hpp) and keep no names (the
    // names' strings would be allocated inside Relacy's own memory management).
    static bool naming() { return false; }
    static bool load_buffering() { return false; }  // Relacy's C++11 has no load buffering
    static void name_memory(const void*, std::size_t, const std::string&) {}

    // ----- what the LKMM needs: nothing (Relacy has no dependencies; see engines/dpor.hpp) -----
    using dep_id = std::uint32_t;
    enum class lk : std::uint8_t {
        automatic,
        once,
        acquire,
        release,
        mb,
        noreturn,
        lock,
        unlock,
        lock_fail,
        f_mb,
        f_rmb,
        f_wmb,
    };
    static bool dependencies() { return false; }
    static unsigned dep_thread() { return 0; }
    static dep_id last_event() { return 0; }
    static void annotate(lk, const dep_id* = nullptr, std::size_t = 0, const dep_id* = nullptr,
                         std::size_t = 0) {}
    static void ctrl_begin(const dep_id*, std::size_t) {}
    static void ctrl_end() {}
    static void depend_after(const dep_id*, std::size_t) {}
    static void handler_begin() {}
    static void handler_end() {}

    // ----- memory -----
    template <class T>
    class atomic_word {
    public:
        explicit atomic_word(T v) : a_(v) {}
        atomic_word(const atomic_word&) = delete;
        atomic_word& operator=(const atomic_word&) = delete;
        T load(order o, src_loc l) const { return a_.load(o, info(l)); }
        void store(T v, order o, src_loc l) { a_.store(v, o, info(l)); }
        bool cas(T& old, T nv, order success, order failure, src_loc l) {
            const rl::debug_info i = info(l);
            return a_.compare_exchange_strong(old, nv, success, i, failure, i);
        }
        // The kernel's try_cmpxchg. Relacy cannot make a fence depend on the outcome: a
        // seq_cst fence, a seq_cst cas and a seq_cst fence whether it succeeds or fails, so a
        // failed one is ordered (stronger than the kernel: litmus/cmpxchg-fail-unordered).
        bool cas_full(T& old, T nv, src_loc l) {
            const rl::debug_info i = info(l);
            rl::atomic_thread_fence(rl::mo_seq_cst, i);
            const bool ok =
                a_.compare_exchange_strong(old, nv, rl::mo_seq_cst, i, rl::mo_seq_cst, i);
            rl::atomic_thread_fence(rl::mo_seq_cst, i);
            return ok;
        }
        T peek() const { return a_.debug_value(); }

    private:
        rl::atomic<T> a_;
    };

    template <class T>
    class plain_word {
    public:
        explicit plain_word(T v) : v_(v) {}
        plain_word(const plain_word&) = delete;
        plain_word& operator=(const plain_word&) = delete;
        T read(src_loc l) const { return v_(info(l)); }
        void write(T v, src_loc l) { v_(info(l)) = v; }

    private:
        rl::var<T> v_;
    };

    // A lock word for the kernel's spinlock: Relacy's mutex (a contended lock blocks; see
    // model/ASSUMPTIONS.md for what that means for interrupts while spinning).
    class lock_word {
    public:
        void lock(src_loc l) { m_.lock(info(l)); }
        void unlock(src_loc l) { m_.unlock(info(l)); }

    private:
        rl::mutex m_;
    };

    static void fence(order o, src_loc l) { rl::atomic_thread_fence(o, info(l)); }
    // A spin-loop iteration: Relacy's yield keeps its search fair (model/kernel/MAPPING.md).
    static void spin(src_loc l) { rl::ctx().yield(1, info(l)); }

    // kmalloc / kfree: the heap of heap.hpp (defined there).
    static void* alloc(std::size_t bytes, src_loc l);
    static void free(void* p, src_loc l);

    // ----- threads, choice, failure -----
    static bool in_thread() { return rl::is_ctx() && rl::ctx().threadx_ != nullptr; }
    static unsigned thread_index() { return rl::thread_index(); }
    static unsigned choose(unsigned n, src_loc) { return n <= 1 ? 0 : rl::rand(n); }
    // Fails the execution; Relacy records it and unwinds at its next scheduling point.
    static void fail(const char* cls, const char* msg, src_loc l) {
        char desc[320];
        std::snprintf(desc, sizeof desc, "%s: %s", cls, msg);
        rl::ctx().fail_test(desc, rl::test_result_user_assert_failed, info(l));
    }
    // Holds Relacy's scheduler still: a check's probe adds no interleaving.
    struct no_switch {
        rl::preemption_disabler d{rl::ctx()};
    };

    // ----- a time budget, checked at delivery points -----
    struct deadline_state {
        std::chrono::steady_clock::time_point at{};
        bool armed = false;
        bool exhausted = false;
        unsigned tick = 0;
    };
    static deadline_state& deadline() {
        static deadline_state d;
        return d;
    }
    // Once the budget is gone every later point stops at once: Relacy replays a stopped search
    // from the interrupted execution to record its history, and that replay must stop too.
    static void on_point(src_loc loc) {
        deadline_state& d = deadline();
        if (!d.armed) return;
        if (!d.exhausted) {
            if ((++d.tick & 1023u) != 0) return;
            if (std::chrono::steady_clock::now() < d.at) return;
            d.exhausted = true;
        }
        rl::ctx().rl_until("time budget exhausted", info(loc));
    }

    // ----- the kernel's shared words (plain: Relacy explores schedules) -----
    class shared_mask {
    public:
        void init(std::uint64_t v, src_loc) { v_ = v; }
        std::uint64_t load(src_loc) const { return v_; }
        void store(std::uint64_t v, src_loc) { v_ = v; }

    private:
        std::uint64_t v_ = 0;
    };

    // Migrations, all tasks together.
    class budget_word {
    public:
        void init(unsigned v, src_loc) { left_ = v; }
        bool may_take() const { return left_ > 0; }
        void take(src_loc) { --left_; }
        // The count is the shared one here (Relacy runs one thread at a time): a CPU's token
        // has nothing to teach.
        unsigned known() const { return left_; }
        void learn(unsigned) {}

    private:
        unsigned left_ = 0;
    };

    // The scheduler's synchronisation per CPU (the run-queue lock and its barriers): one Relacy
    // atomic per CPU, owned by the runner's suite, that the task leaving a CPU and the task
    // arriving on it both RMW with acq_rel, so a task that runs on a CPU after another sees what
    // the other did there. Only when CPUs can change hands; no scheduling point of its own.
    static rl::atomic<unsigned>*& runqueue(unsigned cpu) {
        static rl::atomic<unsigned>* rq[8] = {};
        return rq[cpu];
    }

    // A CPU as a token held by one task at a time, with the kernel's word for the CPU's own
    // state (kernel::handoff_word) from one holder to the next.
    class cpu_token {
    public:
        void init(unsigned cpu, bool handoff, src_loc) {
            cpu_ = cpu;
            holder_ = -1;
            waiters_ = 0;
            handoff_ = handoff;
            state_ = 0;
        }
        // Relacy's budget_word needs no budget from a take (cpu_taken::no_news).
        using taken = cpu_taken;
        // Relacy knows who waits (contended): a preemption is the holder's choice.
        static constexpr bool preempt_by_window = false;
        taken acquire(unsigned task, src_loc l) {
            if (holder_ >= 0 && holder_ != int(task)) {
                ++waiters_;
                while (holder_ >= 0) rl::ctx().yield(1, info(l));  // the runner of cpu goes first
                --waiters_;
            }
            holder_ = int(task);
            sync(l);  // pairs with the one in release
            taken t;
            t.state = state_;
            return t;
        }
        void release(std::uint32_t state, unsigned /*budget*/, src_loc l) {
            sync(l);  // pairs with the one in acquire
            state_ = state;
            holder_ = -1;
        }
        // Preempted in place: give the CPU to a waiting task, then wait for it again.
        taken yield_to_waiter(unsigned task, std::uint32_t state, unsigned budget, src_loc l) {
            release(state, budget, l);
            taken t = acquire(task, l);
            t.preempted = true;
            return t;
        }
        // Is a task waiting for this CPU (preemption is offered only then)?
        bool contended() const { return waiters_ > 0; }

    private:
        void sync(src_loc l) {
            if (!handoff_) return;
            rl::preemption_disabler no_switch(rl::ctx());
            runqueue(cpu_)->fetch_add(1, rl::mo_acq_rel, info(l));
        }
        unsigned cpu_ = 0;
        int holder_ = -1;
        unsigned waiters_ = 0;
        bool handoff_ = false;
        std::uint32_t state_ = 0;
    };

    // A task's end, waited for by other tasks (the scenario's wait_for): a Relacy semaphore, so
    // the waiter blocks instead of spinning (a spin would multiply an exhaustive search).
    class completion {
    public:
        explicit completion(src_loc l = {}) { s_.init(false, 0, 8, info(l)); }
        ~completion() { s_.deinit(info(src_loc())); }
        completion(const completion&) = delete;
        completion& operator=(const completion&) = delete;
        // A semaphore carries no value: wait returns 0 (only a load-buffering model needs the
        // value, engines/dpor.hpp).
        void post(unsigned waiters, src_loc l, std::uint64_t /*value*/ = 1) {
            unsigned prev = 0;
            s_.post(waiters, prev, info(l));  // release: pairs with wait
        }
        std::uint64_t wait(src_loc l) {  // acquire
            s_.wait(false, false, info(l));
            return 0;
        }

    private:
        rl::semaphore<struct completion_tag> s_;
    };

private:
    static const char* intern(const char* s) {
        using str = rl::string;
        static std::set<str, std::less<str>, rl::raw_allocator<str>> pool;
        return pool.insert(str(s)).first->c_str();
    }
};

}  // namespace eng_relacy
}  // namespace kverify::model
