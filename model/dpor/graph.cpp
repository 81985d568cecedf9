// SPDX-License-Identifier: GPL-2.0-only
// Execution graph helpers (see graph.hpp).
#include "model/dpor/graph.hpp"

#include "model/dpor/explorer.hpp"

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <map>

namespace kverify::dpor::detail {

std::size_t graph::co_index(eid w) const { return index_in(co.at(at(w).loc), w); }

eid graph::co_next(eid w) const {
    const auto& list = co.at(at(w).loc);
    for (std::size_t k = 0; k + 1 < list.size(); ++k)
        if (list[k] == w) return list[k + 1];
    return eid{};
}

std::uint32_t graph::prefix_len(unsigned t, std::uint32_t s) const {
    const auto& ev = th[t];
    std::uint32_t n = 0;
    while (n < ev.size() && ev[n].stamp <= s) ++n;
    return n;
}

void graph::assign(const graph& o) {
    th = o.th;  // (element by element: each thread's list keeps its buffer)
    deps = o.deps;
    for (auto it = co.begin(); it != co.end();)
        it = o.co.count(it->first) ? std::next(it) : co.erase(it);
    for (const auto& [loc, list] : o.co) co[loc] = list;
    next_stamp = o.next_stamp;
    spawn_at = o.spawn_at;
    partial = o.partial;
    in_place = o.in_place;
}

void graph::cut_to_prefix(const std::vector<std::uint32_t>& keep) {
    for (unsigned t = 0; t < th.size(); ++t)
        if (keep[t] < th[t].size()) th[t].resize(keep[t]);
    if (!th.empty() && spawn_at != UINT32_MAX && th[0].size() < spawn_at) spawn_at = UINT32_MAX;
    for (auto it = co.begin(); it != co.end();) {
        auto& list = it->second;
        list.erase(
            std::remove_if(list.begin(), list.end(), [&](eid w) { return w.i >= th[w.t].size(); }),
            list.end());
        if (list.empty())
            it = co.erase(it);
        else
            ++it;
    }
}

void graph::repoint_lost_reads() {
    for (auto& t : th)
        for (event& e : t)
            if (e.is_read() && (e.rf.i >= th[e.rf.t].size() || at(e.rf).kind == ek::hole)) {
                e.rf = co_max(e.loc);
                e.val = at(e.rf).val;
            }
}

void graph::cut_to_keep(const std::vector<std::vector<char>>& keep) {
    for (unsigned t = 0; t < th.size(); ++t) {
        std::size_t last = 0;  // one past the last kept event
        for (std::size_t i = 0; i < th[t].size(); ++i)
            if (i < keep[t].size() && keep[t][i] && th[t][i].kind != ek::hole) last = i + 1;
        th[t].resize(last);
        for (std::size_t i = 0; i < last; ++i)
            if (!keep[t][i] && th[t][i].kind != ek::hole) {
                event h;
                h.kind = ek::hole;
                h.stamp = UINT32_MAX;  // never kept by a stamp
                h.where = th[t][i].where;
                h.rmw = th[t][i].is_write() ? th[t][i].rmw : rmw_op::none;  // an RMW's write half
                th[t][i] = h;
            }
    }
    if (!th.empty() && spawn_at != UINT32_MAX && th[0].size() < spawn_at) spawn_at = UINT32_MAX;
    for (auto it = co.begin(); it != co.end();) {
        auto& list = it->second;
        list.erase(
            std::remove_if(list.begin(), list.end(),
                           [&](eid w) { return w.i >= th[w.t].size() || at(w).kind == ek::hole; }),
            list.end());
        if (list.empty())
            it = co.erase(it);
        else
            ++it;
    }
}

void graph::cut_to_stamp_holes(std::uint32_t s) {
    std::vector<std::vector<char>> keep(th.size());
    for (unsigned t = 0; t < th.size(); ++t) {
        keep[t].resize(th[t].size());
        for (std::size_t i = 0; i < th[t].size(); ++i)
            keep[t][i] = th[t][i].kind != ek::hole && th[t][i].stamp <= s;
    }
    cut_to_keep(keep);
    next_stamp = s + 1;
}

namespace {
// Moves the references to events of thread t at places >= i by delta (+1 or -1).
void shift_refs(graph& g, unsigned t, std::uint32_t i, int delta) {
    auto fix = [&](eid& x) {
        if (x.valid() && x.t == t && x.i >= i) x.i = std::uint32_t(int(x.i) + delta);
    };
    for (auto& th : g.th)
        for (event& e : th)
            if (e.is_read()) fix(e.rf);
    for (auto& kv : g.co)
        for (eid& w : kv.second) fix(w);
    std::vector<char> seen(g.deps.size(), 0);
    for (event& e : g.th[t])
        if (e.deps && !seen[e.deps - 1]) {
            seen[e.deps - 1] = 1;
            dep_rec d = *g.deps[e.deps - 1];  // (shared with the graph's copies)
            for (auto* v : {&d.addr, &d.data, &d.ctrl})
                for (std::uint32_t& k : *v)
                    if (k >= i) k = std::uint32_t(int(k) + delta);
            // The opaque reads move too (a list of its own: the old one stays with the copies),
            // or the next replay, whose reads have their new places, would find the event
            // annotated otherwise and drop the graph (annotate.cpp, check_annotation).
            if (d.opaque && !d.opaque->all.empty() && d.opaque->all.back() >= i) {
                auto moved = std::make_shared<opaque_list_node>();
                moved->all = d.opaque->all;
                for (std::uint32_t& k : moved->all)
                    if (k >= i) k = std::uint32_t(int(k) + delta);
                moved->added = moved->all;
                d.opaque = std::move(moved);
            }
            g.deps[e.deps - 1] = std::make_shared<const dep_rec>(std::move(d));
        }
    if (t == 0 && g.spawn_at != UINT32_MAX && g.spawn_at >= i)
        g.spawn_at = std::uint32_t(int(g.spawn_at) + delta);
}
}  // namespace

void graph::insert_event(unsigned t, std::uint32_t i, const event& e) {
    shift_refs(*this, t, i, +1);
    th[t].insert(th[t].begin() + i, e);
}

void graph::erase_event(unsigned t, std::uint32_t i) {
    for (auto& kv : co)  // the event itself leaves coherence
        kv.second.erase(std::remove(kv.second.begin(), kv.second.end(), eid{std::uint16_t(t), i}),
                        kv.second.end());
    th[t].erase(th[t].begin() + i);
    shift_refs(*this, t, i + 1, -1);
}

void graph::cut_to_stamp(std::uint32_t s) {
    std::vector<std::uint32_t> keep(th.size());
    for (unsigned t = 0; t < th.size(); ++t) keep[t] = prefix_len(t, s);
    cut_to_prefix(keep);
    next_stamp = s + 1;
}

std::string graph::canonical() const { return text(nullptr, nullptr); }

std::string graph::projection(const std::function<bool(std::uintptr_t)>& hidden,
                              const pointer_names& names) const {
    return text(&hidden, &names);
}

// canonical() (hidden null: every event, locations ranked by address, an event numbered by its
// place in its thread) and projection() (the hidden locations' accesses and every event that is
// no access or fence left out, the others numbered among their thread's accesses, locations
// named in the order of their first access, pointers by `names`).
std::string graph::text(const std::function<bool(std::uintptr_t)>* hidden,
                        const pointer_names* names) const {
    std::map<std::uintptr_t, unsigned> name;
    std::vector<std::vector<std::uint32_t>> num(th.size());  // (projection)
    if (!hidden) {
        for (const auto& t : th)
            for (const event& e : t)
                if (e.is_access()) name.emplace(e.loc, 0);
        unsigned r = 0;
        for (auto& kv : name) kv.second = r++;
    } else {
        for (unsigned t = 0; t < th.size(); ++t) {
            std::uint32_t k = 0;
            for (const event& e : th[t]) {
                const bool shown = e.is_access() && !(*hidden)(e.loc);
                num[t].push_back(shown ? k++ : UINT32_MAX);
                if (shown) name.emplace(e.loc, unsigned(name.size()));
            }
        }
    }
    const auto number = [&](eid e) { return hidden ? num[e.t][e.i] : std::uint32_t(e.i); };
    const auto value = [names](const event& e) {
        return static_cast<unsigned long long>(
            names && names->holds_pointers(e.loc) ? names->value(e.val) : e.val);
    };
    std::string s;
    char buf[96];
    for (unsigned t = 0; t < th.size(); ++t) {
        std::snprintf(buf, sizeof buf, "T%u:", t);
        s += buf;
        for (const event& e : th[t]) {
            if (hidden && e.kind != ek::fence && (!e.is_access() || (*hidden)(e.loc))) continue;
            switch (e.kind) {
                case ek::read:
                    std::snprintf(buf, sizeof buf, " %c%u=%llu@%u.%u",
                                  e.full                  ? 'V'
                                  : e.rmw != rmw_op::none ? 'U'
                                                          : 'R',
                                  name.at(e.loc), value(e), e.rf.t, number(e.rf));
                    break;
                case ek::write:
                    std::snprintf(buf, sizeof buf, " %c%u=%llu", e.init ? 'I' : 'W', name.at(e.loc),
                                  value(e));
                    break;
                case ek::fence:
                    std::snprintf(buf, sizeof buf, " F%s", to_string(e.order));
                    break;
                case ek::choice:
                    std::snprintf(buf, sizeof buf, " C%llu",
                                  static_cast<unsigned long long>(e.val));
                    break;
                case ek::block:
                    std::snprintf(buf, sizeof buf, " B");
                    break;
                case ek::hole:
                    std::snprintf(buf, sizeof buf, " H");
                    break;
            }
            s += buf;
        }
        s += "\n";
    }
    std::vector<std::uintptr_t> by_name(name.size());
    for (const auto& kv : name) by_name[kv.second] = kv.first;
    for (unsigned l = 0; l < by_name.size(); ++l) {
        std::snprintf(buf, sizeof buf, "co%u:", l);
        s += buf;
        for (eid w : co.at(by_name[l])) {
            std::snprintf(buf, sizeof buf, " %u.%u", w.t, number(w));
            s += buf;
        }
        s += "\n";
    }
    return s;
}

}  // namespace kverify::dpor::detail
