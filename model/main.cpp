// SPDX-License-Identifier: GPL-2.0-only
// kverify: the model checker's command line. Runs the registered checks (tests/model,
// tests/mutants, tests/litmus) and compares each verdict with the expected verdicts kept as data
// in proofs/expected/verdicts.tsv.
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <regex>

#include "model/registry.hpp"
#include "model/verdict.hpp"

#ifndef KVERIFY_SOURCE_DIR
#define KVERIFY_SOURCE_DIR "."
#endif

namespace kverify::model {
namespace {

struct expected_row {
    std::string name;
    std::string engine;
    search_spec search;
    std::string outcome;
    std::string executions;  // "-" when not pinned
    std::string tier;
    int line = 0;
};

[[noreturn]] void usage_error(const std::string& msg) {
    std::cerr << "kverify: " << msg << "\n(see 'kverify help')\n";
    std::exit(2);
}

const char* const help_text =
    R"(usage: kverify [command] [options]

commands:
  verify            run the expected-verdict table (default: tier quick), print a verdict
                    table, exit 1 if any verdict differs from the expected one
  list              list the registered checks
  run NAME          run one check and print its verdict (and the trace of a counterexample)
  check NAME SEARCH run one row of the expected table (used by ctest)
  help              this text

options:
  --expected FILE   expected verdicts (default: proofs/expected/verdicts.tsv of the source tree)
  --tier T          quick, full or all (verify)
  --filter REGEX    only checks whose name matches (verify, list)
  --search S        exhaustive | bounded:K | sampled:N (run; default exhaustive)
  --engine E        the engine (run: default relacy; check, verify: only rows of engine E)
  --budget SEC      wall-clock budget per search; when it runs out the verdict is inconclusive
  --trace           print the counterexample trace (run prints it by default; verify on mismatch)
)";

const check& check_named(const std::string& name) {
    if (const check* c = find_check(name)) return *c;
    usage_error("unknown check '" + name + "' (see 'kverify list')");
}

std::vector<expected_row> load_expected(const std::string& path) {
    std::ifstream in(path);
    if (!in) usage_error("cannot read expected verdicts from " + path);
    std::vector<expected_row> rows;
    std::string line;
    int n = 0;
    while (std::getline(in, line)) {
        ++n;
        if (line.empty() || line[0] == '#') continue;
        std::vector<std::string> f;
        std::stringstream ss(line);
        std::string field;
        while (std::getline(ss, field, '\t')) f.push_back(field);
        if (f.size() != 6)
            usage_error(path + ":" + std::to_string(n) +
                        ": expected 6 tab-separated fields: check engine search expected "
                        "executions tier");
        expected_row r;
        r.name = f[0];
        r.engine = f[1];
        std::string err;
        if (!search_spec::parse(f[2], r.search, err))
            usage_error(path + ":" + std::to_string(n) + ": " + err);
        r.outcome = f[3];
        r.executions = f[4];
        r.tier = f[5];
        if (r.tier != "quick" && r.tier != "full")
            usage_error(path + ":" + std::to_string(n) + ": tier must be quick or full");
        r.line = n;
        // unknown names and engines are an error in the table, not a skipped row
        if (!check_named(r.name).supports(r.engine))
            usage_error(path + ":" + std::to_string(n) + ": check " + r.name +
                        " has no engine '" + r.engine + "'");
        rows.push_back(r);
    }
    return rows;
}

// Compares a verdict with its row. Returns an empty string when it matches.
std::string mismatch(const expected_row& r, const verdict& v) {
    if (v.outcome != r.outcome) return "expected " + r.outcome + ", got " + v.outcome;
    // Exhaustive and bounded searches are deterministic (so are sampled ones, seeded by the
    // execution index): a changed count means the explored space changed.
    if (r.executions != "-" && std::to_string(v.executions) != r.executions)
        return "executions explored changed: expected " + r.executions + ", got " +
               std::to_string(v.executions);
    return {};
}

void print_verdict(const check& c, const verdict& v, bool trace) {
    std::cout << c.name << "\n  " << c.algorithm << " " << c.variant << " [" << c.config
              << "]\n  search: " << v.search.str() << "  verdict: " << v.outcome
              << "  executions: " << v.executions << "  time: " << v.seconds << " s\n";
    if (v.blocked) std::cout << "  blocked executions (cut by an assume): " << v.blocked << "\n";
    if (!v.also_sc.empty()) std::cout << "  also under SC: " << v.also_sc << "\n";
    if (!v.detail.empty()) std::cout << "  " << v.detail << "\n";
    if (trace && !v.trace.empty()) std::cout << "  counterexample trace:\n" << v.trace;
}

struct options {
    std::string expected = std::string(KVERIFY_SOURCE_DIR) + "/proofs/expected/verdicts.tsv";
    std::string tier = "quick";
    std::string filter;
    std::string search = "exhaustive";
    std::string engine;  // run: relacy when empty; check, verify: any
    double budget = 0;
    bool trace = false;
    std::vector<std::string> positional;
};

options parse(int argc, char** argv, int first) {
    options o;
    for (int i = first; i < argc; ++i) {
        const std::string a = argv[i];
        const auto value = [&]() -> std::string {
            if (i + 1 >= argc) usage_error("option " + a + " needs a value");
            return argv[++i];
        };
        if (a == "--expected") o.expected = value();
        else if (a == "--tier") {
            o.tier = value();
            if (o.tier != "quick" && o.tier != "full" && o.tier != "all")
                usage_error("--tier must be quick, full or all");
        } else if (a == "--filter") o.filter = value();
        else if (a == "--search") o.search = value();
        else if (a == "--engine") {
            o.engine = value();
            bool known = false;
            std::string all;
            for (const std::string& e : known_engines()) {
                known = known || e == o.engine;
                all += (all.empty() ? "" : ", ") + e;
            }
            if (!known) usage_error("unknown engine '" + o.engine + "' (known: " + all + ")");
        }
        else if (a == "--budget") {
            const std::string b = value();
            char* end = nullptr;
            o.budget = std::strtod(b.c_str(), &end);
            if (end == b.c_str() || *end != '\0' || !(o.budget > 0))
                usage_error("--budget needs a positive number of seconds");
        } else if (a == "--trace") o.trace = true;
        else if (!a.empty() && a[0] == '-') usage_error("unknown option " + a);
        else o.positional.push_back(a);
    }
    return o;
}

search_spec parse_search(const options& o, const std::string& s) {
    search_spec spec;
    std::string err;
    if (!search_spec::parse(s, spec, err)) usage_error(err);
    spec.budget_s = o.budget;
    return spec;
}

int cmd_list(const options& o) {
    const std::regex re(o.filter.empty() ? ".*" : o.filter);
    for (const check& c : registry())
        if (std::regex_search(c.name, re))
            std::cout << c.name << "\t" << c.algorithm << "\t" << c.variant << "\t" << c.config
                      << "\n";
    return 0;
}

int cmd_run(const options& o) {
    if (o.positional.size() != 1) usage_error("run takes one check name");
    const check& c = check_named(o.positional[0]);
    const std::string engine = o.engine.empty() ? "relacy" : o.engine;
    if (!c.supports(engine)) usage_error("check " + c.name + " has no engine '" + engine + "'");
    const verdict v = c.run(engine, parse_search(o, o.search));
    print_verdict(c, v, true);
    return v.outcome == "inconclusive" ? 3 : 0;
}

int cmd_check(const options& o) {
    if (o.positional.size() != 2) usage_error("check takes a check name and a search");
    const search_spec spec = parse_search(o, o.positional[1]);
    for (const expected_row& r : load_expected(o.expected)) {
        if (r.name != o.positional[0] || r.search.str() != spec.str() ||
            (!o.engine.empty() && r.engine != o.engine))
            continue;
        const check& c = check_named(r.name);
        const verdict v = c.run(r.engine, spec);
        const std::string m = mismatch(r, v);
        print_verdict(c, v, !m.empty() || o.trace);
        std::cout << "  expected: " << r.outcome << " (" << o.expected << ":" << r.line << ")\n"
                  << (m.empty() ? "  OK\n" : "  MISMATCH: " + m + "\n");
        return m.empty() ? 0 : 1;
    }
    usage_error("no row for " + o.positional[0] + " " + spec.str() + " in " + o.expected);
}

int cmd_verify(const options& o) {
    const std::regex re(o.filter.empty() ? ".*" : o.filter);
    std::vector<expected_row> rows;
    for (const expected_row& r : load_expected(o.expected))
        if ((o.tier == "all" || r.tier == o.tier) && std::regex_search(r.name, re) &&
            (o.engine.empty() || r.engine == o.engine))
            rows.push_back(r);
    if (rows.empty()) usage_error("no expected verdicts selected");

    std::size_t width = 5;
    for (const expected_row& r : rows) width = std::max(width, r.name.size());
    std::printf("%-*s  %-9s  %-14s  %-14s  %-14s  %11s  %8s  %s\n", int(width), "check", "engine",
                "search",
                "verdict", "expected", "executions", "time", "status");
    int bad = 0;
    std::string failures;
    for (const expected_row& r : rows) {
        const check& c = check_named(r.name);
        search_spec spec = r.search;
        spec.budget_s = o.budget;
        const verdict v = c.run(r.engine, spec);
        const std::string m = mismatch(r, v);
        std::printf("%-*s  %-9s  %-14s  %-14s  %-14s  %11llu  %7.2fs  %s\n", int(width),
                    r.name.c_str(), r.engine.c_str(), spec.str().c_str(), v.outcome.c_str(), r.outcome.c_str(),
                    static_cast<unsigned long long>(v.executions), v.seconds,
                    m.empty() ? "ok" : "MISMATCH");
        std::fflush(stdout);
        if (!m.empty()) {
            ++bad;
            std::ostringstream s;
            s << "\n" << r.name << " " << spec.str() << ": " << m << "\n  " << v.detail << "\n"
              << v.trace;
            failures += s.str();
        } else if (o.trace && !v.trace.empty()) {
            failures += "\n" + r.name + " " + spec.str() + " (expected " + r.outcome + "): " +
                        v.detail + "\n" + v.trace;
        }
    }
    if (!failures.empty()) std::cout << failures;
    std::printf("\n%zu checks: %zu as expected, %d differ\n", rows.size(), rows.size() - bad, bad);
    return bad == 0 ? 0 : 1;
}

}  // namespace
}  // namespace kverify::model

int main(int argc, char** argv) {
    using namespace kverify::model;
    const std::string cmd = argc > 1 && argv[1][0] != '-' ? argv[1] : "verify";
    const int first = argc > 1 && argv[1][0] != '-' ? 2 : 1;
    if (cmd == "help") {
        std::cout << help_text;
        return 0;
    }
    const options o = parse(argc, argv, first);
    if (cmd == "verify") return cmd_verify(o);
    if (cmd == "list") return cmd_list(o);
    if (cmd == "run") return cmd_run(o);
    if (cmd == "check") return cmd_check(o);
    usage_error("unknown command '" + cmd + "'");
}
