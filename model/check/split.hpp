// SPDX-License-Identifier: GPL-2.0-only
// The parts of a split search under the LKMM, joined (model/dpor/split.cpp): the parts overlap,
// and each lists the executions it counted by fingerprint. Every execution of the whole search
// is counted, in the chunk where the search's tree meets it first, by the owner of that chunk,
// and by no part in an earlier chunk; so the whole search's counts are those of the union of
// the lists, and the executions its first violation comes after are the union of what every part
// counted in the chunks before the violation's and what the owner of that chunk counted in it.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "model/check/verdict.hpp"

namespace kverify::model {

struct union_counts {
    std::uint64_t executions = 0, blocked = 0, stale = 0;  // stale: of the blocked ones
};

// The distinct executions the parts (by_part[i]: part i + 1 of by_part.size()) counted in the
// chunks up to `limit` (UINT64_MAX: all). A part counts runs in its own chunks only, so in chunk
// `limit` these are its owner's. Throws std::invalid_argument if two parts say one execution
// ended two ways (a fingerprint collision, or parts of different builds).
inline union_counts join_counted(const std::vector<const split_info*>& by_part,
                                 std::uint64_t limit = UINT64_MAX) {
    struct key_hash {
        std::size_t operator()(const std::pair<std::uint64_t, std::uint64_t>& k) const {
            return std::size_t(k.first ^ (k.second * 0x9e3779b97f4a7c15ull));
        }
    };
    std::unordered_map<std::pair<std::uint64_t, std::uint64_t>, counted_end::kind_t, key_hash> seen;
    const std::uint64_t n = by_part.size();
    for (std::uint64_t i = 0; i < n; ++i)
        for (const counted_end& e : by_part[i]->ends) {
            if (e.chunk > limit) continue;
            const auto [at, fresh] = seen.emplace(std::make_pair(e.a, e.b), e.kind);
            if (!fresh && at->second != e.kind)
                throw std::invalid_argument("parts " + std::to_string(i + 1) +
                                            " and another count one execution as ending two ways");
        }
    union_counts u;
    for (const auto& kv : seen) {
        u.executions += kv.second == counted_end::complete;
        u.blocked += kv.second != counted_end::complete;
        u.stale += kv.second == counted_end::stale;
    }
    return u;
}

}  // namespace kverify::model
