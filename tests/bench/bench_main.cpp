// SPDX-License-Identifier: GPL-2.0-only
// Benchmark driver and report (method: tests/bench/README.md). Runs the registered benchmarks
// with their repetitions randomly interleaved (Google Benchmark's random interleaving), takes the
// thread-CPU time per operation of every repetition, and prints per group each variant's median
// and spread and its ratio to the baseline measured in the same run, with a 95% bootstrap
// interval; an interval that contains 1 is reported as "no difference measured". With
// --report_dir=DIR it also writes DIR/<program>.md (the tables) and DIR/<program>.tsv (the data
// the plots are drawn from).
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/bench/bench.hpp"

namespace kverify::bench {

std::vector<group_spec>& groups() {
    static std::vector<group_spec> g;
    return g;
}
std::vector<claim_spec>& claims() {
    static std::vector<claim_spec> c;
    return c;
}
std::vector<std::pair<std::string, bench_meta>>& metas() {
    static std::vector<std::pair<std::string, bench_meta>> m;
    return m;
}

namespace {

// ----- statistics -----

double quantile(std::vector<double> v, double q) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    const double pos = q * static_cast<double>(v.size() - 1);
    const std::size_t i = static_cast<std::size_t>(pos);
    const double frac = pos - static_cast<double>(i);
    return i + 1 < v.size() ? v[i] * (1 - frac) + v[i + 1] * frac : v[i];
}
double median(const std::vector<double>& v) { return quantile(v, 0.5); }

struct ratio_estimate {
    double ratio = 0, lo = 0, hi = 0;
};

// Ratio of medians, variant over baseline, with a 95% percentile-bootstrap interval: both sets
// of repetitions resampled independently (they are interleaved in time, not paired). Seeded, so
// the same samples give the same interval.
ratio_estimate bootstrap_ratio(const std::vector<double>& a, const std::vector<double>& b) {
    ratio_estimate r;
    r.ratio = median(a) / median(b);
    constexpr int resamples = 2000;
    std::mt19937_64 rng(0x6b766572696679);
    std::vector<double> ratios, ra(a.size()), rb(b.size());
    ratios.reserve(resamples);
    std::uniform_int_distribution<std::size_t> da(0, a.size() - 1), db(0, b.size() - 1);
    for (int i = 0; i < resamples; ++i) {
        for (double& x : ra) x = a[da(rng)];
        for (double& x : rb) x = b[db(rng)];
        ratios.push_back(median(ra) / median(rb));
    }
    r.lo = quantile(ratios, 0.025);
    r.hi = quantile(ratios, 0.975);
    return r;
}

std::string verdict_of(const ratio_estimate& r) {
    if (r.lo <= 1.0 && 1.0 <= r.hi) return "no difference measured";
    char buf[96];
    if (r.ratio < 1)
        std::snprintf(buf, sizeof buf, "faster: %.1f%% less CPU time", (1 - r.ratio) * 100);
    else
        std::snprintf(buf, sizeof buf, "slower: %.1f%% more CPU time", (r.ratio - 1) * 100);
    return buf;
}

// ----- the machine -----

std::string cpu_model() {
    std::ifstream in("/proc/cpuinfo");
    std::string line;
    while (std::getline(in, line))
        if (line.rfind("model name", 0) == 0) {
            const std::size_t colon = line.find(':');
            if (colon != std::string::npos) return line.substr(colon + 2);
        }
    return "unknown CPU";
}

std::string machine_line() {
    double load[3] = {-1, -1, -1};
    if (getloadavg(load, 3) != 3) load[0] = load[1] = load[2] = -1;
    char buf[512];
    std::snprintf(buf, sizeof buf, "%s, %u logical CPUs, load average at start %.2f %.2f %.2f",
                  cpu_model().c_str(), std::thread::hardware_concurrency(), load[0], load[1],
                  load[2]);
    return buf;
}

// ----- collecting the repetitions -----

struct series {
    std::vector<double> ns_per_op;        // one value per repetition
    std::map<std::string, double> notes;  // other counters (e.g. executions), last repetition
};

class collector : public benchmark::ConsoleReporter {
public:
    std::map<std::string, series> by_name;
    std::vector<std::string> errors;

    void ReportRuns(const std::vector<Run>& runs) override {
        ConsoleReporter::ReportRuns(runs);
        for (const Run& r : runs) {
            if (r.error_occurred) errors.push_back(r.benchmark_name() + ": " + r.error_message);
            if (r.run_type != Run::RT_Iteration || r.error_occurred) continue;
            const auto ns = r.counters.find("cpu_ns");
            const auto ops = r.counters.find("ops");
            if (ns == r.counters.end() || ops == r.counters.end() || ops->second.value <= 0)
                continue;
            series& se = by_name[r.run_name.function_name];
            se.ns_per_op.push_back(ns->second.value / ops->second.value);
            for (const auto& [k, v] : r.counters)
                if (k != "cpu_ns" && k != "ops") se.notes[k] = v.value;
        }
    }
};

struct row {
    std::string variant;
    int x = 0;
    std::size_t n = 0;
    double med = 0, q1 = 0, q3 = 0;
    bool has_ratio = false;
    bool is_baseline = false;
    ratio_estimate ratio;
    std::string verdict;
    std::string notes;  // "executions=705432", ...
};

std::string fmt(const char* f, double a, double b = 0, double c = 0) {
    char buf[128];
    std::snprintf(buf, sizeof buf, f, a, b, c);
    return buf;
}

std::map<std::string, std::vector<row>> analyse(const collector& c) {
    std::map<std::string, std::vector<row>> out;
    for (const group_spec& g : groups()) {
        std::vector<row>& rows = out[g.name];
        for (const auto& [name, m] : metas()) {
            if (m.group != g.name) continue;
            const auto s = c.by_name.find(name);
            if (s == c.by_name.end() || s->second.ns_per_op.empty()) continue;
            const std::vector<double>& v = s->second.ns_per_op;
            row r;
            r.variant = m.variant;
            r.x = m.x;
            r.n = v.size();
            r.med = median(v);
            r.q1 = quantile(v, 0.25);
            r.q3 = quantile(v, 0.75);
            for (const auto& [k, val] : s->second.notes)
                r.notes += (r.notes.empty() ? "" : ", ") + k + "=" + fmt("%.0f", val);
            r.is_baseline = !g.baseline.empty() && m.variant == g.baseline;
            if (!g.baseline.empty() && !r.is_baseline) {
                const std::string base = g.name + "/" + g.baseline + "/" + std::to_string(m.x);
                const auto b = c.by_name.find(base);
                if (b != c.by_name.end() && !b->second.ns_per_op.empty()) {
                    r.has_ratio = true;
                    r.ratio = bootstrap_ratio(v, b->second.ns_per_op);
                    r.verdict = verdict_of(r.ratio);
                }
            }
            rows.push_back(r);
        }
    }
    return out;
}

std::string ratio_cell(const row& r) {
    if (r.is_baseline) return "1 (baseline)";
    if (!r.has_ratio) return "-";
    return fmt("%.3f [%.3f, %.3f]", r.ratio.ratio, r.ratio.lo, r.ratio.hi);
}

void print_console(const std::map<std::string, std::vector<row>>& res, const std::string& machine,
                   const std::string& command) {
    std::printf("\nmachine: %s\ncommand: %s\n", machine.c_str(), command.c_str());
    std::printf(
        "CPU time per operation (thread CPU clock), median [quartiles] over repetitions;\n"
        "ratio = variant / baseline at the same x, with a 95%% bootstrap interval.\n");
    for (const group_spec& g : groups()) {
        const auto it = res.find(g.name);
        if (it == res.end() || it->second.empty()) continue;
        std::printf("\n== %s: %s%s%s\n", g.name.c_str(), g.title.c_str(),
                    g.baseline.empty() ? "" : " (baseline ",
                    g.baseline.empty() ? "" : (g.baseline + ")").c_str());
        for (const row& r : it->second)
            std::printf("  %-26s %-4s=%4d  %9.2f ns [%8.2f, %8.2f]  %-26s %s%s%s\n",
                        r.variant.c_str(), g.x_name.empty() ? "x" : g.x_name.substr(0, 4).c_str(),
                        r.x, r.med, r.q1, r.q3, ratio_cell(r).c_str(), r.verdict.c_str(),
                        r.notes.empty() ? "" : "  ", r.notes.c_str());
    }
}

// A claim's measured ratio: the variant against its reference at the claim's x.
struct claim_result {
    const claim_spec* claim;
    std::string reference;
    ratio_estimate ratio;
    std::string verdict;
};

std::vector<claim_result> measure_claims(const collector& c) {
    std::vector<claim_result> out;
    for (const claim_spec& cl : claims()) {
        std::string reference = cl.reference;
        for (const group_spec& g : groups())
            if (reference.empty() && g.name == cl.group) reference = g.baseline;
        const auto name = [&](const std::string& v) {
            return cl.group + "/" + v + "/" + std::to_string(cl.x);
        };
        const auto a = c.by_name.find(name(cl.variant));
        const auto b = c.by_name.find(name(reference));
        if (a == c.by_name.end() || b == c.by_name.end() || a->second.ns_per_op.empty() ||
            b->second.ns_per_op.empty())
            continue;
        claim_result r{&cl, reference, bootstrap_ratio(a->second.ns_per_op, b->second.ns_per_op),
                       ""};
        r.verdict = verdict_of(r.ratio);
        out.push_back(r);
    }
    return out;
}

std::string claim_ratio(const claim_result& r) {
    return fmt("%.3f [%.3f, %.3f]", r.ratio.ratio, r.ratio.lo, r.ratio.hi);
}

void print_claims(const std::vector<claim_result>& cr) {
    for (const claim_result& r : cr)
        std::printf("\nclaim: %s\n  measured %s: %s / %s = %s -> %s\n", r.claim->text.c_str(),
                    r.claim->group.c_str(), r.claim->variant.c_str(), r.reference.c_str(),
                    claim_ratio(r).c_str(), r.verdict.c_str());
}

void write_report(const std::string& dir, const std::string& program,
                  const std::map<std::string, std::vector<row>>& res,
                  const std::vector<claim_result>& cr, const std::string& machine,
                  const std::string& command) {
    std::ofstream md(dir + "/" + program + ".md"), tsv(dir + "/" + program + ".tsv");
    if (!md || !tsv) {
        std::fprintf(stderr, "%s: cannot write the report into %s\n", program.c_str(), dir.c_str());
        std::exit(2);
    }
    md << "Machine: " << machine << "  \nCommand: `" << command << "`\n";
    tsv << "group\tvariant\tx\tmedian_ns\tq1_ns\tq3_ns\tratio\tratio_lo\tratio_hi\tverdict\n";
    for (const group_spec& g : groups()) {
        const auto it = res.find(g.name);
        if (it == res.end() || it->second.empty()) continue;
        md << "\n### " << g.name << ": " << g.title << "\n\n";
        if (!g.baseline.empty()) md << "Baseline: `" << g.baseline << "`.\n\n";
        md << "| variant | " << (g.x_name.empty() ? "x" : g.x_name)
           << " | CPU ns/op, median [quartiles] | ratio [95% interval] | verdict |\n"
           << "|---|---:|---:|---:|---|\n";
        for (const row& r : it->second) {
            md << "| " << r.variant << " | " << r.x << " | "
               << fmt("%.2f [%.2f, %.2f]", r.med, r.q1, r.q3) << " | " << ratio_cell(r) << " | "
               << r.verdict << (r.notes.empty() ? "" : " (" + r.notes + ")") << " |\n";
            tsv << g.name << '\t' << r.variant << '\t' << r.x << '\t' << r.med << '\t' << r.q1
                << '\t' << r.q3 << '\t' << (r.has_ratio ? r.ratio.ratio : 1) << '\t'
                << (r.has_ratio ? r.ratio.lo : 1) << '\t' << (r.has_ratio ? r.ratio.hi : 1) << '\t'
                << (r.is_baseline ? "baseline" : r.verdict) << '\n';
        }
    }
    if (!cr.empty()) md << "\n### Claims against the measurement\n\n";
    for (const claim_result& r : cr)
        md << "- " << r.claim->text << "  \n  Measured: `" << r.claim->variant << "` / `"
           << r.reference << "` = " << claim_ratio(r) << ": **" << r.verdict << "**.\n";
}

}  // namespace

int run_main(int argc, char** argv, const char* program) {
    const std::string machine = machine_line();  // the load average before anything runs
    // Defaults first, so that the caller's own flags (parsed later) override them.
    std::vector<std::string> args = {argv[0], "--benchmark_enable_random_interleaving=true",
                                     "--benchmark_repetitions=15", "--benchmark_min_time=0.05"};
    std::string dir, command;
    bool filtered = false;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a.rfind("--benchmark_filter=", 0) == 0) filtered = true;
        if (a.rfind("--report_dir=", 0) == 0)
            dir = a.substr(13);
        else if (a.rfind("--report_command=", 0) == 0)
            command = a.substr(17);
        else
            args.push_back(a);
    }
    if (command.empty()) {
        command = argv[0];
        for (int i = 1; i < argc; ++i) command += std::string(" ") + argv[i];
    }
    std::vector<char*> cargs;
    for (std::string& a : args) cargs.push_back(a.data());
    int cargc = static_cast<int>(cargs.size());
    benchmark::Initialize(&cargc, cargs.data());
    if (benchmark::ReportUnrecognizedArguments(cargc, cargs.data())) return 2;
    collector c;
    benchmark::RunSpecifiedBenchmarks(&c);
    benchmark::Shutdown();
    const auto res = analyse(c);
    const auto cr = measure_claims(c);
    print_console(res, machine, command);
    print_claims(cr);
    if (!dir.empty()) write_report(dir, program, res, cr, machine, command);
    // What the smoke tests rely on: every benchmark ran and measured something.
    int bad = 0;
    for (const std::string& e : c.errors) {
        std::fprintf(stderr, "%s: benchmark failed: %s\n", program, e.c_str());
        ++bad;
    }
    for (const auto& [name, m] : metas()) {
        const auto it = c.by_name.find(name);
        if (!filtered && (it == c.by_name.end() || it->second.ns_per_op.empty())) {
            std::fprintf(stderr, "%s: %s produced no measurement\n", program, name.c_str());
            ++bad;
        }
    }
    return bad == 0 ? 0 : 1;
}

}  // namespace kverify::bench

#ifndef KVERIFY_BENCH_PROGRAM
#define KVERIFY_BENCH_PROGRAM "kverify_bench"
#endif

int main(int argc, char** argv) {
    return kverify::bench::run_main(argc, argv, KVERIFY_BENCH_PROGRAM);
}
