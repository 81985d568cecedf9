// SPDX-License-Identifier: GPL-2.0-only
// The litmus backend on dpor::rt (dpor_backend.hpp).
//
// Values in memory: every location is an 8-byte engine word; an int is stored sign-extended, a
// location's address as the engine address of that location's word (none of which falls in
// the int range: checked), so a word read back is an int or a pointer without ambiguity.
//
// The bitwise atomics (and, or, xor, andnot) have no engine RMW: each is a cas whose expected
// value is a guess, a branch point over every value the test's words can hold, and whose
// failure cuts the execution (a blocked one). Exactly one guess succeeds for each value the
// RMW can read, so the complete executions are those of a real RMW. A value read that was not
// among the guesses is recorded, and the search runs again with it, until none is missing.
#include "model/litmus/dpor_backend.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>

#include "model/litmus/backend.hpp"
#include "model/litmus/interp.hpp"
#include "model/litmus/primitives.hpp"

namespace kverify::litmus {

using dpor::mo;
using dpor::value_t;

namespace {

// ---- the primitive mapping: one row per operation and LKMM kind ----
enum class rt_op : std::uint8_t {
    load,
    store,
    rmw,         // one RMW of `order`
    rmw_fenced,  // seq_cst fence, seq_cst RMW, seq_cst fence (fully ordered, always succeeds)
    cas,         // cas with success `order`, failure relaxed
    cas_full,    // rt::cas_fully_ordered: the fences only when it succeeds
    fence,
    nothing,
    unsupported,
};

struct mapping_row {
    prim_class cls;
    access kind;
    fence_kind fence;  // cls == fence
    rt_op op;
    mo order;
};

// READ_ONCE/WRITE_ONCE relaxed; acquire and release as such; xchg, cmpxchg and the
// value-returning atomics fully ordered as the kernel's try_cmpxchg (model/kernel/model_env.hpp);
// the _relaxed RMWs and the void atomic_OP relaxed; smp_mb and the smp_mb__* fences seq_cst,
// smp_rmb acquire, smp_wmb release (stronger than the kernel's: model/ASSUMPTIONS.md), barrier
// nothing; spin_lock an acquiring cas that blocks when it fails, spin_unlock a release store.
const mapping_row mapping[] = {
    {prim_class::load, access::once, fence_kind::mb, rt_op::load, mo::relaxed},
    {prim_class::load, access::acquire, fence_kind::mb, rt_op::load, mo::acquire},
    {prim_class::load, access::plain, fence_kind::mb, rt_op::load, mo::plain},
    {prim_class::store, access::once, fence_kind::mb, rt_op::store, mo::relaxed},
    {prim_class::store, access::release, fence_kind::mb, rt_op::store, mo::release},
    {prim_class::store, access::plain, fence_kind::mb, rt_op::store, mo::plain},
    {prim_class::rmw, access::once, fence_kind::mb, rt_op::rmw, mo::relaxed},
    {prim_class::rmw, access::noreturn, fence_kind::mb, rt_op::rmw, mo::relaxed},
    {prim_class::rmw, access::acquire, fence_kind::mb, rt_op::rmw, mo::acquire},
    {prim_class::rmw, access::release, fence_kind::mb, rt_op::rmw, mo::release},
    {prim_class::rmw, access::mb, fence_kind::mb, rt_op::rmw_fenced, mo::seq_cst},
    {prim_class::cmpxchg, access::once, fence_kind::mb, rt_op::cas, mo::relaxed},
    {prim_class::cmpxchg, access::acquire, fence_kind::mb, rt_op::cas, mo::acquire},
    {prim_class::cmpxchg, access::release, fence_kind::mb, rt_op::cas, mo::release},
    {prim_class::cmpxchg, access::mb, fence_kind::mb, rt_op::cas_full, mo::seq_cst},
    {prim_class::fence, access::mb, fence_kind::mb, rt_op::fence, mo::seq_cst},
    {prim_class::fence, access::mb, fence_kind::rmb, rt_op::fence, mo::acquire},
    {prim_class::fence, access::mb, fence_kind::wmb, rt_op::fence, mo::release},
    {prim_class::fence, access::mb, fence_kind::before_atomic, rt_op::fence, mo::seq_cst},
    {prim_class::fence, access::mb, fence_kind::after_atomic, rt_op::fence, mo::seq_cst},
    {prim_class::fence, access::mb, fence_kind::after_spinlock, rt_op::fence, mo::seq_cst},
    {prim_class::fence, access::mb, fence_kind::after_unlock_lock, rt_op::fence, mo::seq_cst},
    {prim_class::fence, access::mb, fence_kind::barrier, rt_op::nothing, mo::relaxed},
    {prim_class::lock, access::once, fence_kind::mb, rt_op::cas, mo::acquire},
    {prim_class::unlock, access::once, fence_kind::mb, rt_op::store, mo::release},
    {prim_class::trylock, access::once, fence_kind::mb, rt_op::cas, mo::acquire},
    {prim_class::is_locked, access::once, fence_kind::mb, rt_op::load, mo::relaxed},
};

const mapping_row& row(prim_class c, access k, fence_kind f = fence_kind::mb) {
    for (const mapping_row& r : mapping)
        if (r.cls == c && (c == prim_class::fence ? r.fence == f : r.kind == k)) return r;
    throw std::logic_error("litmus: no mapping row for this operation");
}

// Words of the test's locations, and the translation of values to words and back.
class memory {
public:
    explicit memory(std::size_t n) : words_(n) {
        const std::uint64_t lo = std::uint64_t(INT32_MAX) + 1;
        const std::uint64_t hi = std::uint64_t(0) - lo;
        for (std::size_t k = 0; k < n; ++k)
            if (addr(unsigned(k)) < lo || addr(unsigned(k)) >= hi)
                throw std::runtime_error("litmus: a location's address lies in the int range");
    }
    void* at(unsigned loc) { return &words_[loc]; }
    std::uint64_t addr(unsigned loc) const {
        return std::uint64_t(reinterpret_cast<std::uintptr_t>(&words_[loc]));
    }
    value_t word(const value& v) const {
        return v.is_ptr ? addr(v.loc) : value_t(std::int64_t(v.i));
    }
    bool decode(value_t w, value& out) const {
        if (std::int64_t(w) == std::int64_t(std::int32_t(w))) {
            out = value::of_int(std::int32_t(w));
            return true;
        }
        if (words_.empty() || w < addr(0) || w > addr(unsigned(words_.size() - 1))) return false;
        if ((w - addr(0)) % sizeof(std::uint64_t) != 0) return false;
        out = value::of_loc(unsigned((w - addr(0)) / sizeof(std::uint64_t)));
        return true;
    }

private:
    std::vector<std::uint64_t> words_;  // addresses only: the engine keeps the values
};

// What all threads share during one search: the memory, the guesses of the bitwise RMWs, and
// what went wrong first.
struct shared {
    const test& t;
    memory mem;
    std::vector<value_t> guesses;  // sorted
    std::set<value_t> missing;     // values a bitwise RMW read that were not guessed
    std::optional<litmus_error> error;
};

// Under the LKMM the engine reads every event's kernel primitive and its dependencies instead
// of the C11 orders: each call is annotated (rt::annotate_next), the then- and else-clauses of an
// if become control scopes (rt::ctrl_begin/end), and the interpreter's event ids of reads are
// translated into the engine's (rt::last_event).
dpor::lk lk_of(access a) {
    switch (a) {
        case access::once:
            return dpor::lk::once;
        case access::acquire:
            return dpor::lk::acquire;
        case access::release:
            return dpor::lk::release;
        case access::mb:
            return dpor::lk::mb;
        case access::noreturn:
            return dpor::lk::noreturn;
        case access::plain:
            break;
    }
    return dpor::lk::automatic;
}

dpor::lk lk_of(fence_kind f) {
    switch (f) {
        case fence_kind::mb:
            return dpor::lk::f_mb;
        case fence_kind::rmb:
            return dpor::lk::f_rmb;
        case fence_kind::wmb:
            return dpor::lk::f_wmb;
        case fence_kind::before_atomic:
            return dpor::lk::f_before_atomic;
        case fence_kind::after_atomic:
            return dpor::lk::f_after_atomic;
        case fence_kind::after_spinlock:
            return dpor::lk::f_after_spinlock;
        case fence_kind::after_unlock_lock:
            return dpor::lk::f_after_unlock_lock;
        case fence_kind::barrier:
            return dpor::lk::f_barrier;
    }
    return dpor::lk::automatic;
}

class rt_backend final : public backend {
public:
    rt_backend(shared& sh, bool lkmm) : sh_(sh), lkmm_(lkmm) {}

    value load(const op_info& o) override {
        const mapping_row& r = row(prim_class::load, o.kind);
        check(r, o);
        annotate(lk_of(o.kind), o, false);
        const value v = decode(dpor::rt::load(sh_.mem.at(o.loc), r.order, where(o)), o);
        read_made(o);
        return v;
    }
    void store(const op_info& o, value v) override {
        const mapping_row& r = row(prim_class::store, o.kind);
        check(r, o);
        annotate(lk_of(o.kind), o, true);
        dpor::rt::store(sh_.mem.at(o.loc), sh_.mem.word(v), r.order, where(o));
    }
    value rmw(const op_info& o, rmw_op op, value operand) override {
        const mapping_row& r = row(prim_class::rmw, o.kind);
        // Under the LKMM a fully ordered RMW is one MB-tagged event pair (lkmmv2), no fences.
        const bool fenced = r.op == rt_op::rmw_fenced && !lkmm_;
        if (fenced) dpor::rt::fence(mo::seq_cst, where(o));
        const value old = rmw_once(o, op, operand, r.order);
        if (fenced) dpor::rt::fence(mo::seq_cst, where(o));
        return old;
    }
    value cmpxchg(const op_info& o, value expected, value desired, const dep_set&) override {
        const mapping_row& r = row(prim_class::cmpxchg, o.kind);
        value_t e = sh_.mem.word(expected);
        annotate(lk_of(o.kind), o, true);
        if (r.op == rt_op::cas_full)
            dpor::rt::cas_fully_ordered(sh_.mem.at(o.loc), e, sh_.mem.word(desired), where(o));
        else
            dpor::rt::cas(sh_.mem.at(o.loc), e, sh_.mem.word(desired), r.order, mo::relaxed,
                          where(o));
        read_made(o);
        return decode(e, o);  // the value read, on success as on failure
    }
    void fence(const op_info& o, fence_kind f) override {
        const mapping_row& r = row(prim_class::fence, access::mb, f);
        if (r.op != rt_op::fence && !lkmm_) return;
        annotate(lk_of(f), o, false);
        dpor::rt::fence(r.op == rt_op::fence ? r.order : mo::relaxed, where(o));
    }
    void lock(const op_info& o) override {
        if (!lock_cas(o, prim_class::lock)) dpor::rt::block("lock", where(o));
    }
    void unlock(const op_info& o) override {
        annotate(dpor::lk::unlock, o, false);
        dpor::rt::store(sh_.mem.at(o.loc), 0, row(prim_class::unlock, access::once).order,
                        where(o));
    }
    bool trylock(const op_info& o) override { return lock_cas(o, prim_class::trylock); }
    bool is_locked(const op_info& o) override {
        const mapping_row& r = row(prim_class::is_locked, access::once);
        annotate(dpor::lk::lock_fail, o, false);  // a read with no ordering (lock.cat: RL, RU)
        const bool locked = dpor::rt::load(sh_.mem.at(o.loc), r.order, where(o)) != 0;
        read_made(o);
        return locked;
    }
    void ctrl_begin(const dep_set& cond) override {
        if (!lkmm_) return;  // RC11 and SC have no dependencies
        const std::vector<dpor::rt::dep_id> c = translate(cond);
        dpor::rt::ctrl_begin(c.data(), c.size());
    }
    void ctrl_end() override {
        if (lkmm_) dpor::rt::ctrl_end();
    }
    [[noreturn]] void fail(src_pos p, const std::string& message) override {
        if (!sh_.error) sh_.error = litmus_error(p, message);
        dpor::rt::fail("litmus-error", message, src_loc(sh_.t.file.c_str(), p.line, "litmus"));
    }

private:
    // The engine's names for the reads of a dependency set (the interpreter's event ids).
    std::vector<dpor::rt::dep_id> translate(const dep_set& d) const {
        std::vector<dpor::rt::dep_id> out;
        for (event_id e : d.ids()) {
            if (e >= engine_id_.size() || engine_id_[e] == no_id)
                throw std::logic_error("litmus: a dependency on an event that made no read");
            out.push_back(engine_id_[e]);
        }
        return out;
    }
    void annotate(dpor::lk kind, const op_info& o, bool data, bool atomic_op = false) {
        if (!lkmm_) return;
        const std::vector<dpor::rt::dep_id> a = translate(o.addr);
        const std::vector<dpor::rt::dep_id> d =
            data ? translate(o.data) : std::vector<dpor::rt::dep_id>{};
        dpor::rt::annotate_next(kind, a.data(), a.size(), d.data(), d.size(), atomic_op);
    }
    void read_made(const op_info& o) {
        if (!lkmm_) return;
        if (engine_id_.size() <= o.id) engine_id_.resize(o.id + 1, no_id);
        engine_id_[o.id] = dpor::rt::last_event();
    }

    src_loc where(const op_info& o) const {
        return src_loc(sh_.t.file.c_str(), o.where.line, "litmus");
    }
    void check(const mapping_row& r, const op_info& o) {
        if (r.op == rt_op::unsupported)
            fail(o.where,
                 std::string("a ") + to_string(o.kind) + " access has no mapping under RC11 or SC");
    }
    value decode(value_t w, const op_info& o) {
        value v;
        if (!sh_.mem.decode(w, v))
            fail(o.where, "a value wider than herd7's 32-bit int (" + std::to_string(w) + ")");
        return v;
    }
    bool lock_cas(const op_info& o, prim_class c) {
        value_t unlocked = 0;
        annotate(dpor::lk::lock, o, false);
        const bool ok = dpor::rt::cas(sh_.mem.at(o.loc), unlocked, 1, row(c, access::once).order,
                                      mo::relaxed, where(o));
        read_made(o);
        return ok;
    }
    value rmw_once(const op_info& o, rmw_op op, value operand, mo order) {
        void* loc = sh_.mem.at(o.loc);
        // A bitwise RMW (a cas below) computes its write from its read, as an add does.
        const bool bitwise = op != rmw_op::xchg && op != rmw_op::add && op != rmw_op::sub;
        annotate(lk_of(o.kind), o, true, bitwise);
        if (op == rmw_op::xchg) {
            const value old =
                decode(dpor::rt::exchange(loc, sh_.mem.word(operand), order, where(o)), o);
            read_made(o);
            return old;
        }
        if (operand.is_ptr) fail(o.where, "arithmetic on a location's address");
        if (op == rmw_op::add || op == rmw_op::sub) {
            const std::int64_t delta = op == rmw_op::add ? operand.i : -std::int64_t(operand.i);
            const value old = decode(dpor::rt::fetch_add(loc, value_t(delta), order, where(o)), o);
            read_made(o);
            if (old.is_ptr) fail(o.where, "arithmetic on a location's address");
            const std::int64_t sum = std::int64_t(old.i) + delta;
            if (sum != std::int64_t(std::int32_t(sum)))
                fail(o.where, "the atomic add overflows an int (" + std::to_string(sum) + ")");
            return old;
        }
        // A bitwise RMW: guess the value read (see the top of the file).
        const std::vector<value_t>& g = sh_.guesses;
        const value_t guess = g[g.size() == 1 ? 0 : dpor::rt::choose(unsigned(g.size()), where(o))];
        value old;
        if (!sh_.mem.decode(guess, old)) fail(o.where, "a guess is no value");
        value next;
        if (!apply_rmw(op, old, operand, next)) fail(o.where, "arithmetic on a location's address");
        value_t read = guess;
        if (!dpor::rt::cas(loc, read, sh_.mem.word(next), order, mo::relaxed, where(o))) {
            if (!std::binary_search(g.begin(), g.end(), read)) sh_.missing.insert(read);
            dpor::rt::block("assume", where(o));
        }
        read_made(o);
        return old;
    }

    static constexpr dpor::rt::dep_id no_id = ~dpor::rt::dep_id{0};
    shared& sh_;
    bool lkmm_;
    std::vector<dpor::rt::dep_id> engine_id_;  // per interpreter event id: the engine's read
};

bool has_plain(const expr& e, src_pos& at) {
    if (e.kind == expr_kind::deref) {
        at = e.pos;
        return true;
    }
    for (const expr& k : e.kids)
        if (has_plain(k, at)) return true;
    return false;
}

bool has_plain(const std::vector<stmt>& body, src_pos& at) {
    for (const stmt& s : body) {
        if (s.kind == stmt_kind::plain_store) {
            at = s.pos;
            return true;
        }
        if (has_plain(s.e, at) || has_plain(s.target, at) || has_plain(s.then_body, at) ||
            has_plain(s.else_body, at))
            return true;
    }
    return false;
}

void collect_constants(const expr& e, std::set<std::int32_t>& out) {
    if (e.kind == expr_kind::constant) out.insert(e.i);
    for (const expr& k : e.kids) collect_constants(k, out);
}

void collect_constants(const std::vector<stmt>& body, std::set<std::int32_t>& out) {
    for (const stmt& s : body) {
        collect_constants(s.e, out);
        collect_constants(s.target, out);
        collect_constants(s.then_body, out);
        collect_constants(s.else_body, out);
    }
}

}  // namespace

std::optional<litmus_error> dpor_unsupported(const test& t, dpor::memory_model m) {
    if (t.threads.size() + 1 > dpor::max_threads)
        return litmus_error(
            t.threads[dpor::max_threads - 1].pos,
            "the dpor engine runs at most " + std::to_string(dpor::max_threads - 1) + " threads");
    for (const thread& th : t.threads) {
        src_pos at;
        // The LKMM says what plain accesses do (plain-coherence, the data-race flag); under RC11
        // and SC the project maps only the kernel's marked accesses.
        if (m != dpor::memory_model::lkmm && has_plain(th.body, at))
            return litmus_error(at,
                                "plain C accesses (*p) are not supported under RC11 or SC: "
                                "mark them (READ_ONCE, WRITE_ONCE), or use --model lkmm");
    }
    return std::nullopt;
}

run_result run_on_dpor(const test& t, const std::vector<rloc>& observed,
                       const dpor_run_options& opt) {
    if (std::optional<litmus_error> e = dpor_unsupported(t, opt.model)) {
        run_result r;
        r.error = e;
        return r;
    }
    shared sh{t, memory(t.locations.size()), {}, {}, {}};
    std::set<value_t> guesses{0};
    for (unsigned k = 0; k < t.locations.size(); ++k)
        guesses.insert(sh.mem.word(t.locations[k].init));
    for (const thread& th : t.threads) {
        std::set<std::int32_t> cs;
        collect_constants(th.body, cs);
        for (std::int32_t c : cs) guesses.insert(sh.mem.word(value::of_int(c)));
    }
    for (unsigned search = 0;; ++search) {
        sh.guesses.assign(guesses.begin(), guesses.end());
        sh.missing.clear();
        sh.error.reset();
        const bool lkmm = opt.model == dpor::memory_model::lkmm;
        std::vector<rt_backend> backends(t.threads.size(), rt_backend(sh, lkmm));
        std::vector<thread_state> states(t.threads.size());
        for (unsigned k = 0; k < t.threads.size(); ++k) states[k].reset(t.threads[k]);
        std::map<std::vector<value>, std::uint64_t,
                 bool (*)(const std::vector<value>&, const std::vector<value>&)>
            finals([](const std::vector<value>& a, const std::vector<value>& b) {
                return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end(),
                                                    [](const value& x, const value& y) {
                                                        if (x.is_ptr != y.is_ptr)
                                                            return x.is_ptr < y.is_ptr;
                                                        return x.is_ptr ? x.loc < y.loc : x.i < y.i;
                                                    });
            });
        std::vector<value> final_state(observed.size());
        dpor::program prog;
        prog.tasks = unsigned(t.threads.size());
        prog.setup = [&] {
            for (unsigned k = 0; k < t.locations.size(); ++k)
                dpor::rt::init_atomic(sh.mem.at(k), 8, sh.mem.word(t.locations[k].init),
                                      src_loc(t.file.c_str(), t.locations[k].pos.line, "init"));
        };
        prog.task = [&](unsigned k) { run_thread(t.threads[k], backends[k], states[k]); };
        prog.teardown = [&] {
            for (unsigned k = 0; k < observed.size(); ++k) {
                const rloc& r = observed[k];
                if (r.is_reg) {
                    final_state[k] = states[r.thread].regs[r.index];
                    continue;
                }
                const value_t w = dpor::rt::load(sh.mem.at(r.index), mo::relaxed,
                                                 src_loc(t.file.c_str(), 0, "final state"));
                if (!sh.mem.decode(w, final_state[k]))
                    backends[0].fail(r.pos, "a final value wider than herd7's 32-bit int");
            }
        };
        dpor::options o;
        o.model = opt.model;
        o.max_executions = opt.max_executions;
        o.budget_s = opt.budget_s;
        o.all_violations = true;  // a deadlock is an execution that does not exist; go on
        o.on_complete = [&] { ++finals[final_state]; };  // each execution once
        o.data_race_is_violation = false;                // a flag, as herd7 has it
        o.trace = false;
        o.collect_graphs = opt.collect_graphs;
        const dpor::result res = dpor::explore(prog, o);

        run_result out;
        out.executions = res.executions;
        out.blocked = res.blocked;
        out.complete = res.complete;
        out.incomplete_reason = res.incomplete_reason;
        out.error = sh.error;
        out.graphs = res.graphs;
        if (res.flagged_data_race) out.flags.push_back("data-race");
        if (res.flagged_mixed) out.flags.push_back("mixed-accesses");
        for (const dpor::violation& v : res.violations) {
            if (v.cls == "deadlock") {
                out.deadlock = true;
            } else if (v.cls != "litmus-error" && !out.error) {
                out.error = litmus_error(src_pos{v.where.line, 0},
                                         "the dpor engine reports " + v.cls + ": " + v.message);
            }
        }
        if (out.error || !out.complete || sh.missing.empty()) {
            for (auto& [state, n] : finals) out.finals.emplace_back(state, n);
            return out;
        }
        if (search == 8) {
            out.error = litmus_error(src_pos{}, "the values of a bitwise atomic did not settle");
            return out;
        }
        guesses.insert(sh.missing.begin(), sh.missing.end());
    }
}

}  // namespace kverify::litmus
