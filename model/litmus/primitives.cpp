// SPDX-License-Identifier: GPL-2.0-only
// The table of kernel primitives (primitives.hpp).
#include "model/litmus/primitives.hpp"

#include <map>

namespace kverify::litmus {

namespace {

// The ordering variants of a value-returning RMW: plain name fully ordered, then the suffixes.
struct variant {
    const char* suffix;
    access kind;
};
const variant ordered_variants[] = {{"", access::mb},
                                    {"_relaxed", access::once},
                                    {"_acquire", access::acquire},
                                    {"_release", access::release}};

std::vector<primitive> build() {
    std::vector<primitive> t;
    auto add = [&](primitive p) { t.push_back(std::move(p)); };
    auto load = [&](const char* name, access k, bool lvalue) {
        primitive p;
        p.name = name;
        p.cls = prim_class::load;
        p.kind = k;
        p.arity = 1;
        p.loc_arg = 0;
        p.loc_is_lvalue = lvalue;
        p.result = prim_result::value;
        add(p);
    };
    auto store = [&](const char* name, access k, bool lvalue) {
        primitive p;
        p.name = name;
        p.cls = prim_class::store;
        p.kind = k;
        p.arity = 2;
        p.loc_arg = 0;
        p.loc_is_lvalue = lvalue;
        p.value_arg = 1;
        add(p);
    };
    load("READ_ONCE", access::once, true);
    store("WRITE_ONCE", access::once, true);
    load("smp_load_acquire", access::acquire, false);
    store("smp_store_release", access::release, false);
    load("atomic_read", access::once, false);
    store("atomic_set", access::once, false);
    load("atomic_read_acquire", access::acquire, false);
    store("atomic_set_release", access::release, false);

    const std::pair<const char*, fence_kind> fences[] = {
        {"smp_mb", fence_kind::mb},
        {"smp_rmb", fence_kind::rmb},
        {"smp_wmb", fence_kind::wmb},
        {"smp_mb__before_atomic", fence_kind::before_atomic},
        {"smp_mb__after_atomic", fence_kind::after_atomic},
        {"smp_mb__after_spinlock", fence_kind::after_spinlock},
        {"smp_mb__after_unlock_lock", fence_kind::after_unlock_lock},
        {"barrier", fence_kind::barrier}};
    for (const auto& [name, f] : fences) {
        primitive p;
        p.name = name;
        p.cls = prim_class::fence;
        p.kind = access::mb;
        p.fence = f;
        add(p);
    }

    // xchg(p, v), atomic_xchg(p, v); cmpxchg(p, old, new), atomic_cmpxchg(p, old, new).
    for (const char* base : {"xchg", "atomic_xchg"}) {
        for (const variant& v : ordered_variants) {
            primitive p;
            p.name = std::string(base) + v.suffix;
            p.cls = prim_class::rmw;
            p.kind = v.kind;
            p.op = rmw_op::xchg;
            p.arity = 2;
            p.loc_arg = 0;
            p.value_arg = 1;
            p.result = prim_result::old_value;
            add(p);
        }
    }
    for (const char* base : {"cmpxchg", "atomic_cmpxchg"}) {
        for (const variant& v : ordered_variants) {
            primitive p;
            p.name = std::string(base) + v.suffix;
            p.cls = prim_class::cmpxchg;
            p.kind = v.kind;
            p.arity = 3;
            p.loc_arg = 0;
            p.expected_arg = 1;
            p.desired_arg = 2;
            p.result = prim_result::old_value;
            add(p);
        }
    }

    // atomic_OP(v, p) (no return, no ordering), atomic_OP_return(v, p) (the new value) and
    // atomic_fetch_OP(v, p) (the old value); inc and dec take only p.
    struct op_name {
        const char* name;
        rmw_op op;
        std::int32_t constant;  // inc / dec: the operand; 0: an argument
        bool has_return;        // atomic_OP_return exists
    };
    const op_name ops[] = {
        {"add", rmw_op::add, 0, true},      {"sub", rmw_op::sub, 0, true},
        {"inc", rmw_op::add, 1, true},      {"dec", rmw_op::sub, 1, true},
        {"and", rmw_op::bit_and, 0, false}, {"or", rmw_op::bit_or, 0, false},
        {"xor", rmw_op::bit_xor, 0, false}, {"andnot", rmw_op::andnot, 0, false}};
    for (const op_name& o : ops) {
        auto make = [&](const std::string& name, access k, prim_result r) {
            primitive p;
            p.name = name;
            p.cls = prim_class::rmw;
            p.kind = k;
            p.op = o.op;
            p.result = r;
            if (o.constant != 0) {
                p.arity = 1;
                p.loc_arg = 0;
                p.constant_operand = o.constant;
            } else {
                p.arity = 2;
                p.value_arg = 0;
                p.loc_arg = 1;
            }
            add(p);
        };
        make(std::string("atomic_") + o.name, access::noreturn, prim_result::none);
        for (const variant& v : ordered_variants) {
            if (o.has_return)
                make(std::string("atomic_") + o.name + "_return" + v.suffix, v.kind,
                     prim_result::new_value);
            make(std::string("atomic_fetch_") + o.name + v.suffix, v.kind, prim_result::old_value);
        }
    }

    const std::pair<const char*, prim_class> locks[] = {{"spin_lock", prim_class::lock},
                                                        {"spin_unlock", prim_class::unlock},
                                                        {"spin_trylock", prim_class::trylock},
                                                        {"spin_is_locked", prim_class::is_locked}};
    for (const auto& [name, c] : locks) {
        primitive p;
        p.name = name;
        p.cls = c;
        p.arity = 1;
        p.loc_arg = 0;
        p.result = c == prim_class::trylock || c == prim_class::is_locked ? prim_result::value
                                                                          : prim_result::none;
        add(p);
    }
    return t;
}

}  // namespace

const std::vector<primitive>& primitives() {
    static const std::vector<primitive> table = build();
    return table;
}

int find_primitive(const std::string& name) {
    static const std::map<std::string, int> index = [] {
        std::map<std::string, int> m;
        const std::vector<primitive>& t = primitives();
        for (unsigned k = 0; k < t.size(); ++k) m[t[k].name] = int(k);
        return m;
    }();
    const auto it = index.find(name);
    return it == index.end() ? -1 : it->second;
}

}  // namespace kverify::litmus
