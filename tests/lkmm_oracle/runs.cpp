// SPDX-License-Identifier: GPL-2.0-only
// The first step of the LKMM oracle (oracle.hpp): every run of each thread. model/litmus's
// interpreter runs the thread on a recording backend that makes events of its operations, with
// herd7's dependencies, and takes a value for every read from its location's domain; a
// depth-first walk over those choices yields every run. Here also: what the oracle refuses.
#include <algorithm>
#include <bitset>
#include <map>
#include <set>

#include "model/litmus/interp.hpp"
#include "model/litmus/primitives.hpp"
#include "model/litmus/report.hpp"
#include "tests/lkmm_oracle/oracle.hpp"

namespace kverify::lkmm_oracle {

using litmus::access;
using litmus::dep_set;
using litmus::litmus_error;
using litmus::op_info;
using litmus::value;

namespace {

bool value_less(const value& a, const value& b) {
    if (a.is_ptr != b.is_ptr) return a.is_ptr < b.is_ptr;
    return a.is_ptr ? a.loc < b.loc : a.i < b.i;
}

// The static writes (the write instructions, by position) a value was computed from.
constexpr unsigned max_static_writes = 64;
using support = std::bitset<max_static_writes>;

// A value a location may hold, with the writes it was computed from through rf and data.
struct entry {
    value v;
    support from;
    friend bool operator<(const entry& a, const entry& b) {
        if (a.v != b.v) return value_less(a.v, b.v);
        return a.from.to_ullong() < b.from.to_ullong();
    }
};

// The values each location's reads may take.
using domains = std::vector<std::vector<entry>>;

// The values the ordinary writes of a round of runs wrote, each with the writes it was
// computed from, itself included; and the numbers of the static writes.
struct write_log {
    std::map<std::pair<unsigned, unsigned>, unsigned> ids;  // by line and column
    std::vector<std::pair<unsigned, entry>> written;        // (location, entry)
};

// The choices of one run, replayed and then advanced like an odometer.
class chooser {
public:
    unsigned next(unsigned arity) {
        if (pos_ == picks_.size()) {
            picks_.push_back(0);
            arity_.push_back(arity);
        }
        return picks_[pos_++];
    }
    bool advance() {
        pos_ = 0;
        while (!picks_.empty()) {
            if (++picks_.back() < arity_.back()) return true;
            picks_.pop_back();
            arity_.pop_back();
        }
        return false;
    }

private:
    std::vector<unsigned> picks_, arity_;
    unsigned pos_ = 0;
};

// Where each location was used as a lock and as data, for the mixed-lock-accesses refusal.
struct lock_use {
    std::map<unsigned, litmus::src_pos> as_lock, as_data;
};

class recorder final : public litmus::backend {
public:
    recorder(const domains& d, chooser& ch, thread_run& out, lock_use& use, write_log& log)
        : dom_(d), ch_(ch), out_(out), use_(use), log_(log) {}

    value load(const op_info& o) override {
        event e = make(o, ev_kind::read, false);
        const entry& en = pick(o.loc);
        e.val = en.v;
        push(o.id, e, true, en.from);
        return e.val;
    }
    void store(const op_info& o, value v) override {
        event e = make(o, ev_kind::write, false);
        e.val = v;
        e.data = deps(o.data);
        push(o.id, e, false, written(o, e));
    }
    value rmw(const op_info& o, litmus::rmw_op op, value operand) override {
        event r = make(o, ev_kind::read, true);
        const entry& en = pick(o.loc);
        r.val = en.v;
        event w = make(o, ev_kind::write, true);
        if (!litmus::apply_rmw(op, r.val, operand, w.val))
            fail(o.where, "arithmetic on a location's address");
        w.data = deps(o.data);
        // herd7's atomic_op computes the value written from the value read: a data dependency
        // inside the RMW (xchg's written value is its operand's alone).
        if (op != litmus::rmw_op::xchg) w.data.push_back(unsigned(out_.events.size()));
        pair(o, r, en.from, w);
        return r.val;
    }
    value cmpxchg(const op_info& o, value expected, value desired, const dep_set&) override {
        event r = make(o, ev_kind::read, true);
        const entry& en = pick(o.loc);
        r.val = en.v;
        if (r.val != expected) {  // a failed cmpxchg is its read alone (the bell's FailedRMW)
            push(o.id, r, true, en.from);
            return r.val;
        }
        event w = make(o, ev_kind::write, true);
        w.val = desired;
        w.data = deps(o.data);
        pair(o, r, en.from, w);
        return r.val;
    }
    void fence(const op_info& o, litmus::fence_kind f) override {
        event e = make(o, ev_kind::fence, false);
        e.fence = f;
        push(o.id, e, false, {});
    }
    void lock(const op_info& o) override { lock_pair(o); }
    void unlock(const op_info& o) override {
        event e = lock_event(o, ev_kind::write, lock_role::ul, 0);
        push(o.id, e, false, {});
    }
    bool trylock(const op_info& o) override {
        if (ch_.next(2) == 0) {
            lock_pair(o);
            return true;
        }
        // A failed trylock is LF, a read of the lock; herd7 makes it (not a successful
        // trylock's LKR) the source of the dependencies on the value returned.
        event e = lock_event(o, ev_kind::read, lock_role::lf, 1);
        push(o.id, e, true, {});
        return false;
    }
    bool is_locked(const op_info& o) override {
        const bool locked = ch_.next(2) == 0;
        event e =
            lock_event(o, ev_kind::read, locked ? lock_role::rl : lock_role::ru, locked ? 1 : 0);
        push(o.id, e, true, {});
        return locked;
    }
    void ctrl_begin(const dep_set&) override {}  // op_info::ctrl says the same
    void ctrl_end() override {}
    [[noreturn]] void fail(litmus::src_pos where, const std::string& message) override {
        throw litmus_error(where, message);
    }

private:
    event make(const op_info& o, ev_kind k, bool atomic) {
        if (k != ev_kind::fence) use_.as_data.emplace(o.loc, o.where);
        event e;
        e.kind = k;
        e.tag = o.kind;
        e.atomic = atomic;
        e.loc = o.loc;
        if (k != ev_kind::fence) e.addr = deps(o.addr);
        e.ctrl = deps(o.ctrl);
        return e;
    }
    event lock_event(const op_info& o, ev_kind k, lock_role role, std::int32_t v) {
        use_.as_lock.emplace(o.loc, o.where);
        event e;
        e.kind = k;
        e.lock = role;
        e.loc = o.loc;
        e.val = value::of_int(v);
        e.addr = deps(o.addr);
        e.ctrl = deps(o.ctrl);
        return e;
    }
    void lock_pair(const op_info& o) {
        event r = lock_event(o, ev_kind::read, lock_role::lkr, 0);
        event w = lock_event(o, ev_kind::write, lock_role::lkw, 1);
        r.rmw_write = int(out_.events.size()) + 1;
        push(o.id, r, false, {});  // a lock's value is no dependency's source
        push(o.id, w, false, {});
    }
    const entry& pick(unsigned loc) {
        const std::vector<entry>& d = dom_[loc];
        return d[d.size() == 1 ? 0 : ch_.next(unsigned(d.size()))];
    }
    // What an ordinary write's value was computed from: the writes its data dependencies read
    // from, and itself. The value is logged unless it came from the write itself: no
    // execution has such a value (the write would run before itself).
    support written(const op_info& o, const event& w) {
        const auto key = std::make_pair(o.where.line, o.where.col);
        auto id = log_.ids.find(key);
        if (id == log_.ids.end()) {
            if (log_.ids.size() == max_static_writes)
                fail(o.where, "more than " + std::to_string(max_static_writes) +
                                  " write instructions (the oracle's limit)");
            id = log_.ids.emplace(key, unsigned(log_.ids.size())).first;
        }
        support from;
        for (unsigned d : w.data) from |= support_[d];
        if (!from.test(id->second)) {
            from.set(id->second);
            log_.written.emplace_back(w.loc, entry{w.val, from});
        }
        return from;
    }
    // The events that the operations in `s` stand for as dependency sources.
    std::vector<unsigned> deps(const dep_set& s) const {
        std::vector<unsigned> out;
        for (litmus::event_id id : s.ids())
            if (id < source_.size() && source_[id] >= 0) out.push_back(unsigned(source_[id]));
        return out;
    }
    void push(litmus::event_id id, const event& e, bool is_source, const support& from) {
        source_.resize(id + 1, -1);
        if (is_source) source_[id] = int(out_.events.size());
        out_.events.push_back(e);
        support_.push_back(from);
    }
    void pair(const op_info& o, event& r, const support& read_from, event& w) {
        r.rmw_write = int(out_.events.size()) + 1;
        push(o.id, r, true, read_from);
        const support from = written(o, w);  // after the read: its data may include the read
        push(o.id, w, false, from);
    }

    const domains& dom_;
    chooser& ch_;
    thread_run& out_;
    lock_use& use_;
    write_log& log_;
    std::vector<int> source_;       // per operation: its event that dependencies start from, or -1
    std::vector<support> support_;  // per event: what its value was computed from
};

// ---- what the oracle refuses ----

bool is_access(const litmus::expr& e) {
    if (e.kind == litmus::expr_kind::deref) return true;
    return e.kind == litmus::expr_kind::call &&
           litmus::primitives()[e.index].cls != litmus::prim_class::fence;
}

bool is_plain_load_or_store(const litmus::expr& e) {
    if (e.kind == litmus::expr_kind::deref) return true;
    const litmus::prim_class c = litmus::primitives()[e.index].cls;
    return c == litmus::prim_class::load || c == litmus::prim_class::store;
}

bool is_load(const litmus::expr& e) {
    return e.kind == litmus::expr_kind::deref ||
           (e.kind == litmus::expr_kind::call &&
            litmus::primitives()[e.index].cls == litmus::prim_class::load);
}

const litmus::expr* first_access(const litmus::expr& e) {
    if (is_access(e)) return &e;
    for (const litmus::expr& k : e.kids)
        if (const litmus::expr* a = first_access(k)) return a;
    return nullptr;
}

unsigned count_accesses(const litmus::expr& e) {
    unsigned n = is_access(e) ? 1 : 0;
    for (const litmus::expr& k : e.kids) n += count_accesses(k);
    return n;
}

// The access of `e` that holds every other access of `e`, or nullptr.
const litmus::expr* outermost(const litmus::expr& e) {
    if (is_access(e)) return &e;
    const litmus::expr* found = nullptr;
    for (const litmus::expr& k : e.kids) {
        if (count_accesses(k) == 0) continue;
        if (found) return nullptr;
        found = outermost(k);
        if (!found) return nullptr;
    }
    return found;
}

// herd7 orders the events of one instruction only along its data flow: the reads of
// `READ_ONCE(*x) + READ_ONCE(*y)`, or an RMW's operand read and its own read, are unordered,
// where the interpreter runs them left to right. So an instruction may have one access, or be
// a load or store with one load in its operands (before it by the data flow).
[[noreturn]] void refuse(litmus::src_pos pos) {
    throw litmus_error(pos,
                       "the LKMM oracle supports one memory access per instruction, or a load "
                       "or store of one loaded value: herd7 leaves the order of these accesses "
                       "partly open");
}

void check_expr(const litmus::expr& e) {
    if (count_accesses(e) <= 1) return;
    const litmus::expr* outer = outermost(e);
    if (count_accesses(e) != 2 || !outer || !is_plain_load_or_store(*outer)) refuse(e.pos);
    for (const litmus::expr& k : outer->kids)
        if (const litmus::expr* inner = first_access(k))
            if (!is_load(*inner)) refuse(inner->pos);
}

void check_plain_store(const litmus::stmt& s) {
    const unsigned n = count_accesses(s.target) + count_accesses(s.e);
    if (n == 0) return;
    const litmus::expr* inner = first_access(s.target);
    if (!inner) inner = first_access(s.e);
    if (n != 1 || !is_load(*inner)) refuse(s.pos);
}

void check_body(const std::vector<litmus::stmt>& body) {
    for (const litmus::stmt& s : body) {
        switch (s.kind) {
            case litmus::stmt_kind::plain_store:
                check_plain_store(s);
                break;
            case litmus::stmt_kind::if_:
                check_expr(s.e);
                check_body(s.then_body);
                check_body(s.else_body);
                break;
            case litmus::stmt_kind::block:
                check_body(s.then_body);
                break;
            default:
                check_expr(s.e);
                break;
        }
    }
}

// Every run of `th` with reads over `dom`.
std::vector<thread_run> enumerate(const litmus::thread& th, const domains& dom, lock_use& use,
                                  write_log& log) {
    std::vector<thread_run> runs;
    chooser ch;
    litmus::thread_state st;
    do {
        thread_run r;
        recorder b(dom, ch, r, use, log);
        litmus::run_thread(th, b, st);
        r.regs = st.regs;
        runs.push_back(std::move(r));
    } while (ch.advance());
    return runs;
}

}  // namespace

std::vector<std::vector<thread_run>> thread_runs(const litmus::test& t) {
    for (const litmus::thread& th : t.threads) check_body(th.body);
    // The values of each location, each with the static writes it was computed from: a
    // location starts with its initial value (from no write); each round runs every thread
    // with reads over the values so far and adds what its writes write. A value computed from
    // a write is never that write's own input, so the chains of writes are at most as long as
    // the test has write instructions, and the rounds reach a fixpoint.
    std::vector<std::set<entry>> values(t.locations.size());
    for (unsigned k = 0; k < t.locations.size(); ++k) values[k].insert({t.locations[k].init, {}});
    lock_use use;
    write_log log;
    for (;;) {
        domains dom;
        std::size_t size = 0;
        for (const std::set<entry>& v : values) {
            dom.emplace_back(v.begin(), v.end());
            size += v.size();
        }
        if (size > 20'000)
            throw litmus_error(t.cond.pos,
                               "more than 20000 values of locations (the oracle's limit)");
        log.written.clear();
        for (const litmus::thread& th : t.threads) enumerate(th, dom, use, log);
        for (const auto& [loc, en] : log.written) values[loc].insert(en);
        std::size_t after = 0;
        for (const std::set<entry>& v : values) after += v.size();
        if (after == size) break;
    }
    // The runs, with reads over the values (what they were computed from no longer matters).
    domains dom(t.locations.size());
    for (unsigned k = 0; k < t.locations.size(); ++k)
        for (const entry& en : values[k])
            if (dom[k].empty() || dom[k].back().v != en.v) dom[k].push_back({en.v, {}});
    use = lock_use();
    std::vector<std::vector<thread_run>> runs;
    for (const litmus::thread& th : t.threads) runs.push_back(enumerate(th, dom, use, log));
    for (const auto& [loc, pos] : use.as_lock) {
        const auto d = use.as_data.find(loc);
        if (d != use.as_data.end())
            throw litmus_error(d->second, "location '" + t.locations[loc].name +
                                              "' is a spinlock and is also accessed as data "
                                              "(herd7's mixed-lock-accesses)");
        if (t.locations[loc].init != value::of_int(0))
            throw litmus_error(t.locations[loc].pos,
                               "spinlock '" + t.locations[loc].name + "' must start unlocked (0)");
        for (const litmus::rloc& r : litmus::observed_rlocs(t))
            if (!r.is_reg && r.index == loc)
                throw litmus_error(r.pos, "the final value of spinlock '" + t.locations[loc].name +
                                              "' is not a value (herd7's lock-final)");
    }
    return runs;
}

}  // namespace kverify::lkmm_oracle
