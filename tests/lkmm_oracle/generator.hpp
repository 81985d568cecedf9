// SPDX-License-Identifier: GPL-2.0-only
// A random litmus test generator for the LKMM oracle, seeded and deterministic (its own
// splitmix64 generator: the same seed gives the same test on every machine and library).
// A test has 2-4 threads and 1-3 int locations (x, y, z), sometimes a pointer location p
// (initially &x, republished as &y) and a spinlock s; each thread a handful of instructions:
// READ_ONCE / WRITE_ONCE, smp_load_acquire / smp_store_release, now and then a plain access,
// fences of every kind, xchg and cmpxchg with their orderings, atomic_add, atomic_add_return
// and atomic_fetch_add forms; data dependencies through registers, address dependencies
// through p, an `if` on a register around some instructions, a critical section of s. Every
// instruction makes at most one memory access (what the oracle supports). The test ends with
// `locations [...]` (every int location) and an `exists` on some of the registers read.
// The text is C litmus as herd7 and model/litmus read it.
#pragma once

#include <cstdint>
#include <string>

namespace kverify::lkmm_oracle {

struct generator_options {
    unsigned max_threads = 4;       // 2..max_threads
    unsigned max_locations = 3;     // 1..max_locations int locations
    unsigned max_instructions = 4;  // per thread, 1..max (an if or a critical section is one)
};

std::string generate_litmus(std::uint64_t seed, const generator_options& o = {});

}  // namespace kverify::lkmm_oracle
