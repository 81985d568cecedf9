// SPDX-License-Identifier: GPL-2.0-only
// 128-bit hashes of sequences of 64-bit words: two independent mixes (splitmix64's finaliser on
// different seeds and inputs). The fingerprints of graphs and of the starts of runs
// (fingerprint.cpp) and the LKMM's keys of numbered graphs (lkmm_frame.cpp). Internal to
// model/dpor.
#pragma once

#include <cstddef>
#include <cstdint>

namespace kverify::dpor::detail {

struct hash128 {
    std::uint64_t a = 0, b = 0;
    friend bool operator==(const hash128& x, const hash128& y) { return x.a == y.a && x.b == y.b; }
    friend bool operator!=(const hash128& x, const hash128& y) { return !(x == y); }
};

class word_hash {
public:
    void add(std::uint64_t x) {
        h_.a = mix(h_.a ^ x);
        h_.b = mix(h_.b + x * 0x9e3779b97f4a7c15ull + 0x632be59bd9b4e019ull);
    }
    hash128 get() const { return h_; }

private:
    static std::uint64_t mix(std::uint64_t z) {
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
    }
    hash128 h_{1469598103934665603ull, 0x9e3779b97f4a7c15ull};
};

}  // namespace kverify::dpor::detail
