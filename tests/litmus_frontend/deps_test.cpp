// SPDX-License-Identifier: GPL-2.0-only
// The dependencies the interpreter hands a backend, as herd7 computes them: address through a
// pointer register, data through arithmetic, control on the clauses of an if and not after it
// (and on through a register assigned in a clause), each next to the case that has none. The
// thread runs once, outside any engine, on a backend that records the calls and answers loads
// from a table. Each expectation here was also checked against herd7's own addr, data and ctrl
// relations (a local herd7 build, with a cat file flagging them; not part of the project).
#include <gtest/gtest.h>

#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/litmus/interp.hpp"
#include "model/litmus/parser.hpp"
#include "model/litmus/primitives.hpp"

namespace kverify::litmus {
namespace {

struct call {
    std::string what;  // load, store, rmw, cmpxchg, fence, lock, ..., ctrl_begin, ctrl_end
    op_info op;
    dep_set extra;  // ctrl_begin: the condition; cmpxchg: the expected value's reads
};

class recorder final : public backend {
public:
    explicit recorder(const test& t) : t_(t) {}
    std::map<std::string, value> memory;  // by location name; absent: 0
    std::vector<call> calls;

    value load(const op_info& o) override { return record("load", o), get(o.loc); }
    void store(const op_info& o, value v) override {
        record("store", o);
        memory[t_.locations[o.loc].name] = v;
    }
    value rmw(const op_info& o, rmw_op op, value operand) override {
        record(std::string("rmw ") + to_string(op), o);
        const value old = get(o.loc);
        value next;
        if (!apply_rmw(op, old, operand, next)) throw std::runtime_error("bad rmw");
        memory[t_.locations[o.loc].name] = next;
        return old;
    }
    value cmpxchg(const op_info& o, value expected, value desired, const dep_set& e) override {
        record("cmpxchg", o, e);
        const value old = get(o.loc);
        if (old == expected) memory[t_.locations[o.loc].name] = desired;
        return old;
    }
    void fence(const op_info& o, fence_kind f) override {
        record(std::string("fence ") + to_string(f), o);
    }
    void lock(const op_info& o) override { record("lock", o); }
    void unlock(const op_info& o) override { record("unlock", o); }
    bool trylock(const op_info& o) override { return record("trylock", o), true; }
    bool is_locked(const op_info& o) override { return record("is_locked", o), false; }
    void ctrl_begin(const dep_set& cond) override { record("ctrl_begin", op_info{}, cond); }
    void ctrl_end() override { record("ctrl_end", op_info{}); }
    [[noreturn]] void fail(src_pos, const std::string& m) override { throw std::runtime_error(m); }

    // The n-th call that is not a ctrl bracket.
    const call& event(unsigned n) const {
        for (const call& c : calls)
            if (c.what != "ctrl_begin" && c.what != "ctrl_end" && n-- == 0) return c;
        throw std::out_of_range("no such event");
    }
    std::string trace() const {
        std::string s;
        for (const call& c : calls) s += c.what + " ";
        return s;
    }

private:
    void record(const std::string& w, const op_info& o, const dep_set& e = {}) {
        calls.push_back(call{w, o, e});
    }
    value get(unsigned loc) const {
        const auto it = memory.find(t_.locations[loc].name);
        return it == memory.end() ? value::of_int(0) : it->second;
    }
    const test& t_;
};

struct thread_run {
    test t;
    recorder rec;
    thread_state st;
    explicit thread_run(const std::string& body, const std::string& init = "")
        : t(parse_test("deps", "C deps\n{ " + init +
                                   " }\nP0(int *x, int *y, int *z, int **p)\n{\n" + body +
                                   "\n}\nexists (x=0)\n")),
          rec(t) {}
    void run() { run_thread(t.threads[0], rec, st); }
    unsigned loc(const std::string& n) const {
        for (unsigned k = 0; k < t.locations.size(); ++k)
            if (t.locations[k].name == n) return k;
        throw std::out_of_range(n);
    }
};

dep_set deps(std::initializer_list<event_id> ids) {
    dep_set d;
    for (event_id e : ids) d.insert(e);
    return d;
}

TEST(LitmusDeps, AnAddressThroughAPointerRegisterIsAnAddressDependency) {
    thread_run r("int *r0; int r1; r0 = READ_ONCE(*p); r1 = READ_ONCE(*r0);");
    r.rec.memory["p"] = value::of_loc(r.loc("y"));
    r.run();
    ASSERT_EQ(r.rec.calls.size(), 2u) << r.rec.trace();
    EXPECT_EQ(r.rec.event(0).op.addr, deps({}));   // p itself is the parameter: no read
    EXPECT_EQ(r.rec.event(1).op.loc, r.loc("y"));  // the address read from p
    EXPECT_EQ(r.rec.event(1).op.addr, deps({0}));
    EXPECT_EQ(r.rec.event(1).op.data, deps({}));
}

TEST(LitmusDeps, AParameterOrAConstantPointerGivesNoAddressDependency) {
    thread_run r("int r0; int *r1; r0 = READ_ONCE(*x); r1 = y; r0 = READ_ONCE(*r1);");
    r.run();
    EXPECT_EQ(r.rec.event(1).op.addr, deps({}));
}

TEST(LitmusDeps, AStoredValueComputedFromAReadIsADataDependency) {
    thread_run r("int r0; int r1; r0 = READ_ONCE(*x); r1 = (r0 * 2 + 1) ^ 3; WRITE_ONCE(*y, r1);");
    r.run();
    const call& st = r.rec.event(1);
    EXPECT_EQ(st.what, "store");
    EXPECT_EQ(st.op.data, deps({0}));
    EXPECT_EQ(st.op.addr, deps({}));
    EXPECT_EQ(st.op.ctrl, deps({}));
}

TEST(LitmusDeps, AConstantOrAnOverwrittenRegisterCarriesNoDependency) {
    thread_run r("int r0; r0 = READ_ONCE(*x); r0 = 5; WRITE_ONCE(*y, r0); WRITE_ONCE(*z, 1);");
    r.run();
    EXPECT_EQ(r.rec.event(1).op.data, deps({}));
    EXPECT_EQ(r.rec.event(2).op.data, deps({}));
}

TEST(LitmusDeps, AReadsValueCarriesThatReadOnlyNotItsAddress) {
    // herd7's data dependency stops at a memory read: r1 depends on the second read, not on
    // the first one its address came from.
    thread_run r("int *r0; int r1; r0 = READ_ONCE(*p); r1 = READ_ONCE(*r0); WRITE_ONCE(*z, r1);");
    r.rec.memory["p"] = value::of_loc(r.loc("y"));
    r.run();
    EXPECT_EQ(r.rec.event(2).op.data, deps({1}));
}

TEST(LitmusDeps, AnIfConditionControlsItsClausesAndNotWhatFollows) {
    thread_run r(
        "int r0; r0 = READ_ONCE(*x); if (r0 == 1) { WRITE_ONCE(*y, 1); smp_wmb(); } "
        "WRITE_ONCE(*z, 1);");
    r.rec.memory["x"] = value::of_int(1);
    r.run();
    EXPECT_EQ(r.rec.trace(), "load ctrl_begin store fence wmb ctrl_end store ");
    EXPECT_EQ(r.rec.calls[1].extra, deps({0}));    // the condition's reads
    EXPECT_EQ(r.rec.event(1).op.ctrl, deps({0}));  // WRITE_ONCE(*y) in the then-clause
    EXPECT_EQ(r.rec.event(2).op.ctrl, deps({0}));  // so is the fence
    EXPECT_EQ(r.rec.event(3).op.ctrl, deps({}));   // WRITE_ONCE(*z) after the if
    EXPECT_EQ(r.rec.event(1).op.data, deps({}));   // a constant: no data dependency
}

TEST(LitmusDeps, TheElseClauseIsControlledToo) {
    thread_run r("int r0; r0 = READ_ONCE(*x); if (r0) WRITE_ONCE(*y, 1); else WRITE_ONCE(*z, 1);");
    r.run();  // x is 0: the else-clause runs
    EXPECT_EQ(r.rec.event(1).op.loc, r.loc("z"));
    EXPECT_EQ(r.rec.event(1).op.ctrl, deps({0}));
}

TEST(LitmusDeps, NestedIfsControlByBothConditions) {
    thread_run r(
        "int r0; int r1; r0 = READ_ONCE(*x); r1 = READ_ONCE(*y); "
        "if (r0 == 0) { if (r1 == 0) WRITE_ONCE(*z, 1); WRITE_ONCE(*x, 2); }");
    r.run();
    EXPECT_EQ(r.rec.event(2).op.ctrl, deps({0, 1}));
    EXPECT_EQ(r.rec.event(3).op.ctrl, deps({0}));
}

TEST(LitmusDeps, ARegisterAssignedInAClauseCarriesTheControlToALaterIf) {
    // herd7 gives the register write in the clause a control edge, and the later condition
    // reads that register: the store under the second if is control dependent on x's read.
    // The value stored after the first if has no dependency at all.
    thread_run r(
        "int r0; int r1; r0 = READ_ONCE(*x); if (r0 == 0) r1 = 1; WRITE_ONCE(*z, r1); "
        "if (r1) WRITE_ONCE(*y, 1);");
    r.run();
    EXPECT_EQ(r.rec.event(1).op.data, deps({}));
    EXPECT_EQ(r.rec.event(1).op.ctrl, deps({}));
    EXPECT_EQ(r.rec.event(2).op.ctrl, deps({0}));
}

TEST(LitmusDeps, AConditionControlsByTheAddressOfAReadInIt) {
    // if (READ_ONCE(*r0)): the condition evaluates r0, so the first read controls the clause.
    thread_run r("int *r0; r0 = READ_ONCE(*p); if (READ_ONCE(*r0)) WRITE_ONCE(*z, 1);");
    r.rec.memory["p"] = value::of_loc(r.loc("y"));
    r.rec.memory["y"] = value::of_int(1);
    r.run();
    EXPECT_EQ(r.rec.event(2).op.ctrl, deps({0, 1}));
}

TEST(LitmusDeps, AConditionOnAReadsValueDoesNotControlByThatReadsAddress) {
    // The twin of the test above: through a register the address's read is not in the
    // condition, as in herd7 (where the read's own value carries only that read).
    thread_run r(
        "int *r0; int r1; r0 = READ_ONCE(*p); r1 = READ_ONCE(*r0); if (r1) WRITE_ONCE(*z, 1);");
    r.rec.memory["p"] = value::of_loc(r.loc("y"));
    r.rec.memory["y"] = value::of_int(1);
    r.run();
    EXPECT_EQ(r.rec.event(2).op.ctrl, deps({1}));
}

TEST(LitmusDeps, ControlCarriedByARegisterSurvivesArithmetic) {
    thread_run r(
        "int r0; int r1; r0 = READ_ONCE(*x); if (r0 == 0) r1 = 1; r1 = r1 + 1; "
        "if (r1 == 2) WRITE_ONCE(*y, 1);");
    r.run();
    EXPECT_EQ(r.rec.event(1).op.ctrl, deps({0}));
}

TEST(LitmusDeps, RmwsTakeDataFromTheirOperandAndTheirKindFromTheName) {
    thread_run r(
        "int r0; int r1; int r2; r0 = READ_ONCE(*x); r1 = xchg(y, r0 + 1); "
        "r2 = cmpxchg_acquire(z, r0, r1); atomic_inc(x); r2 = atomic_fetch_add_release(r1, y); "
        "r2 = xchg_relaxed(y, 3);");
    r.run();
    EXPECT_EQ(r.rec.event(1).what, "rmw xchg");
    EXPECT_EQ(r.rec.event(1).op.kind, access::mb);
    EXPECT_EQ(r.rec.event(1).op.data, deps({0}));
    EXPECT_EQ(r.rec.event(2).what, "cmpxchg");
    EXPECT_EQ(r.rec.event(2).op.kind, access::acquire);
    EXPECT_EQ(r.rec.event(2).op.data, deps({1}));  // desired: r1, from the xchg
    EXPECT_EQ(r.rec.event(2).extra, deps({0}));    // expected: r0
    EXPECT_EQ(r.rec.event(3).what, "rmw add");
    EXPECT_EQ(r.rec.event(3).op.kind, access::noreturn);
    EXPECT_EQ(r.rec.event(3).op.data, deps({}));  // atomic_inc: the constant 1
    EXPECT_EQ(r.rec.event(4).op.kind, access::release);
    EXPECT_EQ(r.rec.event(4).op.data, deps({1}));
    EXPECT_EQ(r.rec.event(5).op.kind, access::once);
    EXPECT_EQ(r.st.regs[2], value::of_int(1));  // xchg_relaxed read y: 1 from the xchg
}

TEST(LitmusDeps, LoadsStoresAndFencesHaveTheirLkmmKinds) {
    thread_run r(
        "int r0; r0 = smp_load_acquire(x); smp_store_release(y, r0); r0 = READ_ONCE(*z); "
        "smp_mb(); smp_rmb(); barrier(); smp_mb__before_atomic(); spin_lock(p); spin_unlock(p);");
    r.run();
    EXPECT_EQ(r.rec.event(0).op.kind, access::acquire);
    EXPECT_EQ(r.rec.event(1).op.kind, access::release);
    EXPECT_EQ(r.rec.event(1).op.data, deps({0}));
    EXPECT_EQ(r.rec.event(2).op.kind, access::once);
    EXPECT_EQ(r.rec.trace(),
              "load store load fence mb fence rmb fence barrier fence before-atomic lock unlock ");
    for (unsigned k = 0; k < 9; ++k) EXPECT_EQ(r.rec.event(k).op.id, k);  // po numbering
}

TEST(LitmusDeps, TheRightOfAndAndOrRunsOnlyWhenCWouldUnderControlOfTheLeft) {
    thread_run r("int r0; int r1; r0 = READ_ONCE(*x); r1 = r0 && READ_ONCE(*y);");
    r.run();  // x is 0: y is not read
    EXPECT_EQ(r.rec.trace(), "load ");
    thread_run s("int r0; int r1; r0 = READ_ONCE(*x); r1 = r0 && READ_ONCE(*y);");
    s.rec.memory["x"] = value::of_int(1);
    s.run();
    EXPECT_EQ(s.rec.trace(), "load ctrl_begin load ctrl_end ");
    EXPECT_EQ(s.rec.event(1).op.ctrl, deps({0}));
}

TEST(LitmusDeps, RegistersEndWithTheValuesComputed) {
    thread_run r("int r0; int r1; r0 = READ_ONCE(*x); r1 = (r0 - 3) * 2; r0 = -r1 | 1;", "x=1;");
    r.rec.memory["x"] = value::of_int(1);
    r.run();
    EXPECT_EQ(r.st.regs[1], value::of_int(-4));
    EXPECT_EQ(r.st.regs[0], value::of_int(5));
}

}  // namespace
}  // namespace kverify::litmus
