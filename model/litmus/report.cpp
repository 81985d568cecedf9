// SPDX-License-Identifier: GPL-2.0-only
// herd7's output for a litmus test (report.hpp).
#include "model/litmus/report.hpp"

#include <algorithm>
#include <map>

#include "model/litmus/print.hpp"

namespace kverify::litmus {

namespace {

// herd7's order of registers and locations: registers first, by thread, then by name (as
// strings: r10 before r2); then locations by name.
int compare(const test& t, const rloc& a, const rloc& b) {
    if (a.is_reg != b.is_reg) return a.is_reg ? -1 : 1;
    if (a.is_reg) {
        if (a.thread != b.thread) return a.thread < b.thread ? -1 : 1;
        return t.threads[a.thread].regs[a.index].name.compare(
            t.threads[b.thread].regs[b.index].name);
    }
    return t.locations[a.index].name.compare(t.locations[b.index].name);
}

// herd7's order of values: ints (signed) before addresses, addresses by the location's name.
int compare(const test& t, const value& a, const value& b) {
    if (a.is_ptr != b.is_ptr) return a.is_ptr ? 1 : -1;
    if (a.is_ptr) return t.locations[a.loc].name.compare(t.locations[b.loc].name);
    return a.i < b.i ? -1 : a.i > b.i ? 1 : 0;
}

void atoms(const prop& p, std::vector<rloc>& out) {
    if (p.kind == prop_kind::atom) out.push_back(p.lhs);
    for (const prop& k : p.kids) atoms(k, out);
}

std::vector<rloc> sorted_unique(const test& t, std::vector<rloc> v) {
    std::sort(v.begin(), v.end(),
              [&](const rloc& a, const rloc& b) { return compare(t, a, b) < 0; });
    v.erase(std::unique(v.begin(), v.end(),
                        [&](const rloc& a, const rloc& b) { return compare(t, a, b) == 0; }),
            v.end());
    return v;
}

bool same(const rloc& a, const rloc& b) {
    return a.is_reg == b.is_reg && a.index == b.index && (!a.is_reg || a.thread == b.thread);
}

}  // namespace

std::vector<rloc> displayed_rlocs(const test& t) {
    std::vector<rloc> v = t.shown;
    atoms(t.cond.p, v);
    return sorted_unique(t, v);
}

std::vector<rloc> observed_rlocs(const test& t) {
    std::vector<rloc> v = displayed_rlocs(t);
    if (t.filter) atoms(*t.filter, v);
    return sorted_unique(t, v);
}

bool holds(const prop& p, const std::vector<rloc>& observed, const std::vector<value>& state) {
    switch (p.kind) {
        case prop_kind::atom:
            for (unsigned k = 0; k < observed.size(); ++k)
                if (same(observed[k], p.lhs)) return state[k] == p.rhs;
            return false;  // not observed: cannot happen, observed_rlocs has every atom
        case prop_kind::true_:
            return true;
        case prop_kind::false_:
            return false;
        case prop_kind::not_:
            return !holds(p.kids[0], observed, state);
        case prop_kind::and_:
            return holds(p.kids[0], observed, state) && holds(p.kids[1], observed, state);
        case prop_kind::or_:
            return holds(p.kids[0], observed, state) || holds(p.kids[1], observed, state);
        case prop_kind::implies:
            return !holds(p.kids[0], observed, state) || holds(p.kids[1], observed, state);
    }
    return false;
}

outcome herd_report(const test& t, const std::vector<rloc>& observed,
                    const std::vector<std::pair<std::vector<value>, std::uint64_t>>& finals,
                    const std::vector<std::string>& flags) {
    const std::vector<rloc> shown = displayed_rlocs(t);
    std::vector<unsigned> column;  // where each shown one is in `observed`
    for (const rloc& r : shown)
        for (unsigned k = 0; k < observed.size(); ++k)
            if (same(observed[k], r)) column.push_back(k);

    outcome o;
    auto less = [&](const std::vector<value>& a, const std::vector<value>& b) {
        for (unsigned k = 0; k < a.size(); ++k)
            if (const int c = compare(t, a[k], b[k])) return c < 0;
        return false;
    };
    std::map<std::vector<value>, bool, decltype(less)> states(less);
    for (const auto& [state, n] : finals) {
        if (t.filter && !holds(*t.filter, observed, state)) continue;  // herd7 drops them
        const bool ok = holds(t.cond.p, observed, state);
        (ok ? o.positive : o.negative) += n;
        std::vector<value> row;
        for (unsigned c : column) row.push_back(state[c]);
        states.emplace(row, true);
    }
    static const char* const kind[] = {"Allowed", "Forbidden", "Required"};
    std::string& s = o.text;
    s += "Test " + t.name + " " + kind[unsigned(t.cond.q)] + "\n";
    s += "States " + std::to_string(states.size()) + "\n";
    for (const auto& st : states) {
        std::string line;
        for (unsigned k = 0; k < shown.size(); ++k)
            line +=
                (k ? " " : "") + rloc_text(t, shown[k]) + "=" + value_text(t, st.first[k]) + ";";
        s += line + "\n";
    }
    bool ok = false;
    std::uint64_t wpos = o.positive, wneg = o.negative;
    switch (t.cond.q) {
        case quantifier::exists:
            ok = o.positive > 0;
            break;
        case quantifier::not_exists:
            ok = o.positive == 0;
            std::swap(wpos, wneg);
            break;
        case quantifier::forall:
            ok = o.negative == 0;
            break;
    }
    o.observation = o.positive == 0 ? "Never" : o.negative == 0 ? "Always" : "Sometimes";
    s += ok ? "Ok\n" : "No\n";
    s += "Witnesses\n";
    s += "Positive: " + std::to_string(wpos) + " Negative: " + std::to_string(wneg) + "\n";
    for (const std::string& f : flags) s += "Flag " + f + "\n";
    s += "Condition " + condition_text(t) + "\n";
    s += "Observation " + t.name + " " + o.observation + " " + std::to_string(o.positive) + " " +
         std::to_string(o.negative) + "\n\n";
    return o;
}

}  // namespace kverify::litmus
