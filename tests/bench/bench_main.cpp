// SPDX-License-Identifier: GPL-2.0-only
// Benchmark driver: runs the registered benchmarks, then prints, per group, each variant's time
// as a ratio to the group's baseline measured in the same run (the machines are noisy: absolute
// times are not comparable across runs, ratios within one run are). A benchmark named
// "group/variant" belongs to `group`; the variant named in kBaselines is its baseline.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <map>
#include <string>
#include <vector>

namespace {

// group -> baseline variant
const std::map<std::string, std::string> kBaselines = {
    {"objpool_pop_push", "v6.15"},
    {"objpool_pop_push_2cpu", "v6.15"},
    {"pcc_add", "irqsave"},
    {"pcc_add_2cpu", "irqsave"},
    {"this_cpu", "this_cpu_add"},
};

class ratio_reporter : public benchmark::ConsoleReporter {
public:
    void ReportRuns(const std::vector<Run>& runs) override {
        ConsoleReporter::ReportRuns(runs);
        for (const Run& r : runs) {
            if (r.run_type != Run::RT_Iteration || r.error_occurred) continue;
            std::string name = r.benchmark_name();
            const std::size_t threads = name.find("/threads:");
            if (threads != std::string::npos) name.erase(threads);
            const std::size_t real = name.find("/real_time");
            if (real != std::string::npos) name.erase(real);
            const std::size_t slash = name.find('/');
            if (slash == std::string::npos) continue;
            results_[name.substr(0, slash)][name.substr(slash + 1)] = r.GetAdjustedRealTime();
        }
    }
    void Finalize() override {
        ConsoleReporter::Finalize();
        std::printf("\nratios to the baseline measured in this run (time per operation; < 1 is "
                    "faster):\n");
        for (const auto& [group, variants] : results_) {
            const auto base = kBaselines.find(group);
            if (base == kBaselines.end()) continue;
            const auto b = variants.find(base->second);
            if (b == variants.end() || b->second <= 0) continue;
            std::printf("  %s (baseline %s):\n", group.c_str(), base->second.c_str());
            for (const auto& [variant, t] : variants)
                std::printf("    %-28s %6.3f\n", variant.c_str(), t / b->second);
        }
    }

private:
    std::map<std::string, std::map<std::string, double>> results_;
};

}  // namespace

int main(int argc, char** argv) {
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    ratio_reporter reporter;
    benchmark::RunSpecifiedBenchmarks(&reporter);
    benchmark::Shutdown();
    return 0;
}
