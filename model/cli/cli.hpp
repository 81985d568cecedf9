// SPDX-License-Identifier: GPL-2.0-only
// The kverify command line, shared between its parts: the expected-verdict table
// (model/cli/table.cpp), running checks in child processes with progress and shrinking
// (model/cli/exec.cpp), reports as text, JSON, JUnit and Markdown (model/cli/report.cpp), and the commands
// (model/cli/main.cpp). Engine-neutral: it sees checks only through the registry.
#pragma once

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/check/registry.hpp"

namespace kverify::cli {

using model::check;
using model::search_spec;
using model::verdict;
using json = nlohmann::json;

// Bad usage: the command exits with status 2 and this one-line message.
struct usage_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Exit statuses.
inline constexpr int exit_ok = 0;            // as expected / no violation
inline constexpr int exit_differs = 1;       // a verdict differs / a violation was found
inline constexpr int exit_usage = 2;         // bad usage
inline constexpr int exit_inconclusive = 3;  // a search ran out of its budget

// ----- the expected-verdict table (proofs/expected/verdicts.tsv) -----

struct table_row {
    std::string check;
    std::string engine;
    search_spec search;
    std::string expected;
    std::string executions;  // "-" when not pinned
    std::string tier;
    int line = 0;  // 1-based line in the file
};

struct table {
    std::string path;
    std::string digest;  // of the file's bytes: shards of one run must come from one table
    std::vector<table_row> rows;
};

table load_table(const std::string& path);  // throws usage_error, naming file and line

struct selection {
    std::string tier = "quick";  // quick, full or all
    std::string filter;          // regex on the check name, "" = all
    std::string engine;          // "" = all
};
std::vector<table_row> select_rows(const table& t, const selection& s);

// "i/N" with 1 <= i <= N: parses into index (0-based) and count; false on bad syntax or range.
bool parse_shard(const std::string& s, unsigned& index, unsigned& count);
// The rows of shard `index` of `count`: deterministic, balanced by pinned execution counts;
// the shards of one selection are disjoint and cover it. Table order is kept.
std::vector<table_row> shard_rows(const std::vector<table_row>& rows, unsigned index,
                                  unsigned count);

// Rewrites the executions column of the given lines (line -> new count), keeping every other
// byte of the file. Returns how many lines changed.
int repin_table(const std::string& path, const std::vector<std::pair<int, std::string>>& counts);

// ----- evidence: what each variant is verified against (model/cli/evidence.cpp) -----

// The algorithms of the table's rows, in table order.
std::vector<std::string> evidence_algorithms(const table& t);
// A Markdown table of the rows of one algorithm: per variant, a line per engine (memory model),
// search, tier and verdict, naming the configurations it covers. Throws usage_error for an
// algorithm without checks.
std::string evidence_markdown(const table& t, const std::string& algorithm);

// ----- results -----

struct row_result {
    table_row row;
    std::string algorithm, variant, config;  // from the registry
    verdict v;
    std::string status;    // ok, MISMATCH, count-changed, inconclusive, error
    std::string mismatch;  // what differs, empty when ok
};

// Compares a verdict with its row and fills status and mismatch.
void judge(row_result& r);
int exit_status(const std::vector<row_result>& results, bool allow_count_changed);

json verdict_to_json(const verdict& v);
verdict verdict_from_json(const json& j);  // throws usage_error on a malformed object
json row_to_json(const row_result& r);
row_result row_from_json(const json& j);

struct run_info {
    std::string table_path, table_digest;
    selection sel;
    std::string shard;         // "i/N", or "" when not sharded
    std::size_t selected = 0;  // rows in the selection before sharding
    unsigned jobs = 1;
    double wall_seconds = 0;
};

json results_to_json(const run_info& info, const std::vector<row_result>& results,
                     bool allow_count_changed);
void write_file(const std::string& path, const std::string& text);  // throws usage_error
std::string junit_xml(const std::vector<row_result>& results, double wall_seconds);
std::string markdown_summary(const std::vector<row_result>& results, const run_info& info,
                             bool allow_count_changed);

// The verdict table on stdout, one line per row as results arrive.
struct table_printer {
    std::size_t name_width = 5, verdict_width = 14;
    explicit table_printer(const std::vector<table_row>& rows);
    void header() const;
    void row(const row_result& r) const;
};
// Mismatches with their traces, count changes, and the summary line.
void print_epilogue(const std::vector<row_result>& results, bool with_traces, double wall_seconds,
                    unsigned jobs);

std::string format_seconds(double s);  // "<1 ms", "12 ms", "3.45 s", "2m05s"

// ----- running checks -----

struct job {
    const check* c = nullptr;
    std::string engine;
    search_spec spec;
};

// Runs every job in a child process of its own (fork: Relacy keeps global state, so one search
// per process), at most `parallel` at once; done(i, verdict) is called in job order. With
// `progress`, a status line on stderr shows the running checks.
void run_jobs(const std::vector<job>& jobs, unsigned parallel, bool progress,
              const std::function<void(std::size_t, const verdict&)>& done);

// Runs one job in this process, with a progress line on stderr when `progress`.
verdict run_here(const job& j, bool progress, const std::string& label);

struct shrink_result {
    verdict v;  // the counterexample of the smallest search found
    unsigned searches = 0;
    std::uint64_t executions = 0;  // spent on shrinking
    bool shrunk = false;
};
// Re-runs a failing job with fewer preemptive context switches and smaller interrupt and
// migration budgets, keeping the smallest search that still finds the same violation class.
// Cheap by construction: the executions of all trials together are capped.
shrink_result shrink(const job& j, const verdict& found, bool progress);

unsigned default_jobs();  // the CPUs this process may run on

}  // namespace kverify::cli
