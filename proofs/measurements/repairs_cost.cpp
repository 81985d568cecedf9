// SPDX-License-Identifier: GPL-2.0-only
// What the two repairs cost on their fast paths, each against its base in the same run:
//   objpool pop+push, one thread: fix-nested-push against v6.15 (and fix-acquire-last, its base);
//   percpu_counter limited_add far from the limit (the lockless shortcut) and near it (the
//   precise sum under the lock): fix-limited-add against v6.7 (local-cas), and two of its twins
//   (each leaves one part out) to show where the cost goes.
// A standalone program, not part of the build: tests/bench belongs to the benchmark work, which
// iterates the variant lists (objpool's repair then appears there without edits). Build and run
// (the figures in proofs/objpool.md and proofs/percpu_counter.md come from this command):
//   g++ -std=c++17 -O2 -DNDEBUG -I. proofs/measurements/repairs_cost.cpp -o /tmp/repairs_cost
//       -lbenchmark -lpthread
//   /tmp/repairs_cost --benchmark_repetitions=15 --benchmark_enable_random_interleaving=true
// Each figure is CPU time per operation; the program prints the ratio of medians and the range
// of the ratio over the repetitions (paired by repetition index, which random interleaving
// keeps comparable).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "impl/objpool.hpp"
#include "impl/percpu_counter.hpp"
#include "impl/real_env.hpp"

namespace kverify {
namespace {

using E = real_env;

template <class V>
void pop_push(benchmark::State& state) {
    E::configure(cpumask::first_n(4));
    E::cpu_scope cpu(0);
    objpool<E, V> pool;
    if (pool.init(64, 64, nullptr, nullptr, nullptr) != 0) state.SkipWithError("init");
    for (auto _ : state) {
        void* obj = pool.pop();
        pool.push(obj);
        benchmark::DoNotOptimize(obj);
    }
    pool.fini();
}

// far: limit 2^40, every add takes the shortcut. near: the total sits next to the limit, so
// every add goes to the lock and the precise sum (and is refused: nothing changes).
template <class V, bool Near>
void limited_add(benchmark::State& state) {
    E::configure(cpumask::first_n(4));
    E::cpu_scope cpu(0);
    percpu_counter<E, V> c;
    c.init(Near ? 1000 : 0);
    const std::int64_t limit = Near ? 1000 : std::int64_t{1} << 40;
    std::int64_t sign = 1;
    for (auto _ : state) {
        // Alternate +1/-1 far from the limit (the delta stays near 0); +1 near it is refused.
        const bool ok = c.limited_add(limit, Near ? 1 : sign, 32);
        sign = -sign;
        benchmark::DoNotOptimize(ok);
    }
}

struct collector : benchmark::ConsoleReporter {
    std::map<std::string, std::vector<double>> cpu;  // per benchmark, per repetition
    void ReportRuns(const std::vector<Run>& runs) override {
        ConsoleReporter::ReportRuns(runs);
        for (const Run& r : runs)
            if (r.run_type == Run::RT_Iteration && !r.error_occurred)
                cpu[r.run_name.function_name].push_back(r.GetAdjustedCPUTime());
    }
};

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

void compare(const collector& c, const std::string& variant, const std::string& base) {
    const auto a = c.cpu.find(variant), b = c.cpu.find(base);
    if (a == c.cpu.end() || b == c.cpu.end()) return;
    std::vector<double> ratios;
    for (std::size_t i = 0; i < std::min(a->second.size(), b->second.size()); ++i)
        ratios.push_back(a->second[i] / b->second[i]);
    std::sort(ratios.begin(), ratios.end());
    std::printf("  %-44s / %-36s %6.3f  (per-repetition ratios %.3f .. %.3f, %zu reps)\n",
                variant.c_str(), base.c_str(), median(a->second) / median(b->second),
                ratios.front(), ratios.back(), ratios.size());
}

}  // namespace
}  // namespace kverify

int main(int argc, char** argv) {
    using namespace kverify;
    benchmark::RegisterBenchmark("pop_push/v6.15", pop_push<objpool_v6_15>);
    benchmark::RegisterBenchmark("pop_push/fix-acquire-last", pop_push<objpool_fix_acquire_last>);
    benchmark::RegisterBenchmark("pop_push/fix-nested-push", pop_push<objpool_fix_nested_push>);
    benchmark::RegisterBenchmark("limited_add_far/v6.7", limited_add<pcc_local_cas, false>);
    benchmark::RegisterBenchmark("limited_add_far/fix-limited-add",
                                 limited_add<pcc_fix_limited_add, false>);
    // Where the cost goes: the twins leave out one part each (known bad; measured, never used).
    benchmark::RegisterBenchmark("limited_add_far/mut-limited-no-mb",
                                 limited_add<pcc_mut_limited_no_mb, false>);
    benchmark::RegisterBenchmark("limited_add_far/mut-limited-online-only",
                                 limited_add<pcc_mut_limited_online_only, false>);
    benchmark::RegisterBenchmark("limited_add_near/v6.7", limited_add<pcc_local_cas, true>);
    benchmark::RegisterBenchmark("limited_add_near/fix-limited-add",
                                 limited_add<pcc_fix_limited_add, true>);
    benchmark::Initialize(&argc, argv);
    collector c;
    benchmark::RunSpecifiedBenchmarks(&c);
    std::printf("\nratios of median CPU time per operation (< 1 is faster):\n");
    compare(c, "pop_push/fix-nested-push", "pop_push/v6.15");
    compare(c, "pop_push/fix-nested-push", "pop_push/fix-acquire-last");
    compare(c, "pop_push/fix-acquire-last", "pop_push/v6.15");
    compare(c, "limited_add_far/fix-limited-add", "limited_add_far/v6.7");
    compare(c, "limited_add_far/mut-limited-no-mb", "limited_add_far/v6.7");
    compare(c, "limited_add_far/mut-limited-online-only", "limited_add_far/v6.7");
    compare(c, "limited_add_near/fix-limited-add", "limited_add_near/v6.7");
    benchmark::Shutdown();
    return 0;
}
