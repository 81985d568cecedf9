// SPDX-License-Identifier: GPL-2.0-only
// The oracle of the dpor engine: a brute-force enumerator, written independently of the engine and
// as plainly as possible. It runs a program of the test language (ir.hpp) by trying, at every step,
// every thread, every write a read may read from and every place in coherence order a write may
// take (including the impossible ones), and keeps the graphs that the memory model's axioms allow,
// checked from their relational definitions (RC11: Lahav et al., PLDI 2017; SC: acyclic
// po | rf | co | fr). Exponential, so only for small programs. Not a second engine: no reduction,
// no incremental checks, no shared code with model/dpor.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "tests/engine/ir.hpp"

namespace kverify::dpor::test {

class oracle {
public:
    struct ev {
        char kind;  // 'I' init, 'W' write, 'R' read, 'U' RMW read half, 'F' fence, 'B' block
        unsigned loc = 0;
        mo order = mo::relaxed;  // of the access as it happened
        value_t val = 0;
        int rf_t = -1, rf_i = -1;
        bool rmw_write = false;
        bool hidden = false;  // a fence of a fully ordered cas: in the relations, not the text
        bool full = false;    // the read half of a fully ordered cas (printed 'V')
    };
    struct state {
        std::vector<std::vector<ev>> th;                   // [0]: the init writes
        std::vector<std::vector<std::pair<int, int>>> co;  // per location
        std::vector<unsigned> pc;                          // per task
        std::vector<std::vector<value_t>> regs;
        std::vector<char> blocked;
    };

    oracle(const prog& p, memory_model m) : p_(p), m_(m) {}

    void run() {
        state s;
        s.th.resize(p_.threads.size() + 1);
        s.co.resize(p_.init.size());
        for (unsigned k = 0; k < p_.init.size(); ++k) {
            ev e;
            e.kind = 'I';
            e.loc = k;
            e.order = mo::plain;
            e.val = p_.init[k];
            s.th[0].push_back(e);
            s.co[k].push_back({0, int(k)});
        }
        s.pc.assign(p_.threads.size(), 0);
        s.regs.resize(p_.threads.size());
        for (unsigned t = 0; t < p_.threads.size(); ++t) s.regs[t].assign(p_.threads[t].size(), 0);
        s.blocked.assign(p_.threads.size(), 0);
        for (unsigned t = 0; t < p_.threads.size(); ++t) skip_guarded(s, t);
        dfs(s);
    }

    std::set<std::string> complete, blocked;
    // The blocked graphs in which no thread blocked right after a read of a write that is not
    // the newest of its location: those the engine explores even when it cuts stale awaits
    // (options::cut_stale_awaits), which may leave out any of the others.
    std::set<std::string> blocked_kept;
    std::map<std::string, outcome> outcome_of;

    // ---- the axioms ----
    static bool consistent(const state& s, memory_model m) {
        rel r(s);
        return m == memory_model::sc ? r.sc_ok() : r.rc11_ok();
    }

    static std::string canonical(const state& s) {
        // Event numbers as the engine has them: hidden fences are not events there.
        std::vector<std::vector<int>> vis(s.th.size());
        for (unsigned t = 0; t < s.th.size(); ++t) {
            int k = 0;
            for (const ev& e : s.th[t]) vis[t].push_back(e.hidden ? -1 : k++);
        }
        std::string out;
        for (unsigned t = 0; t < s.th.size(); ++t) {
            out += "T" + std::to_string(t) + ":";
            for (const ev& e : s.th[t]) {
                if (e.hidden) continue;
                switch (e.kind) {
                    case 'R':
                    case 'U':
                        out += std::string(" ") + (e.full ? 'V' : e.kind) + std::to_string(e.loc) +
                               "=" + std::to_string(e.val) + "@" + std::to_string(e.rf_t) + "." +
                               std::to_string(vis[unsigned(e.rf_t)][unsigned(e.rf_i)]);
                        break;
                    case 'I':
                    case 'W':
                        out += std::string(" ") + e.kind + std::to_string(e.loc) + "=" +
                               std::to_string(e.val);
                        break;
                    case 'F':
                        out += std::string(" F") + to_string(e.order);
                        break;
                    case 'B':
                        out += " B";
                        break;
                }
            }
            out += "\n";
        }
        for (unsigned k = 0; k < s.co.size(); ++k) {
            out += "co" + std::to_string(k) + ":";
            for (auto [t, i] : s.co[k])
                out +=
                    " " + std::to_string(t) + "." + std::to_string(vis[unsigned(t)][unsigned(i)]);
            out += "\n";
        }
        return out;
    }

private:
    // Relations over the events of a (possibly partial) graph, as boolean matrices.
    struct rel {
        const state& s;
        std::vector<std::pair<unsigned, unsigned>> id;  // event number -> (thread, index)
        std::map<std::pair<unsigned, unsigned>, unsigned> num;
        unsigned n = 0;
        using mat = std::vector<std::vector<char>>;
        mat po, asw, rf, co, fr, rmw, hb, eco;

        explicit rel(const state& st) : s(st) {
            for (unsigned t = 0; t < s.th.size(); ++t)
                for (unsigned i = 0; i < s.th[t].size(); ++i) {
                    num[{t, i}] = n++;
                    id.push_back({t, i});
                }
            po = asw = rf = co = fr = rmw = empty();
            for (unsigned a = 0; a < n; ++a)
                for (unsigned b = 0; b < n; ++b) {
                    if (id[a].first == id[b].first && id[a].second < id[b].second) po[a][b] = 1;
                    if (id[a].first == 0 && id[b].first != 0) asw[a][b] = 1;
                }
            for (unsigned b = 0; b < n; ++b) {
                const ev& e = at(b);
                if (e.kind == 'R' || e.kind == 'U')
                    rf[num.at({unsigned(e.rf_t), unsigned(e.rf_i)})][b] = 1;
                if (e.rmw_write) rmw[b - 1][b] = 1;
            }
            for (const auto& list : s.co)
                for (unsigned x = 0; x < list.size(); ++x)
                    for (unsigned y = x + 1; y < list.size(); ++y)
                        co[num.at({unsigned(list[x].first), unsigned(list[x].second)})]
                          [num.at({unsigned(list[y].first), unsigned(list[y].second)})] = 1;
            fr = compose(transpose(rf), co);
            eco = plus(unite(unite(rf, co), fr));
        }
        const ev& at(unsigned k) const { return s.th[id[k].first][id[k].second]; }
        mat empty() const { return mat(n, std::vector<char>(n, 0)); }
        mat unite(const mat& a, const mat& b) const {
            mat c = a;
            for (unsigned x = 0; x < n; ++x)
                for (unsigned y = 0; y < n; ++y) c[x][y] |= b[x][y];
            return c;
        }
        mat compose(const mat& a, const mat& b) const {
            mat c = empty();
            for (unsigned x = 0; x < n; ++x)
                for (unsigned z = 0; z < n; ++z)
                    if (a[x][z])
                        for (unsigned y = 0; y < n; ++y)
                            if (b[z][y]) c[x][y] = 1;
            return c;
        }
        mat transpose(const mat& a) const {
            mat c = empty();
            for (unsigned x = 0; x < n; ++x)
                for (unsigned y = 0; y < n; ++y) c[y][x] = a[x][y];
            return c;
        }
        mat plus(mat a) const {  // transitive closure
            for (unsigned k = 0; k < n; ++k)
                for (unsigned x = 0; x < n; ++x)
                    if (a[x][k])
                        for (unsigned y = 0; y < n; ++y)
                            if (a[k][y]) a[x][y] = 1;
            return a;
        }
        mat refl(mat a) const {
            for (unsigned x = 0; x < n; ++x) a[x][x] = 1;
            return a;
        }
        bool acyclic(const mat& a) const {
            const mat c = plus(a);
            for (unsigned x = 0; x < n; ++x)
                if (c[x][x]) return false;
            return true;
        }
        bool is_w(unsigned k) const { return at(k).kind == 'W' || at(k).kind == 'I'; }
        bool is_r(unsigned k) const { return at(k).kind == 'R' || at(k).kind == 'U'; }
        bool is_f(unsigned k) const { return at(k).kind == 'F'; }
        bool atomic(unsigned k) const { return at(k).kind != 'I'; }
        bool rel_(unsigned k) const {
            const mo o = at(k).order;
            return (is_w(k) || is_f(k)) && atomic(k) &&
                   (o == mo::release || o == mo::acq_rel || o == mo::seq_cst);
        }
        bool acq_(unsigned k) const {
            const mo o = at(k).order;
            return (is_r(k) || is_f(k)) &&
                   (o == mo::acquire || o == mo::acq_rel || o == mo::seq_cst);
        }
        bool sc_(unsigned k) const { return at(k).kind != 'B' && at(k).order == mo::seq_cst; }
        bool same_loc(unsigned a, unsigned b) const {
            return (is_w(a) || is_r(a)) && (is_w(b) || is_r(b)) && at(a).loc == at(b).loc;
        }

        // sw = [E>=rel]; ([F]; po)?; rs; rf; [R>=rlx]; (po; [F])?; [E>=acq]
        // rs = [W]; (po|loc)?; [W>=rlx]; (rf; rmw)*
        mat sw() const {
            mat rs0 = empty();
            for (unsigned a = 0; a < n; ++a)
                for (unsigned c = 0; c < n; ++c)
                    if (is_w(a) && is_w(c) && atomic(c) && at(a).loc == at(c).loc &&
                        (a == c || po[a][c]))
                        rs0[a][c] = 1;
            const mat rfrmw = compose(rf, rmw);
            const mat rs = compose(rs0, refl(plus(rfrmw)));
            mat left = empty();  // [E>=rel]; ([F]; po)?
            for (unsigned a = 0; a < n; ++a) {
                if (!rel_(a)) continue;
                left[a][a] = 1;
                if (is_f(a))
                    for (unsigned x = 0; x < n; ++x)
                        if (po[a][x]) left[a][x] = 1;
            }
            mat right = empty();  // [R>=rlx]; (po; [F])?; [E>=acq]
            for (unsigned r = 0; r < n; ++r) {
                if (!is_r(r)) continue;
                if (acq_(r)) right[r][r] = 1;
                for (unsigned b = 0; b < n; ++b)
                    if (po[r][b] && is_f(b) && acq_(b)) right[r][b] = 1;
            }
            return compose(compose(compose(left, rs), rf), right);
        }

        bool rc11_ok() {
            hb = plus(unite(unite(po, asw), sw()));
            // coherence: hb; eco? irreflexive
            const mat hbeco = compose(hb, refl(eco));
            for (unsigned x = 0; x < n; ++x)
                if (hbeco[x][x]) return false;
            if (!atomicity_ok()) return false;
            // no thin air: po | rf acyclic
            if (!acyclic(unite(po, rf))) return false;
            // sc: psc acyclic
            mat pol = empty(), hbloc = empty();
            for (unsigned a = 0; a < n; ++a)
                for (unsigned b = 0; b < n; ++b) {
                    if (po[a][b] && !same_loc(a, b)) pol[a][b] = 1;
                    if (hb[a][b] && same_loc(a, b)) hbloc[a][b] = 1;
                }
            const mat scb =
                unite(unite(unite(po, compose(compose(pol, hb), pol)), hbloc), unite(co, fr));
            const mat hbr = refl(hb);
            mat left = empty(), right = empty();
            for (unsigned a = 0; a < n; ++a) {
                if (!sc_(a)) continue;
                left[a][a] = right[a][a] = 1;
                if (is_f(a))
                    for (unsigned x = 0; x < n; ++x) {
                        if (hbr[a][x]) left[a][x] = 1;
                        if (hbr[x][a]) right[x][a] = 1;
                    }
            }
            const mat psc_base = compose(compose(left, scb), right);
            const mat hbecohb = unite(hb, compose(compose(hb, eco), hb));
            mat psc = psc_base;
            for (unsigned a = 0; a < n; ++a)
                for (unsigned b = 0; b < n; ++b)
                    if (is_f(a) && sc_(a) && is_f(b) && sc_(b) && hbecohb[a][b]) psc[a][b] = 1;
            return acyclic(psc);
        }

        // atomicity: rmw & (fr; co) is empty (no write between an RMW's read and its write)
        bool atomicity_ok() const {
            const mat frco = compose(fr, co);
            for (unsigned x = 0; x < n; ++x)
                for (unsigned y = 0; y < n; ++y)
                    if (rmw[x][y] && frco[x][y]) return false;
            return true;
        }

        bool sc_ok() const {
            return atomicity_ok() && acyclic(unite(unite(unite(po, asw), rf), unite(co, fr)));
        }
    };

    static bool no_stale_await(const state& s) {
        for (unsigned t = 0; t < s.blocked.size(); ++t) {
            if (!s.blocked[t]) continue;
            const std::vector<ev>& th = s.th[t + 1];
            if (th.size() < 2 || th.back().kind != 'B') continue;
            const ev& prev = th[th.size() - 2];
            if (prev.kind != 'R' && prev.kind != 'U') continue;
            if (s.co[prev.loc].back() != std::make_pair(prev.rf_t, prev.rf_i)) return false;
        }
        return true;
    }

    void skip_guarded(state& s, unsigned t) {
        const auto& code = p_.threads[t];
        while (s.pc[t] < code.size()) {
            const instr& in = code[s.pc[t]];
            if (in.guard >= 0 && s.regs[t][unsigned(in.guard)] != in.guard_val) {
                ++s.pc[t];
                continue;
            }
            break;
        }
    }

    void advance(state& s, unsigned t) {
        ++s.pc[t];
        skip_guarded(s, t);
    }

    void dfs(const state& s) {
        std::string key = canonical(s);
        for (unsigned t = 0; t < s.pc.size(); ++t)
            key += std::to_string(s.pc[t]) + (s.blocked[t] ? "b" : "") + ",";
        if (!visited_.insert(key).second) return;
        if (!consistent(s, m_)) return;
        bool any = false, any_blocked = false;
        for (unsigned t = 0; t < p_.threads.size(); ++t) {
            if (s.blocked[t]) {
                any_blocked = true;
                continue;
            }
            if (s.pc[t] >= p_.threads[t].size()) continue;
            any = true;
            step(s, t);
        }
        if (any) return;
        const std::string c = canonical(s);
        if (any_blocked) {
            blocked.insert(c);
            if (no_stale_await(s)) blocked_kept.insert(c);
        } else {
            complete.insert(c);
            outcome_of[c] = s.regs;
        }
    }

    void step(const state& s, unsigned t) {
        const unsigned task_thread = t + 1;
        const instr& in = p_.threads[t][s.pc[t]];
        const unsigned i = s.pc[t];
        auto writes_of = [&](unsigned loc) { return s.co[loc]; };
        auto value_of = [&](std::pair<int, int> w) {
            return s.th[unsigned(w.first)][unsigned(w.second)].val;
        };
        switch (in.o) {
            case op::load:
                for (auto w : writes_of(in.loc)) {
                    state n = s;
                    ev e;
                    e.kind = 'R';
                    e.loc = in.loc;
                    e.order = in.order;
                    e.val = value_of(w);
                    e.rf_t = w.first;
                    e.rf_i = w.second;
                    n.th[task_thread].push_back(e);
                    n.regs[t][i] = e.val;
                    advance(n, t);
                    dfs(n);
                }
                break;
            case op::store:
                for (unsigned pos = 0; pos <= s.co[in.loc].size(); ++pos) {
                    state n = s;
                    ev e;
                    e.kind = 'W';
                    e.loc = in.loc;
                    e.order = in.order;
                    e.val = in.v;
                    n.th[task_thread].push_back(e);
                    n.co[in.loc].insert(n.co[in.loc].begin() + pos,
                                        {int(task_thread), int(n.th[task_thread].size() - 1)});
                    advance(n, t);
                    dfs(n);
                }
                break;
            case op::cas_full:
                // Success: seq_cst fence, seq_cst cas, seq_cst fence. Failure: a relaxed read.
                for (auto w : writes_of(in.loc)) {
                    const value_t old = value_of(w);
                    ev r;
                    r.kind = 'U';
                    r.full = true;
                    r.loc = in.loc;
                    r.val = old;
                    r.rf_t = w.first;
                    r.rf_i = w.second;
                    ev f;
                    f.kind = 'F';
                    f.order = mo::seq_cst;
                    f.hidden = true;
                    if (old != in.v) {
                        state n = s;
                        r.order = mo::relaxed;
                        n.th[task_thread].push_back(r);
                        n.regs[t][i] = 0;
                        advance(n, t);
                        dfs(n);
                        continue;
                    }
                    r.order = mo::seq_cst;
                    for (unsigned pos = 0; pos <= s.co[in.loc].size(); ++pos) {
                        state n = s;
                        n.th[task_thread].push_back(f);
                        n.th[task_thread].push_back(r);
                        ev wr;
                        wr.kind = 'W';
                        wr.loc = in.loc;
                        wr.order = mo::seq_cst;
                        wr.rmw_write = true;
                        wr.val = in.v2;
                        n.th[task_thread].push_back(wr);
                        n.co[in.loc].insert(n.co[in.loc].begin() + pos,
                                            {int(task_thread), int(n.th[task_thread].size() - 1)});
                        n.th[task_thread].push_back(f);
                        n.regs[t][i] = 1;
                        advance(n, t);
                        dfs(n);
                    }
                }
                break;
            case op::cas:
            case op::claim:
            case op::fadd:
            case op::xchg:
                for (auto w : writes_of(in.loc)) {
                    const value_t old = value_of(w);
                    const bool ok = in.o == op::cas     ? old == in.v
                                    : in.o == op::claim ? (old & in.v2) == 0
                                                        : true;
                    ev r;
                    r.kind = 'U';
                    r.loc = in.loc;
                    r.order = ok ? in.order : in.fail_order;
                    r.val = old;
                    r.rf_t = w.first;
                    r.rf_i = w.second;
                    const bool cond = in.o == op::cas || in.o == op::claim;
                    const value_t res = cond ? (ok ? 1 : 0) : old;
                    if (!ok) {
                        state n = s;
                        n.th[task_thread].push_back(r);
                        n.regs[t][i] = res;
                        advance(n, t);
                        dfs(n);
                        continue;
                    }
                    for (unsigned pos = 0; pos <= s.co[in.loc].size(); ++pos) {
                        state n = s;
                        n.th[task_thread].push_back(r);
                        ev wr;
                        wr.kind = 'W';
                        wr.loc = in.loc;
                        wr.order = in.order;
                        wr.rmw_write = true;
                        wr.val = in.o == op::cas     ? in.v2
                                 : in.o == op::claim ? old | in.v
                                 : in.o == op::fadd  ? old + in.v
                                                     : in.v;
                        n.th[task_thread].push_back(wr);
                        n.co[in.loc].insert(n.co[in.loc].begin() + pos,
                                            {int(task_thread), int(n.th[task_thread].size() - 1)});
                        n.regs[t][i] = res;
                        advance(n, t);
                        dfs(n);
                    }
                }
                break;
            case op::fence: {
                state n = s;
                ev e;
                e.kind = 'F';
                e.order = in.order;
                n.th[task_thread].push_back(e);
                advance(n, t);
                dfs(n);
                break;
            }
            case op::assume: {
                state n = s;
                if (n.regs[t][unsigned(in.reg)] != in.v) {
                    ev e;
                    e.kind = 'B';
                    e.order = mo::plain;
                    n.th[task_thread].push_back(e);
                    n.blocked[t] = 1;
                } else {
                    advance(n, t);
                }
                dfs(n);
                break;
            }
        }
    }

    const prog& p_;
    memory_model m_;
    std::set<std::string> visited_;
};

}  // namespace kverify::dpor::test
