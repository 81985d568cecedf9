// SPDX-License-Identifier: GPL-2.0-only
// `kverify verify`: rows of the expected-verdict table, each run in a child process, reported as
// they arrive; `kverify check`: one row, in this process (what ctest runs for each row).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>

#include "model/cli/commands.hpp"

#ifndef KVERIFY_SOURCE_DIR
#define KVERIFY_SOURCE_DIR "."
#endif

namespace kverify::cli {
namespace {

// The table's path as the result files show it: relative to the repository when it is inside
// it (a review comment must not carry the machine's directories), else as given.
std::string shown_table_path(const std::string& path) {
    const std::string root = std::string(KVERIFY_SOURCE_DIR) + "/";
    return path.rfind(root, 0) == 0 ? path.substr(root.size()) : path;
}

row_result result_of(const table_row& row, const check& c, const verdict& v) {
    row_result r;
    r.row = row;
    r.algorithm = c.algorithm;
    r.variant = c.variant;
    r.config = c.config;
    r.v = v;
    if (!v.replay.empty()) r.fingerprint = replay_fingerprint(c, v.engine, v.search, v.replay);
    return r;
}

}  // namespace

int cmd_verify(const verify_options& o) {
    const auto t0 = std::chrono::steady_clock::now();
    check_outputs(o.report);
    if (o.repin && o.budget.no_symmetry)
        throw usage_error(
            "--repin with --no-symmetry: the counts would be of another search than the rows' "
            "(a check that declares a symmetry is pinned with it)");
    if (o.repin && o.budget.every_switch_point)
        throw usage_error(
            "--repin with --every-switch-point: the counts would be of another search than the "
            "rows' (the table is pinned without it)");
    if (o.repin && o.budget.preempt_by_choice)
        throw usage_error(
            "--repin with --preempt-by-choice: the counts would be of another search than the "
            "rows' (the table is pinned without it)");

    // The rows: the table's, selected, then this shard's.
    const table t = load_table(o.expected);
    std::vector<table_row> rows = select_rows(t, o.sel);
    if (rows.empty())
        throw usage_error("no rows selected (tier " + o.sel.tier +
                          (o.sel.filter.empty() ? "" : ", filter '" + o.sel.filter + "'") +
                          (o.sel.engine.empty() ? "" : ", engine " + o.sel.engine) + ")");
    run_info info;
    info.table_path = shown_table_path(o.expected);
    info.table_digest = t.digest;
    info.sel = o.sel;
    info.selected = rows.size();
    info.jobs = o.jobs;
    if (!o.shard.empty()) {
        unsigned index = 0, count = 0;
        parse_shard(o.shard, index, count);
        rows = shard_rows(rows, index, count, load_row_times(row_times_path(o.expected)));
        info.shard = o.shard;
    }

    unsigned split_part = 0, split_parts = 0;
    if (!o.split.empty()) {
        parse_shard(o.split, split_part, split_parts);
        ++split_part;
        info.split = o.split;
        // Relacy has no tree to cut.
        for (const table_row& row : rows)
            if (row.engine.rfind("dpor-", 0) != 0)
                throw usage_error("--split: row " + row.check + " on engine " + row.engine +
                                  " cannot be split (only the dpor engines' searches are; "
                                  "select them with --engine)");
    }

    for (const table_row& row : rows) o.budget.check_engine(row.engine);

    // One search per row, each in a child process; the report takes the verdicts in row order.
    // -j is a budget of cores: J / T rows at once of T threads each (MANUAL.md).
    std::vector<job> jobs;
    for (const table_row& row : rows) {
        jobs.push_back(job{model::find_check(row.check), row.engine, row.search});
        o.budget.apply(jobs.back().spec);
        jobs.back().spec.split_part = split_part;
        jobs.back().spec.split_parts = split_parts;
    }
    report rep(info, rows, o.report);
    rep.header();
    run_jobs(jobs, std::max(1u, o.jobs / o.budget.threads), o.progress,
             [&](std::size_t i, const verdict& v) { rep.add(result_of(rows[i], *jobs[i].c, v)); });
    rep.finish(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());

    if (!o.repin) return rep.exit_status();
    std::vector<std::pair<int, std::string>> counts;
    for (const row_result& r : rep.results())
        if (r.status == "count-changed")
            counts.emplace_back(r.row.line, std::to_string(r.v.executions));
    const int n = counts.empty() ? 0 : repin_table(o.expected, counts);
    std::printf("re-pinned %d execution count(s) in %s (no verdict changed)\n", n,
                o.expected.c_str());
    return exit_status(rep.results(), true);
}

int cmd_check(const check_options& o) {
    const table t = load_table(o.expected);
    search_spec spec;
    std::string err;
    if (!search_spec::parse(o.search, spec, err)) throw usage_error(err);
    std::vector<table_row> matches;
    for (const table_row& r : t.rows)
        if (r.check == o.name && r.search.str() == spec.str() &&
            (o.engine.empty() || r.engine == o.engine))
            matches.push_back(r);
    if (matches.empty())
        throw usage_error("no row for " + o.name + " " + spec.str() +
                          (o.engine.empty() ? "" : " on engine " + o.engine) + " in " + o.expected);
    if (matches.size() > 1)
        throw usage_error("several rows for " + o.name + " " + spec.str() +
                          ": choose one with --engine");

    const table_row& row = matches.front();
    o.budget.check_engine(row.engine);
    const check& c = *model::find_check(o.name);
    search_spec s = row.search;
    o.budget.apply(s);
    row_result r = result_of(row, c, run_here(job{&c, row.engine, s}, false, c.name));
    judge(r);
    print_verdict(c, r.v);
    std::cout << "  expected: " << row.expected << " (" << o.expected << ":" << row.line << ")\n"
              << (r.status == "ok" ? "  OK\n" : "  " + r.status + ": " + r.mismatch + "\n");
    if ((r.status != "ok" || o.trace) && !r.v.trace.empty())
        std::cout << "  counterexample trace:\n" << r.v.trace;
    return exit_status({r}, o.allow_count_changed);
}

}  // namespace kverify::cli
