// SPDX-License-Identifier: GPL-2.0-only
// The Env of objpool's unit tests (objpool_test.cpp, objpool_nesting_test.cpp): real_env with
// allocation accounting and one-shot interrupt injection, and a scope that sets the possible CPUs
// for one test.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "impl/real_env.hpp"

namespace kverify {

// real_env plus allocation accounting and one-shot interrupt injection at the next write or
// read of an entry (the only void* atomics of objpool). Signals sent to the own thread are
// delivered before pthread_kill returns, so the interrupt lands exactly there.
struct test_env : real_env {
    // entry_write / entry_read: the next access to an entry; seq_read: the next read_once of a
    // sequence number (head, tail, last) after `seq_reads_to_skip` others; reserve: the next
    // cas on tail; after_commit: right after the next release store of `last`.
    enum class hook_point { none, entry_write, entry_read, seq_read, reserve, after_commit };

    static inline long live_allocs = 0;   // kmalloc'd and not yet kfree'd
    static inline long total_allocs = 0;  // successful kmallocs
    static inline hook_point armed = hook_point::none;
    static inline void (*hook)() = nullptr;
    static inline int seq_reads_to_skip = 0;

    static void* kmalloc(std::size_t bytes, src_loc loc = {}) noexcept {
        void* p = real_env::kmalloc(bytes, loc);
        if (p != nullptr) ++live_allocs, ++total_allocs;
        return p;
    }
    static void kfree(void* p, src_loc loc = {}) noexcept {
        if (p != nullptr) --live_allocs;
        real_env::kfree(p, loc);
    }
    template <class T>
    static void write_once(atomic<T>& a, T v, src_loc loc = {}) noexcept {
        if constexpr (std::is_pointer<T>::value) fire(hook_point::entry_write);
        real_env::write_once(a, v, loc);
    }
    template <class T>
    static T read_once(const atomic<T>& a, src_loc loc = {}) noexcept {
        if constexpr (std::is_pointer<T>::value) fire(hook_point::entry_read);
        if constexpr (std::is_same<T, std::uint32_t>::value) {
            if (armed == hook_point::seq_read && seq_reads_to_skip-- == 0) fire(armed);
        }
        return real_env::read_once(a, loc);
    }
    template <class T>
    static bool try_cmpxchg_acquire(atomic<T>& a, T& old, T nv, src_loc loc = {}) noexcept {
        fire(hook_point::reserve);  // push's reservation is its only acquire cas
        return real_env::try_cmpxchg_acquire(a, old, nv, loc);
    }
    template <class T>
    static bool try_cmpxchg_local(atomic<T>& a, T& old, T nv, src_loc loc = {}) noexcept {
        fire(hook_point::reserve);  // local-cas: the reservation
        return real_env::try_cmpxchg_local(a, old, nv, loc);
    }
    template <class T>
    static void store_release(atomic<T>& a, T v, src_loc loc = {}) noexcept {
        real_env::store_release(a, v, loc);
        if constexpr (std::is_same<T, std::uint32_t>::value) fire(hook_point::after_commit);
    }
    static void arm(hook_point where, void (*fn)(), int skip_seq_reads = 0) noexcept {
        hook = fn;
        seq_reads_to_skip = skip_seq_reads;
        armed = where;
    }
    static void reset() noexcept {
        live_allocs = total_allocs = 0;
        armed = hook_point::none;
        hook = nullptr;
        seq_reads_to_skip = 0;
    }

private:
    static void fire(hook_point where) noexcept {
        if (armed == where) {
            armed = hook_point::none;  // one shot: the interrupt's own accesses do not re-fire
            hook();
        }
    }
};

// Sets the possible mask for one test and restores the default afterwards.
class machine_scope {
public:
    explicit machine_scope(cpumask possible) { test_env::configure(possible); }
    ~machine_scope() { test_env::configure(cpumask::first_n(4)); }
};

}  // namespace kverify
