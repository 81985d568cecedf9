// SPDX-License-Identifier: GPL-2.0-only
// The litmus interpreter (interp.hpp).
#include "model/litmus/interp.hpp"

#include "model/litmus/primitives.hpp"

namespace kverify::litmus {

void thread_state::reset(const thread& th) {
    regs.resize(th.regs.size());
    data.resize(th.regs.size());
    ctrl.resize(th.regs.size());
    for (unsigned k = 0; k < th.regs.size(); ++k) {
        regs[k] = th.regs[k].init;
        data[k] = dep_set();
        ctrl[k] = dep_set();
    }
    next = 0;
}

namespace {

std::int32_t wrap(std::uint32_t v) { return std::int32_t(v); }

}  // namespace

bool apply_rmw(rmw_op o, const value& old, const value& operand, value& out) {
    if (o == rmw_op::xchg) {
        out = operand;
        return true;
    }
    if (old.is_ptr || operand.is_ptr) return false;
    const std::uint32_t a = std::uint32_t(old.i), b = std::uint32_t(operand.i);
    switch (o) {
        case rmw_op::add:
            out = value::of_int(wrap(a + b));
            break;
        case rmw_op::sub:
            out = value::of_int(wrap(a - b));
            break;
        case rmw_op::bit_and:
            out = value::of_int(wrap(a & b));
            break;
        case rmw_op::bit_or:
            out = value::of_int(wrap(a | b));
            break;
        case rmw_op::bit_xor:
            out = value::of_int(wrap(a ^ b));
            break;
        case rmw_op::andnot:
            out = value::of_int(wrap(a & ~b));
            break;
        case rmw_op::xchg:
            break;
    }
    return true;
}

namespace {

// A value with the reads it came from, and the reads that controlled its computation.
struct tval {
    value v;
    dep_set data;
    dep_set ctrl;
};

class runner {
public:
    runner(const thread& th, backend& b, thread_state& st) : th_(th), b_(b), st_(st) {}

    void body(const std::vector<stmt>& ss, const dep_set& ctx) {
        for (const stmt& s : ss) statement(s, ctx);
    }

private:
    // `used`, when given, collects every read the evaluation touched (an if condition's).
    tval eval(const expr& e, const dep_set& ctx, dep_set* used);
    tval call(const expr& e, const dep_set& ctx, dep_set* used);
    tval binary(const expr& e, const dep_set& ctx, dep_set* used);
    void statement(const stmt& s, const dep_set& ctx);
    // The location an address operand names. `who` is the primitive (or "*p").
    unsigned address(const tval& a, src_pos where, const std::string& who) {
        if (!a.v.is_ptr)
            b_.fail(where,
                    who + " at address " + std::to_string(a.v.i) + ", which is not a location's");
        return a.v.loc;
    }
    op_info op(access kind, unsigned loc, const tval* addr, const dep_set& ctx, src_pos where) {
        if (st_.next >= max_thread_events)
            b_.fail(where, "too many events in P" + std::to_string(th_.id));
        op_info o;
        o.id = st_.next++;
        o.kind = kind;
        o.loc = loc;
        if (addr) o.addr = addr->data;
        o.ctrl = ctx;
        o.where = where;
        return o;
    }
    static tval read_result(value v, event_id id, dep_set* used) {
        tval r{v, {}, {}};
        r.data.insert(id);
        if (used) used->insert(id);
        return r;
    }
    static bool truth(const value& v) { return v.is_ptr || v.i != 0; }

    inline static const std::string deref_name = "*p";
    const thread& th_;
    backend& b_;
    thread_state& st_;
};

tval runner::eval(const expr& e, const dep_set& ctx, dep_set* used) {
    switch (e.kind) {
        case expr_kind::constant:
            return tval{value::of_int(e.i), {}, {}};
        case expr_kind::loc_addr:
            return tval{value::of_loc(e.index), {}, {}};
        case expr_kind::reg: {
            tval r{st_.regs[e.index], st_.data[e.index], st_.ctrl[e.index]};
            if (used) {
                used->merge(r.data);
                used->merge(r.ctrl);
            }
            return r;
        }
        case expr_kind::deref: {
            const tval a = eval(e.kids[0], ctx, used);
            const op_info o = op(access::plain, address(a, e.pos, deref_name), &a, ctx, e.pos);
            return read_result(b_.load(o), o.id, used);
        }
        case expr_kind::unary: {
            tval a = eval(e.kids[0], ctx, used);
            if (e.uop == unop::log_not) {
                a.v = value::of_int(truth(a.v) ? 0 : 1);
                return a;
            }
            if (a.v.is_ptr) b_.fail(e.pos, "arithmetic on a location's address");
            const std::uint32_t x = std::uint32_t(a.v.i);
            a.v = value::of_int(wrap(e.uop == unop::neg ? 0u - x : ~x));
            return a;
        }
        case expr_kind::binary:
            return binary(e, ctx, used);
        case expr_kind::call:
            return call(e, ctx, used);
    }
    return tval{};
}

tval runner::binary(const expr& e, const dep_set& ctx, dep_set* used) {
    tval a = eval(e.kids[0], ctx, used);
    if (e.bop == binop::log_and || e.bop == binop::log_or) {
        const bool left = truth(a.v);
        tval r{value::of_int(left ? 1 : 0), a.data, a.ctrl};
        if (left == (e.bop == binop::log_or)) return r;  // C does not evaluate the right
        dep_set cond = a.data;
        cond.merge(a.ctrl);
        dep_set inner = ctx;
        inner.merge(cond);
        b_.ctrl_begin(cond);
        const tval b = eval(e.kids[1], inner, used);
        b_.ctrl_end();
        r.v = value::of_int(truth(b.v) ? 1 : 0);
        r.data.merge(b.data);
        r.ctrl.merge(b.ctrl);
        r.ctrl.merge(cond);
        return r;
    }
    const tval b = eval(e.kids[1], ctx, used);
    tval r{value::of_int(0), a.data, a.ctrl};
    r.data.merge(b.data);
    r.ctrl.merge(b.ctrl);
    if (e.bop == binop::eq || e.bop == binop::ne) {
        const bool same = a.v == b.v;  // an address is never equal to an int
        r.v = value::of_int(same == (e.bop == binop::eq) ? 1 : 0);
        return r;
    }
    if (a.v.is_ptr || b.v.is_ptr) b_.fail(e.pos, "arithmetic on a location's address");
    const std::uint32_t x = std::uint32_t(a.v.i), y = std::uint32_t(b.v.i);
    const std::int32_t sx = a.v.i, sy = b.v.i;
    switch (e.bop) {
        case binop::mul:
            r.v = value::of_int(wrap(x * y));
            break;
        case binop::add:
            r.v = value::of_int(wrap(x + y));
            break;
        case binop::sub:
            r.v = value::of_int(wrap(x - y));
            break;
        case binop::bit_and:
            r.v = value::of_int(wrap(x & y));
            break;
        case binop::bit_xor:
            r.v = value::of_int(wrap(x ^ y));
            break;
        case binop::bit_or:
            r.v = value::of_int(wrap(x | y));
            break;
        case binop::lt:
            r.v = value::of_int(sx < sy);
            break;
        case binop::le:
            r.v = value::of_int(sx <= sy);
            break;
        case binop::gt:
            r.v = value::of_int(sx > sy);
            break;
        case binop::ge:
            r.v = value::of_int(sx >= sy);
            break;
        default:
            break;
    }
    return r;
}

tval runner::call(const expr& e, const dep_set& ctx, dep_set* used) {
    const primitive& p = primitives()[e.index];
    if (p.cls == prim_class::fence) {
        op_info o = op(p.kind, 0, nullptr, ctx, e.pos);
        b_.fence(o, p.fence);
        return tval{};
    }
    // Arguments in source order; the location's gives the address dependencies.
    tval args[3];
    for (unsigned a = 0; a < e.kids.size(); ++a) args[a] = eval(e.kids[a], ctx, used);
    const tval& loc = args[p.loc_arg];
    op_info o = op(p.kind, address(loc, e.kids[unsigned(p.loc_arg)].pos, p.name), &loc, ctx, e.pos);
    switch (p.cls) {
        case prim_class::load:
            return read_result(b_.load(o), o.id, used);
        case prim_class::store:
            o.data = args[p.value_arg].data;
            b_.store(o, args[p.value_arg].v);
            return tval{};
        case prim_class::rmw: {
            value operand = value::of_int(p.constant_operand);
            if (p.value_arg >= 0) {
                operand = args[p.value_arg].v;
                o.data = args[p.value_arg].data;
            }
            const value old = b_.rmw(o, p.op, operand);
            value result = old;
            if (p.result == prim_result::new_value && !apply_rmw(p.op, old, operand, result))
                b_.fail(e.pos, "arithmetic on a location's address");
            return read_result(result, o.id, used);
        }
        case prim_class::cmpxchg: {
            const tval& expected = args[p.expected_arg];
            const tval& desired = args[p.desired_arg];
            o.data = desired.data;
            return read_result(b_.cmpxchg(o, expected.v, desired.v, expected.data), o.id, used);
        }
        case prim_class::lock:
            b_.lock(o);
            return tval{};
        case prim_class::unlock:
            b_.unlock(o);
            return tval{};
        case prim_class::trylock:
            return read_result(value::of_int(b_.trylock(o) ? 1 : 0), o.id, used);
        case prim_class::is_locked:
            return read_result(value::of_int(b_.is_locked(o) ? 1 : 0), o.id, used);
        case prim_class::fence:
            break;
    }
    return tval{};
}

void runner::statement(const stmt& s, const dep_set& ctx) {
    switch (s.kind) {
        case stmt_kind::decl:
            if (!s.has_value) return;
            [[fallthrough]];
        case stmt_kind::assign: {
            const tval v = eval(s.e, ctx, nullptr);
            st_.regs[s.reg] = v.v;
            st_.data[s.reg] = v.data;
            st_.ctrl[s.reg] = v.ctrl;
            st_.ctrl[s.reg].merge(ctx);
            return;
        }
        case stmt_kind::plain_store: {
            const tval a = eval(s.target, ctx, nullptr);
            const tval v = eval(s.e, ctx, nullptr);
            op_info o = op(access::plain, address(a, s.pos, deref_name), &a, ctx, s.pos);
            o.data = v.data;
            b_.store(o, v.v);
            return;
        }
        case stmt_kind::eval:
            eval(s.e, ctx, nullptr);
            return;
        case stmt_kind::if_: {
            dep_set cond;
            const tval c = eval(s.e, ctx, &cond);
            dep_set inner = ctx;
            inner.merge(cond);
            b_.ctrl_begin(cond);
            body(truth(c.v) ? s.then_body : s.else_body, inner);
            b_.ctrl_end();
            return;
        }
        case stmt_kind::block:
            body(s.then_body, ctx);
            return;
    }
}

}  // namespace

void run_thread(const thread& th, backend& b, thread_state& st) {
    st.reset(th);
    runner(th, b, st).body(th.body, dep_set());
}

}  // namespace kverify::litmus
