// SPDX-License-Identifier: GPL-2.0-only
// The benchmarks' common method (tests/bench/README.md): every benchmark measures the thread CPU
// time of its timed loop and the operations it did (counters "cpu_ns" and "ops", summed over
// threads by Google Benchmark); it belongs to a group, and each variant of a group is reported
// as a ratio to the group's baseline at the same x (e.g. the same thread count), measured in the
// same run with the repetitions of all benchmarks randomly interleaved.
#pragma once

#include <benchmark/benchmark.h>
#include <time.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace kverify::bench {

// A group: what is compared, against which baseline, and along which axis.
struct group_spec {
    std::string name;           // e.g. "objpool_pop_push"
    std::string title;          // one line for the report
    std::string baseline;       // variant name of the baseline
    std::string x_name;         // "threads", "possible CPUs", ... ("" for none)
    bool plot_scaling = false;  // plot ns/op against x for every variant
};

// A claim about one variant of a group, printed next to the measured ratio of that variant to
// `reference` (the group's baseline when empty), both at x.
struct claim_spec {
    std::string group, variant;
    int x;
    std::string reference;
    std::string text;
};

struct bench_meta {
    std::string group, variant;
    int x;
};

std::vector<group_spec>& groups();
std::vector<claim_spec>& claims();
std::vector<std::pair<std::string, bench_meta>>& metas();  // GB function name -> meta

inline void add_group(group_spec g) { groups().push_back(std::move(g)); }
inline void add_claim(claim_spec c) { claims().push_back(std::move(c)); }

// Registers fn (a function or lambda taking benchmark::State&) as group/variant/x, run by
// `threads` threads.
template <class F>
benchmark::internal::Benchmark* add(const std::string& group, const std::string& variant, int x,
                                    int threads, F fn) {
    const std::string name = group + "/" + variant + "/" + std::to_string(x);
    metas().push_back({name, bench_meta{group, variant, x}});
    auto* b = benchmark::RegisterBenchmark(name.c_str(), fn);
    if (threads > 1) b->Threads(threads);
    return b;
}

// This thread's CPU time in nanoseconds (user + system).
inline std::uint64_t thread_cpu_ns() noexcept {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<std::uint64_t>(ts.tv_sec) * 1000000000u +
           static_cast<std::uint64_t>(ts.tv_nsec);
}

// Measures one thread's timed loop: construct before the loop, call done(ops) after it.
class cpu_meter {
public:
    explicit cpu_meter(benchmark::State& state) : state_(state), start_(thread_cpu_ns()) {}
    void done(std::uint64_t ops) {
        const std::uint64_t ns = thread_cpu_ns() - start_;
        // Summed over threads by Google Benchmark (kDefaults): CPU ns and operations of all.
        state_.counters["cpu_ns"] = benchmark::Counter(static_cast<double>(ns));
        state_.counters["ops"] = benchmark::Counter(static_cast<double>(ops));
    }

private:
    benchmark::State& state_;
    std::uint64_t start_;
};

// Report writer (bench_main.cpp): runs every registered benchmark and writes the tables.
int run_main(int argc, char** argv, const char* program);

}  // namespace kverify::bench
