// SPDX-License-Identifier: GPL-2.0-only
// `kverify merge`: the --json files of a sharded run, checked to come from one table and
// selection and to hold every selected row once, reported as verify reports them.
#include <algorithm>
#include <fstream>

#include "model/cli/commands.hpp"

namespace kverify::cli {
namespace {

struct shard_file {
    run_info info;  // of the run that wrote it
    json rows;
};

shard_file read_shard(const std::string& path) {
    check_readable(path, "result file");
    std::ifstream in(path);
    if (!in) throw usage_error("cannot read result file " + path);
    const json j = json::parse(in, nullptr, false);
    if (j.is_discarded() || !j.is_object() || j.value("kverify_results", 0) != 1 ||
        !j.contains("rows") || !j["rows"].is_array())
        throw usage_error(path + ": not a kverify --json result file");
    shard_file f;
    const json sel = j.value("selection", json::object());
    f.info.table_path = j.value("table", "");
    f.info.table_digest = j.value("table_digest", "");
    f.info.sel = selection{sel.value("tier", ""), sel.value("filter", ""), sel.value("engine", "")};
    f.info.shard = j.value("shard", "");
    f.info.selected = j.value("selected", std::size_t(0));
    f.info.jobs = j.value("jobs", 1u);
    f.info.wall_seconds = j.value("wall_seconds", 0.0);
    f.rows = j["rows"];
    return f;
}

bool same_run(const run_info& a, const run_info& b) {
    return a.table_digest == b.table_digest && a.sel.tier == b.sel.tier &&
           a.sel.filter == b.sel.filter && a.sel.engine == b.sel.engine && a.selected == b.selected;
}

}  // namespace

int cmd_merge(const merge_options& o) {
    check_outputs(o.report);

    // The shards' rows, in table order; the run is the first file's, its wall time and jobs the
    // largest of any shard's.
    run_info info;
    std::vector<row_result> results;
    std::string shards;
    for (const std::string& path : o.files) {
        const shard_file f = read_shard(path);
        if (&path == &o.files.front()) {
            info = f.info;
            info.shard.clear();
            info.jobs = 1;
            info.wall_seconds = 0;
        } else if (!same_run(f.info, info)) {
            throw usage_error(path + ": comes from another table or selection than " +
                              o.files.front());
        }
        shards +=
            (shards.empty() ? "" : ", ") + (f.info.shard.empty() ? "unsharded" : f.info.shard);
        info.wall_seconds = std::max(info.wall_seconds, f.info.wall_seconds);
        info.jobs = std::max(info.jobs, f.info.jobs);
        for (const json& r : f.rows) {
            try {
                results.push_back(row_from_json(r));
            } catch (const usage_error& e) {
                throw usage_error(path + ": " + e.what());
            }
        }
    }
    std::stable_sort(results.begin(), results.end(), [](const row_result& a, const row_result& b) {
        return a.row.line < b.row.line;
    });
    for (std::size_t i = 1; i < results.size(); ++i) {
        const table_row &a = results[i - 1].row, &b = results[i].row;
        if (a.check == b.check && a.engine == b.engine && a.search.str() == b.search.str())
            throw usage_error("row " + a.check + " " + a.engine + " " + a.search.str() +
                              " appears in more than one file");
    }
    if (results.size() != info.selected)
        throw usage_error("the files hold " + std::to_string(results.size()) + " of the " +
                          std::to_string(info.selected) +
                          " selected rows (shards given: " + shards + ")");

    std::vector<table_row> rows;
    for (const row_result& r : results) rows.push_back(r.row);
    report rep(info, rows, o.report);
    rep.header();
    for (row_result& r : results) rep.add(std::move(r));
    rep.finish(info.wall_seconds);
    return rep.exit_status();
}

}  // namespace kverify::cli
