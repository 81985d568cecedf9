// SPDX-License-Identifier: GPL-2.0-only
// The real tests' pseudo-random numbers: xorshift64 (shifts 13, 7, 17). The same sequence for the
// same seed on every run, and usable in a signal handler (its only state is one word it owns).
// The seed must not be 0, which maps to itself.
#pragma once

#include <cstdint>

namespace kverify {

struct xorshift {
    std::uint64_t s;

    std::uint64_t next() {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        return s;
    }
    // In [lo, hi], by remainder: the bias is negligible for the small ranges tests draw from.
    std::int64_t in(std::int64_t lo, std::int64_t hi) {
        return lo + static_cast<std::int64_t>(next() % static_cast<std::uint64_t>(hi - lo + 1));
    }
};

}  // namespace kverify
