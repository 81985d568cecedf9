// SPDX-License-Identifier: GPL-2.0-only
// The LKMM's dependencies as the Env declares them, in twins written like impl/ code: each shape
// once with the dependency (the LKMM forbids the outcome: pass on dpor-lkmm) and once without it
// (allowed: found). RC11 and SC know no dependencies, so there the twins agree (and load buffering
// is never found). The value laundered through raw() is the sound exit: the engine still finds
// the outcome, and the search stays complete.
#include "model/kernel/model_env.hpp"
#include "model/kernel/scenario.hpp"

namespace kverify::model {
namespace {

using E = model_env;

enum class dep { with, without, laundered };

struct dep_params {
    kernel_config kernel;
    dep kind = dep::with;
};

// LB: each task reads one word and writes the other. With a data dependency on both sides
// (the written value computed from the read, always 1) the LKMM forbids both reads seeing 1.
struct lb_data : scenario_base {
    static constexpr const char* properties[] = {"weak-outcome"};
    static constexpr unsigned tasks = 2;
    static constexpr bool lkmm_ready = true;  // judged in after() only
    using params = dep_params;
    dep kind;
    E::atomic<int> x{0}, y{0};
    int r[2] = {-1, -1};
    explicit lb_data(const params& p) : kind(p.kind) {}
    void task(unsigned t) {
        E::atomic<int>& from = t == 0 ? x : y;
        E::atomic<int>& to = t == 0 ? y : x;
        if (kind == dep::laundered) {
            const int v = E::read_once(from).raw();  // the engine is told: sound, not ordered
            E::write_once(to, v * 0 + 1);
            r[t] = v;
            return;
        }
        const E::val<int> v = E::read_once(from);
        if (kind == dep::with)
            E::write_once(to, v * 0 + 1);  // a data dependency on the read
        else
            E::write_once(to, 1);
        r[t] = v.raw();  // the check's own copy, after the write
    }
    void after() { expect(!(r[0] == 1 && r[1] == 1), "weak-outcome", "LB: both read 1"); }
};

// MP: the writer orders data before the index with smp_wmb; the reader reads the index and then
// the element it names. Through Env::at the element read has an address dependency on the index
// read (forbidden: index 1 with data 0); read at a fixed position it has none (allowed).
struct mp_addr : scenario_base {
    static constexpr const char* properties[] = {"weak-outcome"};
    static constexpr unsigned tasks = 2;
    static constexpr bool lkmm_ready = true;  // judged in after() only
    using params = dep_params;
    dep kind;
    E::atomic<int> data[2];
    E::atomic<int> idx{0};
    explicit mp_addr(const params& p) : kind(p.kind) {}
    void task(unsigned t) {
        if (t == 0) {
            E::write_once(data[1], 1);
            E::smp_wmb();
            E::write_once(idx, 1);
            return;
        }
        const E::val<int> i = E::read_once(idx);
        const E::val<int> d =
            kind == dep::with ? E::read_once(E::at(data, i)) : E::read_once(data[1]);
        const int ri = i.raw(), rd = d.raw();
        expect(!(ri == 1 && rd == 0), "weak-outcome", "MP: index 1 but data 0");
    }
};

// LB with a control dependency in task 0 (its store inside the then-clause, or after the if)
// and a data dependency in task 1. The store in the clause is ordered after the read; the one
// after the if is not (the LKMM ends a control dependency with the if statement).
struct lb_ctrl : scenario_base {
    static constexpr const char* properties[] = {"weak-outcome"};
    static constexpr unsigned tasks = 2;
    static constexpr bool lkmm_ready = true;  // judged in after() only
    using params = dep_params;
    dep kind;
    E::atomic<int> x{0}, y{0}, z{0};
    int r[2] = {-1, -1};
    explicit lb_ctrl(const params& p) : kind(p.kind) {}
    void task(unsigned t) {
        if (t == 0) {
            const E::val<int> v = E::read_once(x);
            if (kind == dep::with) {
                if (auto c = E::when(v == 1)) E::write_once(y, 1);
            } else {
                if (auto c = E::when(v == 1)) E::write_once(z, 1);
                E::write_once(y, 1);
            }
            r[0] = v.raw();
        } else {
            const E::val<int> v = E::read_once(y);
            E::write_once(x, v * 0 + 1);
            r[1] = v.raw();
        }
    }
    void after() { expect(!(r[0] == 1 && r[1] == 1), "weak-outcome", "LB: both read 1"); }
};

template <class S>
void add(const char* name, dep kind, const char* what) {
    dep_params p;
    p.kind = kind;
    add_check<S>(std::string("litmus/deps/") + name, "litmus", name, what, p);
}

void register_dependencies() {
    add<lb_data>("lb-data", dep::with, "LB, a data dependency on both sides");
    add<lb_data>("lb-no-dep", dep::without, "LB twin: no dependency in task 0");
    add<lb_data>("lb-laundered", dep::laundered, "LB, the read laundered through raw()");
    add<mp_addr>("mp-addr", dep::with, "MP+wmb, an address dependency through Env::at");
    add<mp_addr>("mp-no-addr", dep::without, "MP+wmb twin: the element at a fixed index");
    add<lb_ctrl>("lb-ctrl", dep::with, "LB, a control dependency to the store");
    add<lb_ctrl>("lb-ctrl-after-if", dep::without, "LB twin: the store after the if");
}

const registrar reg(register_dependencies);

}  // namespace
}  // namespace kverify::model
