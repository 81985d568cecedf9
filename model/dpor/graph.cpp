// SPDX-License-Identifier: GPL-2.0-only
// Execution graph helpers (see graph.hpp).
#include "model/dpor/graph.hpp"

#include <algorithm>
#include <cstdio>
#include <map>

namespace kverify::dpor::detail {

std::size_t graph::co_index(eid w) const {
    const auto& list = co.at(at(w).loc);
    for (std::size_t k = 0; k < list.size(); ++k)
        if (list[k] == w) return k;
    return list.size();
}

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

void graph::cut_to_stamp(std::uint32_t s) {
    std::vector<std::uint32_t> keep(th.size());
    for (unsigned t = 0; t < th.size(); ++t) keep[t] = prefix_len(t, s);
    cut_to_prefix(keep);
    next_stamp = s + 1;
}

std::string graph::canonical() const {
    std::map<std::uintptr_t, unsigned> rank;
    for (const auto& t : th)
        for (const event& e : t)
            if (e.is_access()) rank.emplace(e.loc, 0);
    unsigned r = 0;
    for (auto& kv : rank) kv.second = r++;
    std::string s;
    char buf[96];
    for (unsigned t = 0; t < th.size(); ++t) {
        std::snprintf(buf, sizeof buf, "T%u:", t);
        s += buf;
        for (const event& e : th[t]) {
            switch (e.kind) {
                case ek::read:
                    std::snprintf(buf, sizeof buf, " %c%u=%llu@%u.%u",
                                  e.rmw != rmw_op::none ? 'U' : 'R', rank[e.loc],
                                  static_cast<unsigned long long>(e.val), e.rf.t,
                                  static_cast<unsigned>(e.rf.i));
                    break;
                case ek::write:
                    std::snprintf(buf, sizeof buf, " %c%u=%llu", e.init ? 'I' : 'W', rank[e.loc],
                                  static_cast<unsigned long long>(e.val));
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
            }
            s += buf;
        }
        s += "\n";
    }
    for (const auto& kv : rank) {
        std::snprintf(buf, sizeof buf, "co%u:", kv.second);
        s += buf;
        for (eid w : co.at(kv.first)) {
            std::snprintf(buf, sizeof buf, " %u.%u", w.t, static_cast<unsigned>(w.i));
            s += buf;
        }
        s += "\n";
    }
    return s;
}

}  // namespace kverify::dpor::detail
