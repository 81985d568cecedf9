// SPDX-License-Identifier: GPL-2.0-only
// What the interpreter (interp.hpp) asks of a memory model: loads, stores, RMWs, fences and
// locks of one thread, in program order, each with its kind in the terms of the Linux kernel
// memory model (tools/memory-model: ONCE, ACQUIRE, RELEASE, MB, NORETURN and the fence kinds)
// and with the dependencies herd7 would compute for it. A backend maps them onto an engine:
// dpor_backend.hpp on dpor::rt under RC11 or SC (which ignore dependencies); an LKMM backend
// will use them.
#pragma once

#include <bitset>
#include <cstdint>
#include <string>
#include <vector>

#include "model/litmus/ast.hpp"

namespace kverify::litmus {

// The access kinds of linux-kernel.def (`plain` is a C access without a marking).
enum class access : std::uint8_t { once, acquire, release, mb, noreturn, plain };
enum class fence_kind : std::uint8_t {
    mb,                 // smp_mb
    rmb,                // smp_rmb
    wmb,                // smp_wmb
    before_atomic,      // smp_mb__before_atomic
    after_atomic,       // smp_mb__after_atomic
    after_spinlock,     // smp_mb__after_spinlock
    after_unlock_lock,  // smp_mb__after_unlock_lock
    barrier,            // barrier: the compiler's only
};
enum class rmw_op : std::uint8_t { xchg, add, sub, bit_and, bit_or, bit_xor, andnot };

const char* to_string(access a);
const char* to_string(fence_kind f);
const char* to_string(rmw_op o);

// Events of one thread are numbered in program order from 0: every backend call below takes
// the next number, whether it reads, writes or fences.
using event_id = unsigned;
inline constexpr unsigned max_thread_events = 256;

// A set of this thread's events (the reads a value came from).
class dep_set {
public:
    void insert(event_id e) { bits_.set(e); }
    void merge(const dep_set& o) { bits_ |= o.bits_; }
    bool contains(event_id e) const { return e < max_thread_events && bits_.test(e); }
    bool empty() const { return bits_.none(); }
    std::vector<event_id> ids() const;
    std::string to_string() const;  // "{0,3}"
    friend bool operator==(const dep_set& a, const dep_set& b) { return a.bits_ == b.bits_; }

private:
    std::bitset<max_thread_events> bits_;
};

// One call as the interpreter issues it.
struct op_info {
    event_id id = 0;
    access kind = access::once;
    unsigned loc = 0;  // the location accessed (not for fences)
    dep_set addr;      // reads the location's address was computed from
    dep_set data;      // reads the value written was computed from (stores, RMWs)
    dep_set ctrl;      // reads the enclosing if conditions depend on (see ctrl_begin)
    src_pos where;
};

class backend {
public:
    virtual ~backend() = default;
    virtual value load(const op_info& op) = 0;
    virtual void store(const op_info& op, value v) = 0;
    // xchg and the atomic_* RMWs: returns the value read; `operand` is what xchg writes or
    // what the operation combines with the value read.
    virtual value rmw(const op_info& op, rmw_op o, value operand) = 0;
    // cmpxchg: returns the value read; writes `desired` when it equals `expected`.
    // `expected_deps` are the reads the expected value came from: herd7 makes them no addr,
    // data or ctrl dependency; they are passed for a model that wants them.
    virtual value cmpxchg(const op_info& op, value expected, value desired,
                          const dep_set& expected_deps) = 0;
    virtual void fence(const op_info& op, fence_kind f) = 0;
    virtual void lock(const op_info& op) = 0;
    virtual void unlock(const op_info& op) = 0;
    virtual bool trylock(const op_info& op) = 0;
    virtual bool is_locked(const op_info& op) = 0;
    // The then- or else-clause of an if whose condition depends on `cond` starts / ends. Every
    // event in between is control dependent on those reads (op_info::ctrl says the same).
    virtual void ctrl_begin(const dep_set& cond) = 0;
    virtual void ctrl_end() = 0;
    // The test did something the model cannot run (a dereference of an int...). Never returns.
    [[noreturn]] virtual void fail(src_pos where, const std::string& message) = 0;
};

}  // namespace kverify::litmus
