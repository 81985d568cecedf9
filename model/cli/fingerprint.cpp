// SPDX-License-Identifier: GPL-2.0-only
// The fingerprint of a saved counterexample: what a replay file must match before `kverify
// replay` runs it (the check, its configuration, the engine, the search and the replay string
// itself), so that an edited, foreign or garbage file is refused instead of "not reproducing".
#include <cstdio>

#include "model/cli/cli.hpp"

namespace kverify::cli {
namespace {

// FNV-1a over the bytes of each part, each part followed by its length: two parts can never
// run into each other. Not a security measure: a guard against mistakes and stale files.
struct fnv {
    std::uint64_t h;
    void bytes(const std::string& s) {
        for (unsigned char c : s) {
            h ^= c;
            h *= 1099511628211ull;
        }
        for (std::size_t n = s.size(), i = 0; i < 8; ++i, n >>= 8) {
            h ^= n & 0xff;
            h *= 1099511628211ull;
        }
    }
};

}  // namespace

std::string replay_fingerprint(const check& c, const std::string& engine, const search_spec& s,
                               const std::string& replay) {
    // The check as registered in this build (its name, algorithm, variant, configuration and
    // the engines that can run it, as 'kverify list' prints them), then what the replay runs.
    std::string engines;
    for (const model::check_engine& k : c.engines) engines += (engines.empty() ? "" : ",") + k.name;
    const std::string parts[] = {"kverify-replay-1", c.name,  c.algorithm, c.variant,
                                 c.config,           engines, engine,      s.str(),
                                 s.limits.str(),     replay};
    fnv a{0xcbf29ce484222325ull}, b{0x6c62272e07bb0142ull};
    for (const std::string& p : parts) {
        a.bytes(p);
        b.bytes(p);
    }
    char buf[48];
    std::snprintf(buf, sizeof buf, "kv1:%016llx%016llx", static_cast<unsigned long long>(a.h),
                  static_cast<unsigned long long>(b.h));
    return buf;
}

}  // namespace kverify::cli
