// SPDX-License-Identifier: GPL-2.0-only
// The parts of the kverify command line the commands are built from: the expected-verdict table
// (table.cpp), verdicts and result rows as JSON (result_json.cpp), the report of a run
// (report.cpp) and running checks in child processes (exec.cpp). The commands themselves:
// commands.hpp. Engine-neutral: it sees checks only through the registry.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
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

// A --filter: an RE2 regular expression (model/cli/MANUAL.md), matched anywhere in a check's
// name; "" matches every name. Throws usage_error, in one line, on a pattern RE2 refuses.
class name_filter {
public:
    static constexpr std::size_t max_pattern = 4096;  // characters
    explicit name_filter(const std::string& pattern);
    bool matches(const std::string& name) const;

private:
    struct compiled;
    std::shared_ptr<const compiled> re_;
};

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

// ----- one row's result -----

struct row_result {
    table_row row;
    std::string algorithm, variant, config;  // from the registry
    verdict v;
    std::string status;       // ok, MISMATCH, count-changed, inconclusive, error
    std::string mismatch;     // what differs, empty when ok
    std::string fingerprint;  // of the replay string (replay_fingerprint), "" when none
};

// Compares a verdict with its row and fills status and mismatch.
void judge(row_result& r);
int exit_status(const std::vector<row_result>& results, bool allow_count_changed);

// ----- replay files -----

// What a replay must match (fingerprint.cpp): the check as registered in this build (name,
// algorithm, variant, configuration, engines), the engine, the search with its limits and the
// replay string. "kv1:" and 32 hex digits.
std::string replay_fingerprint(const check& c, const std::string& engine, const search_spec& s,
                               const std::string& replay);

// ----- JSON: result files, replay files and the messages of child processes -----

json verdict_to_json(const verdict& v);
verdict verdict_from_json(const json& j);  // throws usage_error on a malformed object
json row_to_json(const row_result& r);
row_result row_from_json(const json& j);  // throws usage_error on a malformed object
// Throws usage_error "cannot read WHAT PATH: why" unless PATH is a file that can be read (a
// directory opens as a stream on Linux, and reads as nothing).
void check_readable(const std::string& path, const std::string& what);
// Writes a whole file or none: to a hidden name in the same directory, renamed when complete.
void write_file(const std::string& path, const std::string& text);  // throws usage_error
// Fails early, before any search, when a file cannot be written ("" = no file); creates
// nothing. `discard_old`: removes a result file of an earlier run, so that a run that fails
// leaves no file that looks like its result.
void check_writable(const std::string& path, bool discard_old = false);
// The result files of a report: each writable, no two naming one file, and every one of an
// earlier run removed (check_writable with discard_old).
struct report_options;
void check_outputs(const report_options& o);

// ----- the report of a run of table rows -----

struct run_info {
    std::string table_path, table_digest;
    selection sel;
    std::string shard;         // "i/N", or "" when not sharded
    std::string split;         // "i/N": part i of N of every selected row's search, or ""
    std::size_t selected = 0;  // rows in the selection before sharding
    unsigned jobs = 1;
    double wall_seconds = 0;
};

struct report_options {
    bool traces = false;  // the trace of every violation, expected or not
    bool rows = false;    // the line of every row (--rows), not only the summary
    bool allow_count_changed = false;
    std::string json, junit, markdown;  // result files to write, "" = none
    std::string html;                   // the report page's directory (--html), "" = none
};

// What verify and merge print and write, from the same calls: verify adds each row's result
// as it arrives, merge the rows read from the shards' files. It alone prints the verdict table,
// the rows that differ with their traces, the count-changed list and the summary line, and
// writes the JSON, JUnit and Markdown files.
class report {
public:
    // `rows`: every row that will be added, in table order (they set the column widths).
    report(run_info info, const std::vector<table_row>& rows, report_options o);
    void header() const;
    void add(row_result r);  // judges the row and prints its line
    // After the last row: the epilogue on stdout, then the result files.
    void finish(double wall_seconds);
    const std::vector<row_result>& results() const { return results_; }
    int exit_status() const { return cli::exit_status(results_, o_.allow_count_changed); }

private:
    void print_epilogue() const;
    void write_files() const;

    run_info info_;
    report_options o_;
    std::size_t name_width_ = 5, verdict_width_ = 14;
    std::vector<row_result> results_;
};

std::string format_seconds(double s);  // "<1 ms", "12 ms", "3.45 s", "2m05s"
// "N checks: A as expected, B differ, C count changed, D inconclusive": verify's last line.
std::string totals_line(const std::vector<row_result>& results);
// Valid XML 1.0 text in UTF-8: a control character but tab and newlines as '?', a byte that
// starts no well-formed UTF-8 sequence as U+FFFD.
std::string xml_safe(const std::string& s);

// ----- the report page (html.cpp) -----

// Fails before any search when DIR cannot become the report: a file, or a directory that is
// neither empty nor an earlier report (which it removes, so a failed run leaves none).
void check_html_dir(const std::string& dir);
// index.html, its style sheet, script and pictures, in a hidden directory renamed to DIR.
void write_html(const std::string& dir, const run_info& info,
                const std::vector<row_result>& results, const std::string& totals);

// ----- the summary: one line per variant (summary.cpp) -----

struct summary_row {
    std::string check, algorithm, variant, engine;
    std::string outcome;  // the verdict (verify) or the expected one (evidence)
    std::string status;   // judge()'s, "ok" for evidence
};
// Per algorithm, one line per variant: sound or bad, and per model (SC, RC11, LKMM, Relacy) pass
// or each violation class with the smallest configuration showing it; at most 80 columns.
// `colour`: ANSI colours (colour_wanted()).
std::string variant_summary(const std::vector<summary_row>& rows, bool colour);
bool colour_wanted(int fd);  // fd is a terminal and NO_COLOR is unset or empty
// The configuration part of a check's name (ALGORITHM/VARIANT/CONFIG), "" for a name that is
// the variant's alone (litmus/mp/relaxed).
std::string config_of(const std::string& check, const std::string& variant);
// The rows whose status is not ok, one short line each (verify's last lines); "" when none.
std::string difference_list(const std::vector<row_result>& results);

// ----- running checks (exec.cpp) -----

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
