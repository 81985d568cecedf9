// SPDX-License-Identifier: GPL-2.0-only
// The LKMM oracle (oracle.hpp): the runs of the threads (runs.cpp) combined, one per thread,
// with every rf and co, each candidate checked by the model (lkmm.hpp), and herd7's summary.
#include "tests/lkmm_oracle/oracle.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "model/litmus/print.hpp"
#include "model/litmus/report.hpp"
#include "tests/lkmm_oracle/lkmm.hpp"

namespace kverify::lkmm_oracle {

using litmus::litmus_error;
using litmus::value;

namespace {

// The events of one combination of runs, numbered as a candidate's (lkmm.hpp), with po, rmw
// and the dependencies; rf and co empty.
candidate lay_out(const litmus::test& t, const std::vector<const thread_run*>& runs) {
    candidate c;
    c.n_init = unsigned(t.locations.size());
    unsigned n = c.n_init;
    for (const thread_run* r : runs) n += unsigned(r->events.size());
    if (n > max_events)
        throw litmus_error(t.threads.empty() ? litmus::src_pos{} : t.threads[0].pos,
                           "an execution of " + std::to_string(n) + " events (the oracle's " +
                               "limit is " + std::to_string(max_events) + ")");
    c.n = n;
    for (unsigned k = 0; k < c.n_init; ++k) {
        c.thread.push_back(-1);
        c.index.push_back(k);
        c.ev.push_back(nullptr);
        c.init.push_back(t.locations[k].init);
    }
    std::vector<unsigned> start;
    for (unsigned th = 0; th < runs.size(); ++th) {
        start.push_back(unsigned(c.ev.size()));
        for (unsigned j = 0; j < runs[th]->events.size(); ++j) {
            c.thread.push_back(int(th));
            c.index.push_back(j);
            c.ev.push_back(&runs[th]->events[j]);
        }
    }
    c.po = relation(n);
    c.rf = relation(n);
    c.co = relation(n);
    c.rmw = relation(n);
    c.addr = relation(n);
    c.data = relation(n);
    c.ctrl = relation(n);
    for (unsigned th = 0; th < runs.size(); ++th) {
        const std::vector<event>& evs = runs[th]->events;
        const unsigned s = start[th];
        for (unsigned a = 0; a < evs.size(); ++a) {
            for (unsigned b = a + 1; b < evs.size(); ++b) c.po.add(s + a, s + b);
            // A lock's LKR-LKW pair is lk-rmw, which lock.cat derives (merge_locks).
            if (evs[a].rmw_write >= 0 && evs[a].lock == lock_role::none)
                c.rmw.add(s + a, s + unsigned(evs[a].rmw_write));
            for (unsigned d : evs[a].addr) c.addr.add(s + d, s + a);
            for (unsigned d : evs[a].data) c.data.add(s + d, s + a);
            for (unsigned d : evs[a].ctrl) c.ctrl.add(s + d, s + a);
        }
    }
    return c;
}

// Every order of `ws` (one location's writes), with `prune` only those that keep each thread's
// writes in program order; `last`, when given, comes last (lock.cat's co0 puts an unmatched
// LKW after every LKW of its lock).
void orders(const candidate& c, std::vector<unsigned> ws, int last, bool prune,
            std::vector<std::vector<unsigned>>& out) {
    std::sort(ws.begin(), ws.end());
    do {
        bool ok = last < 0 || ws.back() == unsigned(last);
        for (unsigned a = 0; ok && prune && a < ws.size(); ++a)
            for (unsigned b = a + 1; ok && b < ws.size(); ++b)
                if (c.po.has(ws[b], ws[a])) ok = false;
        if (ok) out.push_back(ws);
    } while (std::next_permutation(ws.begin(), ws.end()));
}

// The choices of one combination: the sources each read may read from, and the coherence
// orders of each location.
struct choices {
    std::vector<unsigned> reads;                                // events that choose their rf
    std::vector<std::vector<unsigned>> sources;                 // per such read
    std::vector<unsigned> locs;                                 // locations with writes
    std::vector<std::vector<std::vector<unsigned>>> co_orders;  // per such location
    relation fixed_rf;                                          // lock.cat's rfi-lf: not a choice
};

bool choose(const candidate& c, bool prune, choices& ch) {
    ch.fixed_rf = relation(c.n);
    std::map<unsigned, std::vector<unsigned>> writes;  // per location, IW excluded
    std::map<unsigned, int> unmatched;
    for (unsigned e = c.n_init; e < c.n; ++e) {
        const event& v = *c.ev[e];
        if (v.kind != ev_kind::write || v.lock == lock_role::ul) continue;
        writes[v.loc].push_back(e);
        if (v.lock != lock_role::lkw) continue;
        // critical: the next lock event of this lock in the thread is a UL.
        bool matched = false;
        for (unsigned f = e + 1; f < c.n && c.thread[f] == c.thread[e]; ++f) {
            const event& u = *c.ev[f];
            if (u.loc != v.loc || (u.lock != lock_role::lkw && u.lock != lock_role::ul)) continue;
            matched = u.lock == lock_role::ul;
            break;
        }
        if (!matched) {
            if (unmatched.count(v.loc)) return false;  // two unmatched LKWs: co0 is cyclic
            unmatched[v.loc] = int(e);
        }
    }
    for (unsigned e = c.n_init; e < c.n; ++e) {
        const event& r = *c.ev[e];
        if (r.kind != ev_kind::read || r.lock == lock_role::lkr) continue;
        std::vector<unsigned> src;
        if (r.lock == lock_role::none) {
            if (c.init[r.loc] == r.val) src.push_back(r.loc);
            for (unsigned w : writes[r.loc])
                if (c.ev[w]->val == r.val) src.push_back(w);
        } else if (r.lock == lock_role::lf || r.lock == lock_role::rl) {
            // rfi-lf: the LKWs before it in its thread with no UL between; else an LKW of
            // another thread.
            bool inside = false;
            for (unsigned f = e; f-- > c.n_init && c.thread[f] == c.thread[e];) {
                const event& u = *c.ev[f];
                if (u.loc != r.loc) continue;
                if (u.lock == lock_role::ul) break;
                if (u.lock == lock_role::lkw) {
                    ch.fixed_rf.add(f, e);
                    inside = true;
                }
            }
            if (inside) continue;
            for (unsigned w : writes[r.loc])
                if (c.thread[w] != c.thread[e]) src.push_back(w);
        } else {  // RU: the last UL before it in its thread, a UL of another thread, or IW
            src.push_back(r.loc);
            for (unsigned f = e; f-- > c.n_init && c.thread[f] == c.thread[e];)
                if (c.ev[f]->loc == r.loc && c.ev[f]->lock == lock_role::ul) {
                    src.push_back(f);
                    break;
                }
            for (unsigned f = c.n_init; f < c.n; ++f)
                if (c.thread[f] != c.thread[e] && c.ev[f]->kind == ev_kind::write &&
                    c.ev[f]->loc == r.loc && c.ev[f]->lock == lock_role::ul)
                    src.push_back(f);
        }
        if (src.empty()) return false;
        ch.reads.push_back(e);
        ch.sources.push_back(src);
    }
    for (const auto& [loc, ws] : writes) {
        ch.locs.push_back(loc);
        ch.co_orders.emplace_back();
        const auto u = unmatched.find(loc);
        orders(c, ws, u == unmatched.end() ? -1 : u->second, prune, ch.co_orders.back());
        if (ch.co_orders.back().empty()) return false;
    }
    return true;
}

std::string event_name(const candidate& c, unsigned e) {
    if (!c.ev[e]) return "init";
    return "P" + std::to_string(c.thread[e]) + ":" + std::to_string(c.index[e]);
}

std::string key_of(const litmus::test& t, const candidate& c) {
    std::string k;
    for (unsigned th = 0; th < t.threads.size(); ++th) {
        k += "P" + std::to_string(th) + ":";
        bool first = true;
        for (unsigned e = c.n_init; e < c.n; ++e) {
            if (c.thread[e] != int(th)) continue;
            const event& v = *c.ev[e];
            k += first ? " " : "; ";
            first = false;
            if (v.kind == ev_kind::fence) {
                k += std::string("F ") + litmus::to_string(v.fence);
                continue;
            }
            k += (v.kind == ev_kind::read ? "R " : "W ") + t.locations[v.loc].name + "=" +
                 litmus::value_text(t, v.val);
            if (v.kind != ev_kind::read) continue;
            k += "<-";
            bool any = false;
            for (unsigned w = 0; w < c.n; ++w)
                if (c.rf.has(w, e)) {
                    k += (any ? "," : "") + event_name(c, w);
                    any = true;
                }
            if (!any) k += "?";
        }
        k += "\n";
    }
    std::vector<unsigned> by_name(t.locations.size());
    for (unsigned l = 0; l < by_name.size(); ++l) by_name[l] = l;
    std::sort(by_name.begin(), by_name.end(),
              [&](unsigned a, unsigned b) { return t.locations[a].name < t.locations[b].name; });
    for (unsigned l : by_name) {
        std::vector<std::pair<unsigned, unsigned>> ws;  // (co-predecessors, event)
        for (unsigned w = c.n_init; w < c.n; ++w) {
            if (c.ev[w]->kind != ev_kind::write || c.ev[w]->loc != l || !c.co.has(l, w)) continue;
            unsigned before = 0;
            for (unsigned x = 0; x < c.n; ++x) before += c.co.has(x, w) ? 1 : 0;
            ws.emplace_back(before, w);
        }
        std::sort(ws.begin(), ws.end());
        k += "co " + t.locations[l].name + ": init";
        for (const auto& [before, w] : ws) k += " " + event_name(c, w);
        k += "\n";
    }
    return k;
}

// The final value of location l: its last write in co.
value final_value(const candidate& c, unsigned l) {
    unsigned last = l;
    for (unsigned w = c.n_init; w < c.n; ++w)
        if (c.ev[w]->kind == ev_kind::write && c.ev[w]->loc == l && c.co.has(last, w)) last = w;
    return c.ev[last] ? c.ev[last]->val : c.init[l];
}

// Whether coherence (with atomicity: `atomic`) rules out write w as the source of read r under
// `co` (before the ULs are merged): a write of r's thread before r and after w in co, one after
// r and not after w, or, for an RMW's read, a w not just before the RMW's write in co.
bool incoherent_source(const candidate& c, const relation& co, unsigned w, unsigned r,
                       bool atomic) {
    const event& rv = *c.ev[r];
    const unsigned first = r - c.index[r];  // the thread's event 0
    if (atomic && rv.rmw_write >= 0) {
        const unsigned own = first + unsigned(rv.rmw_write);
        if (!co.has(w, own)) return true;
        for (unsigned x = 0; x < c.n; ++x)
            if (co.has(w, x) && co.has(x, own)) return true;
    }
    for (unsigned f = first; f < c.n && c.thread[f] == c.thread[r]; ++f) {
        const event& e = *c.ev[f];
        if (f == r || e.kind != ev_kind::write || e.loc != rv.loc) continue;
        if (f < r ? co.has(w, f) : !co.has(w, f)) return true;
    }
    return false;
}

// The next choice of an odometer whose wheel k has sizes[k] positions; false after the last.
bool step(std::vector<unsigned>& pick, const std::vector<unsigned>& sizes) {
    for (unsigned k = 0; k < pick.size(); ++k) {
        if (++pick[k] < sizes[k]) return true;
        pick[k] = 0;
    }
    return false;
}

// Every candidate of one combination of runs; the consistent ones into `res`. co first, then
// the rf of each read among the sources that co leaves it (with pruning, as coherence would).
void explore(const litmus::test& t, const std::vector<const thread_run*>& runs,
             const std::vector<litmus::rloc>& observed, const oracle_options& opt,
             oracle_result& res) {
    const bool coherent = opt.prune && opt.mut != mutation::no_coherence;
    const bool atomic = coherent && opt.mut != mutation::no_atomic;
    const candidate base = lay_out(t, runs);
    choices ch;
    if (!choose(base, coherent, ch)) return;
    std::vector<unsigned> co_pick(ch.locs.size(), 0), co_sizes;
    for (const auto& o : ch.co_orders) co_sizes.push_back(unsigned(o.size()));
    do {
        relation co(base.n);
        for (unsigned k = 0; k < ch.locs.size(); ++k) {
            const std::vector<unsigned>& order = ch.co_orders[k][co_pick[k]];
            std::vector<unsigned> chain{ch.locs[k]};  // the initial write first
            chain.insert(chain.end(), order.begin(), order.end());
            for (unsigned a = 0; a < chain.size(); ++a)
                for (unsigned b = a + 1; b < chain.size(); ++b) co.add(chain[a], chain[b]);
        }
        std::vector<std::vector<unsigned>> sources = ch.sources;
        bool some = true;
        for (unsigned k = 0; k < sources.size() && some && coherent; ++k) {
            if (base.ev[ch.reads[k]]->lock != lock_role::none) continue;
            std::vector<unsigned>& src = sources[k];
            src.erase(std::remove_if(src.begin(), src.end(),
                                     [&](unsigned w) {
                                         return incoherent_source(base, co, w, ch.reads[k], atomic);
                                     }),
                      src.end());
            some = !src.empty();
        }
        if (!some) continue;
        std::vector<unsigned> rf_pick(sources.size(), 0), rf_sizes;
        for (const auto& s : sources) rf_sizes.push_back(unsigned(s.size()));
        do {
            if (++res.candidates > opt.max_candidates)
                throw litmus_error(t.cond.pos, "more than " + std::to_string(opt.max_candidates) +
                                                   " candidate executions (the oracle's limit)");
            candidate c = base;
            c.co = co;
            c.rf = ch.fixed_rf;
            for (unsigned k = 0; k < ch.reads.size(); ++k)
                c.rf.add(sources[k][rf_pick[k]], ch.reads[k]);
            merge_locks(c);
            const model_verdict v = check_lkmm(c, opt.mut);
            if (!v.consistent) continue;
            if (opt.porf_acyclic && !(c.po | c.rf).acyclic()) {
                ++res.porf_cyclic;
                if (v.flags.empty()) ++res.porf_cyclic_unflagged;
                continue;
            }
            // A value read through a cycle of rf and data (plain accesses: hb forbids it for
            // marked ones) is one herd7 leaves symbolic, as it prints it: not ours to print.
            if (opt.mut == mutation::none && !(c.rf | c.data).acyclic())
                throw litmus_error(t.cond.pos,
                                   "an execution with values out of thin air (a cycle of rf "
                                   "and data dependencies), which herd7 leaves symbolic");
            execution x;
            x.key = key_of(t, c);
            x.flags = v.flags;
            for (const litmus::rloc& r : observed)
                x.state.push_back(r.is_reg ? runs[r.thread]->regs[r.index]
                                           : final_value(c, r.index));
            res.flags.insert(v.flags.begin(), v.flags.end());
            res.executions.push_back(std::move(x));
        } while (step(rf_pick, rf_sizes));
    } while (step(co_pick, co_sizes));
}

void summarise(const litmus::test& t, const std::vector<litmus::rloc>& observed,
               oracle_result& res) {
    auto less = [](const std::vector<value>& a, const std::vector<value>& b) {
        return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end(),
                                            [](const value& x, const value& y) {
                                                if (x.is_ptr != y.is_ptr)
                                                    return x.is_ptr < y.is_ptr;
                                                return x.is_ptr ? x.loc < y.loc : x.i < y.i;
                                            });
    };
    std::map<std::vector<value>, std::uint64_t, decltype(less)> count(less);
    for (const execution& x : res.executions) ++count[x.state];
    std::vector<std::pair<std::vector<value>, std::uint64_t>> finals(count.begin(), count.end());
    const litmus::outcome o = litmus::herd_report(t, observed, finals);
    res.observation = o.observation;
    // herd7's block with its Flag lines after the Witnesses.
    std::string text = o.text;
    const std::size_t w = text.find("Positive: ");
    const std::size_t eol = text.find('\n', w);
    std::string flags;
    for (const std::string& f : res.flags) flags += "Flag " + f + "\n";
    text.insert(eol + 1, flags);
    res.herd_text = text;
    res.ok = text.find("\nOk\n") != std::string::npos;
    const std::string pos = text.substr(w);
    res.positive = std::stoull(pos.substr(10));
    res.negative = std::stoull(pos.substr(pos.find("Negative: ") + 10));
    // The state lines, between "States N" and Ok/No, without their last ';'.
    std::size_t at = text.find('\n', text.find("States ")) + 1;
    for (;;) {
        const std::size_t end = text.find('\n', at);
        const std::string line = text.substr(at, end - at);
        if (line == "Ok" || line == "No") break;
        res.states.push_back(line.substr(0, line.size() - 1));
        at = end + 1;
    }
}

// A (location, value) pair as one number, for the reads a run needs and the writes it offers.
std::uint64_t loc_value(unsigned loc, const value& v) {
    const std::uint64_t x = v.is_ptr ? (std::uint64_t(1) << 32) | v.loc : std::uint32_t(v.i);
    return (std::uint64_t(loc) << 33) | x;
}

struct run_values {
    std::set<std::uint64_t> needs;   // values its ordinary reads take, beside initial values
    std::set<std::uint64_t> offers;  // values its ordinary writes write
};

// The combinations of one run per thread, depth first, skipping those in which a read takes a
// value that no write of the combination writes (it would have no rf: no candidate at all).
class combiner {
public:
    combiner(const litmus::test& t, const std::vector<std::vector<thread_run>>& runs,
             const oracle_options& opt, oracle_result& res)
        : t_(t), runs_(runs), opt_(opt), res_(res), observed_(litmus::observed_rlocs(t)) {
        vals_.resize(runs.size());
        may_.resize(runs.size() + 1);
        for (unsigned th = 0; th < runs.size(); ++th)
            for (const thread_run& r : runs[th]) {
                run_values v;
                for (const event& e : r.events) {
                    if (e.lock != lock_role::none || e.kind == ev_kind::fence) continue;
                    if (e.kind == ev_kind::write)
                        v.offers.insert(loc_value(e.loc, e.val));
                    else if (e.val != t.locations[e.loc].init)
                        v.needs.insert(loc_value(e.loc, e.val));
                }
                vals_[th].push_back(v);
            }
        // may_[k]: what the runs of threads k.. may offer.
        for (unsigned th = unsigned(runs.size()); th-- > 0;) {
            may_[th] = may_[th + 1];
            for (const run_values& v : vals_[th]) may_[th].insert(v.offers.begin(), v.offers.end());
        }
        now_.resize(runs.size());
        pick_.resize(runs.size());
    }
    void all() { level(0); }

private:
    void level(unsigned th) {
        if (th == runs_.size()) return explore(t_, now_, observed_, opt_, res_);
        for (unsigned k = 0; k < runs_[th].size(); ++k) {
            now_[th] = &runs_[th][k];
            pick_[th] = k;
            if (!opt_.prune || viable(th)) level(th + 1);
        }
    }
    bool viable(unsigned upto) const {
        std::set<std::uint64_t> avail = may_[upto + 1];
        for (unsigned th = 0; th <= upto; ++th) {
            const std::set<std::uint64_t>& o = vals_[th][pick_[th]].offers;
            avail.insert(o.begin(), o.end());
        }
        for (unsigned th = 0; th <= upto; ++th)
            for (std::uint64_t need : vals_[th][pick_[th]].needs)
                if (!avail.count(need)) return false;
        return true;
    }

    const litmus::test& t_;
    const std::vector<std::vector<thread_run>>& runs_;
    const oracle_options& opt_;
    oracle_result& res_;
    const std::vector<litmus::rloc> observed_;
    std::vector<std::vector<run_values>> vals_;
    std::vector<std::set<std::uint64_t>> may_;
    std::vector<const thread_run*> now_;
    std::vector<unsigned> pick_;
};

}  // namespace

oracle_result run_oracle(const litmus::test& t, const oracle_options& opt) {
    const std::vector<std::vector<thread_run>> runs = thread_runs(t);
    oracle_result res;
    combiner(t, runs, opt, res).all();
    std::sort(res.executions.begin(), res.executions.end(),
              [](const execution& a, const execution& b) { return a.key < b.key; });
    summarise(t, litmus::observed_rlocs(t), res);
    return res;
}

}  // namespace kverify::lkmm_oracle
