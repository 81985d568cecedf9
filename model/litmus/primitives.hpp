// SPDX-License-Identifier: GPL-2.0-only
// The kernel primitives a litmus test may call, each as the LKMM operation it stands for
// (the role linux-kernel.def plays for herd7): its kind, its access kind, which argument is the
// location, which the value, and what it returns.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/litmus/backend.hpp"

namespace kverify::litmus {

enum class prim_class : std::uint8_t {
    load,
    store,
    rmw,
    cmpxchg,
    fence,
    lock,
    unlock,
    trylock,
    is_locked
};

// What an RMW returns: the value read (xchg, atomic_fetch_*), the value written
// (atomic_*_return) or nothing (atomic_add...).
enum class prim_result : std::uint8_t { none, old_value, new_value, value };

struct primitive {
    std::string name;
    prim_class cls = prim_class::load;
    access kind = access::once;
    fence_kind fence = fence_kind::mb;
    rmw_op op = rmw_op::xchg;
    unsigned arity = 0;
    int loc_arg = -1;            // the location's argument
    bool loc_is_lvalue = false;  // written `*p` (READ_ONCE, WRITE_ONCE) rather than `p`
    int value_arg = -1;          // the value stored / the operand (-1 with a constant operand)
    std::int32_t constant_operand = 0;  // atomic_inc: 1
    int expected_arg = -1;              // cmpxchg
    int desired_arg = -1;               // cmpxchg
    prim_result result = prim_result::none;
};

const std::vector<primitive>& primitives();
// The index of `name` in primitives(), or -1.
int find_primitive(const std::string& name);

}  // namespace kverify::litmus
