// SPDX-License-Identifier: GPL-2.0-only
// A tiny program language for testing the dpor engine against its oracle: threads of straight-line
// memory operations on a few locations, with optional guards (run an instruction only if an
// earlier result had some value) and assumes. The engine runs it through dpor::rt (run_on_engine);
// the oracle (oracle.hpp) enumerates its executions by brute force. Both name the executions by the
// same canonical text, so their sets can be compared.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "model/dpor/engine.hpp"

namespace kverify::dpor::test {

// cas_full: the kernel's try_cmpxchg (fully ordered on success, relaxed on failure). claim:
// rt::claim (sets the bits v when the bits v2 are clear; 1 when it succeeds, as a cas).
enum class op : std::uint8_t { load, store, cas, fadd, xchg, fence, assume, cas_full, claim };

struct instr {
    op o = op::load;
    unsigned loc = 0;
    mo order = mo::relaxed;
    mo fail_order = mo::relaxed;  // cas
    value_t v = 0;   // store / fadd / xchg: operand; cas: expected; claim: bits set; assume: value
    value_t v2 = 0;  // cas: desired; claim: bits that must be clear
    int guard = -1;  // run only if result[guard] == guard_val (guard < own index)
    value_t guard_val = 0;
    int reg = -1;  // assume: the earlier result it tests
};

struct prog {
    std::string name;
    std::vector<value_t> init;                // one per location
    std::vector<std::vector<instr>> threads;  // tasks
};

inline constexpr unsigned max_locs = 4;
inline constexpr unsigned max_instrs = 8;

// Results of one execution: result[t][i] is what instruction i of task t returned (0 if skipped).
using outcome = std::vector<std::vector<value_t>>;

// A hash of an outcome (FNV-1a over its values), for tests that pick some outcomes as violations.
inline std::uint64_t outcome_hash(const outcome& o) {
    std::uint64_t h = 1469598103934665603ull;
    for (const auto& t : o)
        for (value_t v : t) h = (h ^ v) * 1099511628211ull;
    return h;
}

// Executions as a multiset of their canonical texts (collect_graphs), so that one explored
// twice shows.
using multiset = std::map<std::string, unsigned>;
inline multiset count_of(const std::vector<std::string>& graphs) {
    multiset m;
    for (const std::string& g : graphs) ++m[g];
    return m;
}

// A violation of class `cls` on some outcomes: those whose results hash to 0 modulo `mod`.
inline std::function<void(const outcome&)> fail_on_some(std::uint64_t mod,
                                                        const char* cls = "outcome") {
    return [mod, cls](const outcome& o) {
        if (outcome_hash(o) % mod == 0)
            rt::fail(cls, "a chosen outcome", src_loc("engine test", 0, ""));
    };
}

struct engine_run {
    result res;
    std::vector<outcome> outcomes;  // one per complete execution
};

// Runs p on the engine under the given options (collect_graphs is forced on). `at_end`, when
// given, sees the results of each execution that ends (it may call rt::fail).
// The results of the execution running on this thread (a search on several threads,
// options::threads, runs one execution on each at once).
inline thread_local outcome ir_regs;

// `awaits`: an instruction whose result the next one assumes declares that assume as an await
// (rt::await_next) where the engine takes one: a load, and a cas whose success is assumed.
inline engine_run run_on_engine(const prog& p, options opt,
                                const std::function<void(const outcome&)>& at_end = {},
                                bool awaits = false) {
    static value_t locs[max_locs];  // addresses only: the engine keeps the values
    engine_run out;
    std::mutex out_lock;  // out.outcomes, from every thread of the search
    opt.collect_graphs = true;
    opt.on_thread = [&p](bool) { ir_regs.assign(p.threads.size(), {}); };
    program pr;
    pr.tasks = unsigned(p.threads.size());
    pr.setup = [&] {
        for (unsigned k = 0; k < p.init.size(); ++k)
            rt::init_atomic(&locs[k], 8, p.init[k], src_loc("ir", k, "init"));
    };
    pr.task = [&](unsigned t) {
        const auto& code = p.threads[t];
        std::vector<value_t>& r = ir_regs[t];
        r.assign(code.size(), 0);
        for (unsigned i = 0; i < code.size(); ++i) {
            const instr& in = code[i];
            if (in.guard >= 0 && r[unsigned(in.guard)] != in.guard_val) continue;
            const src_loc at("ir", i, "task");
            void* l = &locs[in.loc];
            if (awaits && i + 1 < code.size() && code[i + 1].o == op::assume &&
                code[i + 1].reg == int(i)) {
                const value_t want = code[i + 1].v;
                if (in.o == op::load)
                    rt::await_next(await_kind::unless_equal, want);
                else if ((in.o == op::cas || in.o == op::cas_full || in.o == op::claim) &&
                         want == 1)
                    rt::await_next(await_kind::cas_fails);
            }
            switch (in.o) {
                case op::load:
                    r[i] = rt::load(l, in.order, at);
                    break;
                case op::store:
                    rt::store(l, in.v, in.order, at);
                    break;
                case op::cas: {
                    value_t exp = in.v;
                    r[i] = rt::cas(l, exp, in.v2, in.order, in.fail_order, at) ? 1 : 0;
                    break;
                }
                case op::cas_full: {
                    value_t exp = in.v;
                    r[i] = rt::cas_fully_ordered(l, exp, in.v2, at) ? 1 : 0;
                    break;
                }
                case op::claim: {
                    value_t old = 0;
                    r[i] = rt::claim(l, in.v, in.v2, old, in.order, in.fail_order, at) ? 1 : 0;
                    break;
                }
                case op::fadd:
                    r[i] = rt::fetch_add(l, in.v, in.order, at);
                    break;
                case op::xchg:
                    r[i] = rt::exchange(l, in.v, in.order, at);
                    break;
                case op::fence:
                    rt::fence(in.order, at);
                    break;
                case op::assume:
                    if (r[unsigned(in.reg)] != in.v) rt::block("assume", at);
                    break;
            }
        }
    };
    pr.teardown = [&] {
        {
            const std::lock_guard<std::mutex> hold(out_lock);
            out.outcomes.push_back(ir_regs);
        }
        if (at_end) at_end(ir_regs);
    };
    out.res = explore(pr, opt);
    return out;
}

inline std::string to_text(const prog& p) {
    static const char* ops[] = {"load",  "store",  "cas",      "fadd", "xchg",
                                "fence", "assume", "cas_full", "claim"};
    std::string s = p.name + " init";
    for (value_t v : p.init) s += " " + std::to_string(v);
    s += "\n";
    for (unsigned t = 0; t < p.threads.size(); ++t) {
        s += "  T" + std::to_string(t + 1) + ":";
        for (unsigned i = 0; i < p.threads[t].size(); ++i) {
            const instr& in = p.threads[t][i];
            s += " [" + std::to_string(i) + "]";
            if (in.guard >= 0)
                s += "if(r" + std::to_string(in.guard) + "==" + std::to_string(in.guard_val) + ")";
            s += ops[int(in.o)];
            if (in.o == op::assume) {
                s += "(r" + std::to_string(in.reg) + "==" + std::to_string(in.v) + ")";
                continue;
            }
            if (in.o != op::fence) s += " x" + std::to_string(in.loc);
            if (in.o == op::store || in.o == op::fadd || in.o == op::xchg)
                s += " " + std::to_string(in.v);
            if (in.o == op::cas)
                s += " " + std::to_string(in.v) + "->" + std::to_string(in.v2) + " fail " +
                     to_string(in.fail_order);
            if (in.o == op::cas_full)
                s += " " + std::to_string(in.v) + "->" + std::to_string(in.v2);
            if (in.o == op::claim)
                s += " set " + std::to_string(in.v) + " if clear " + std::to_string(in.v2) +
                     " fail " + to_string(in.fail_order);
            s += " " + std::string(to_string(in.order));
        }
        s += "\n";
    }
    return s;
}

// A random program: 2..3 tasks (sometimes 4), 1..3 instructions each, 1..3 locations, every kind
// of operation and order, values in 0..2, occasional guards and cas-dependent paths; an assume on
// the previous result one time in `assume_one_in` where it may stand (after a guarded instruction
// too, if `assume_after_guard`: when the guard skips it, the thread blocks after an earlier read,
// on no await a harness declaring them would declare). With `claims`, half of the cas are claims
// (without, the same seeds give the programs they always gave).
inline prog random_prog(std::mt19937& rng, unsigned max_tasks = 3, unsigned max_len = 3,
                        unsigned assume_one_in = 10, bool assume_after_guard = true,
                        bool claims = false) {
    auto pick = [&](unsigned n) { return unsigned(rng() % n); };
    prog p;
    const unsigned nlocs = 1 + pick(3);
    p.init.assign(nlocs, 0);
    const unsigned ntasks = 2 + pick(max_tasks - 1);
    const mo load_orders[] = {mo::relaxed, mo::relaxed, mo::acquire, mo::seq_cst};
    const mo store_orders[] = {mo::relaxed, mo::relaxed, mo::release, mo::seq_cst};
    const mo rmw_orders[] = {mo::relaxed, mo::acquire, mo::release, mo::acq_rel, mo::seq_cst};
    const mo fence_orders[] = {mo::acquire, mo::release, mo::acq_rel, mo::seq_cst};
    for (unsigned t = 0; t < ntasks; ++t) {
        std::vector<instr> code;
        const unsigned len = 1 + pick(max_len);
        for (unsigned i = 0; i < len; ++i) {
            instr in;
            in.loc = pick(nlocs);
            const unsigned k = pick(20);
            if (k < 6) {
                in.o = op::load;
                in.order = load_orders[pick(4)];
            } else if (k < 12) {
                in.o = op::store;
                in.order = store_orders[pick(4)];
                in.v = 1 + pick(2);
            } else if (k < 15) {
                in.o = op::cas;
                in.order = rmw_orders[pick(5)];
                in.fail_order = pick(3) == 0 ? mo::acquire : mo::relaxed;
                if (in.order == mo::seq_cst && pick(2)) in.fail_order = mo::seq_cst;
                in.v = pick(3);
                in.v2 = 1 + pick(2);
                if (claims && pick(2) == 0) {
                    in.o = op::claim;
                    in.v = 1 + pick(2);   // sets bit 0, bit 1
                    in.v2 = 1 + pick(3);  // if bit 0, bit 1, or both are clear
                }
            } else if (k < 16 && pick(2) == 0) {
                in.o = op::cas_full;
                in.v = pick(3);
                in.v2 = 1 + pick(2);
            } else if (k < 17) {
                in.o = op::fadd;
                in.order = rmw_orders[pick(5)];
                in.v = 1;
            } else if (k < 18) {
                in.o = op::xchg;
                in.order = rmw_orders[pick(5)];
                in.v = 1 + pick(2);
            } else {
                in.o = op::fence;
                in.order = fence_orders[pick(4)];
            }
            if (i > 0 && pick(6) == 0 && code[i - 1].o != op::store && code[i - 1].o != op::fence) {
                in.guard = int(i - 1);
                in.guard_val = pick(2);
            }
            // Now and then an assume on the previous result (a blocked execution when false).
            if (i > 0 && pick(assume_one_in) == 0 && code[i - 1].o != op::store &&
                code[i - 1].o != op::fence && code[i - 1].o != op::assume &&
                (assume_after_guard || code[i - 1].guard < 0)) {
                instr a;
                a.o = op::assume;
                a.reg = int(i - 1);
                a.v = pick(2);
                code.push_back(a);
                continue;
            }
            code.push_back(in);
        }
        p.threads.push_back(code);
    }
    return p;
}

// A generated program without guards and assumes, for the LKMM: the tiny language declares no
// control dependency, and under the LKMM a search over a program with undeclared dependencies
// may be incomplete (events.cpp, diverged), which is not what the tests that use it are about.
inline prog straight_line(std::mt19937& rng) {
    prog p = random_prog(rng, 3, 4);
    for (auto& code : p.threads) {
        std::vector<instr> kept;
        for (instr in : code) {
            if (in.o == op::assume) continue;
            in.guard = -1;
            kept.push_back(in);
        }
        code = kept;
    }
    return p;
}

}  // namespace kverify::dpor::test
