// SPDX-License-Identifier: GPL-2.0-only
// `kverify merge`: the --json files of a sharded or split run, checked to come from one table and
// selection and to hold every selected row once (a split row: every part of it once, joined into
// one row), reported as verify reports them.
#include <algorithm>
#include <cstdio>
#include <fstream>

#include "model/check/split.hpp"
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
    f.info.split = j.value("split", "");
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

bool same_row(const row_result& a, const row_result& b) {
    return a.row.check == b.row.check && a.row.engine == b.row.engine &&
           a.row.search.str() == b.row.search.str();
}

std::string row_name(const row_result& r) {
    return r.row.check + " " + r.row.engine + " " + r.row.search.str();
}

// The parts of one split search, joined into the row of the whole search (model/dpor/split.cpp):
// every part of one split there once, from one build of the check; the counts summed; a
// violation that of the lowest chunk any part found, at the index the chunks before it give.
// Under the LKMM the parts overlap: the counts, and the executions before a violation, are those
// of the union of what they counted (model/check/split.hpp).
row_result join_parts(const std::vector<row_result>& parts, std::vector<std::string>* notes) {
    const row_result& first = parts.front();
    const unsigned n = first.v.search.split_parts;
    std::vector<const row_result*> by_part(n, nullptr);
    for (const row_result& p : parts) {
        const model::search_spec& s = p.v.search;
        if (s.split_parts == 0)
            throw usage_error("row " + row_name(p) + " is in the files both whole and in parts");
        if (s.split_parts != n || p.v.split.depth != first.v.split.depth ||
            p.v.split.roots != first.v.split.roots || p.algorithm != first.algorithm ||
            p.variant != first.variant || p.config != first.config)
            throw usage_error("row " + row_name(p) +
                              ": its parts come from different splits or builds (parts " +
                              std::to_string(s.split_parts) + " and " + std::to_string(n) + ")");
        if (by_part[s.split_part - 1])
            throw usage_error("row " + row_name(p) + ": part " + std::to_string(s.split_part) +
                              " of " + std::to_string(n) + " appears more than once");
        by_part[s.split_part - 1] = &p;
    }
    for (unsigned i = 0; i < n; ++i)
        if (!by_part[i])
            throw usage_error("row " + row_name(first) + ": part " + std::to_string(i + 1) +
                              " of " + std::to_string(n) + " is missing");

    row_result r = first;
    r.v.search.split_part = r.v.search.split_parts = 0;
    r.v.split = {};
    r.v.executions = r.v.blocked = r.v.stale_cut = r.v.in_place = 0;
    r.v.seconds = 0;
    r.v.trace.clear();
    r.v.replay.clear();
    r.v.detail.clear();
    r.v.also_sc.clear();
    r.fingerprint.clear();
    const row_result* violating = nullptr;
    const row_result* unfinished = nullptr;  // an error, else an inconclusive part
    // Under the LKMM the parts overlap and list what they counted (model/check/split.hpp).
    const bool by_fingerprint = first.v.split.by_fingerprint;
    std::vector<const model::split_info*> lists;
    for (const row_result* p : by_part) lists.push_back(&p->v.split);
    const auto union_of = [&](std::uint64_t limit) {
        try {
            return model::join_counted(lists, limit);
        } catch (const std::invalid_argument& e) {
            throw usage_error("row " + row_name(first) + ": " + e.what());
        }
    };
    for (const row_result* p : by_part) {
        std::uint64_t in_chunks = 0;
        for (const model::split_chunk& c : p->v.split.chunks) {
            if (c.index % n != p->v.search.split_part - 1)
                throw usage_error("row " + row_name(*p) + ": part " +
                                  std::to_string(p->v.search.split_part) +
                                  " counts a chunk of another part");
            in_chunks += c.executions + c.blocked;
        }
        const std::uint64_t total =
            p->v.found_violation() ? p->v.executions - 1 : p->v.executions + p->v.blocked;
        if (in_chunks != total)
            throw usage_error("row " + row_name(*p) + ": part " +
                              std::to_string(p->v.search.split_part) +
                              "'s counts do not add up over its chunks");
        r.v.seconds += p->v.seconds;
        if (p->v.split.by_fingerprint != by_fingerprint)
            throw usage_error("row " + row_name(*p) + ": part " +
                              std::to_string(p->v.search.split_part) +
                              (by_fingerprint ? " lists no executions by fingerprint"
                                              : " lists executions by fingerprint") +
                              " where part " + std::to_string(first.v.search.split_part) +
                              (by_fingerprint ? " does" : " does not"));
        if (p->v.found_violation()) {
            // (the lowest chunk's; under the LKMM, of the part that counts the run, the chunk's
            // owner: another part stops at the same violation, untraced, when it is above the cut)
            const auto rank = [n](const row_result* x) {
                const std::uint64_t c = x->v.split.violation_chunk;
                return std::make_pair(
                    c, c % n != x->v.search.split_part - 1 || x->v.split.violation_elsewhere);
            };
            if (!violating || rank(p) < rank(violating)) violating = p;
        } else if (p->v.outcome == "error") {
            if (!unfinished || unfinished->v.outcome != "error") unfinished = p;
        } else if (p->v.outcome == "inconclusive" && !unfinished) {
            unfinished = p;
        }
    }
    if (violating) {
        // The whole search stops at its first violation: every execution of the chunks before
        // its chunk (of every part), those of its chunk before it, and itself.
        const std::uint64_t at = violating->v.split.violation_chunk;
        std::uint64_t index = 1, blocked = 0;
        if (by_fingerprint) {
            if (violating->v.split.violation_elsewhere)
                throw usage_error("row " + row_name(*violating) + ": part " +
                                  std::to_string(violating->v.search.split_part) +
                                  " met a violation in a run of chunk " + std::to_string(at) +
                                  ", and part " + std::to_string(at % n + 1) +
                                  ", which counts it, reports none there");
            const model::union_counts u = union_of(at);
            index += u.executions + u.blocked;
            blocked = u.blocked;
        } else {
            for (const row_result* p : by_part)
                for (const model::split_chunk& c : p->v.split.chunks)
                    if (c.index <= at) {
                        index += c.executions + c.blocked;
                        blocked += c.blocked;
                    }
        }
        const double seconds = r.v.seconds;
        r.v = violating->v;
        r.v.search.split_part = r.v.search.split_parts = 0;
        r.v.split = {};
        r.v.executions = index;
        r.v.blocked = blocked;
        r.v.seconds = seconds;
        r.fingerprint = violating->fingerprint;
        return r;
    }
    if (by_fingerprint) {  // (with an unfinished part: what the parts counted between them)
        const model::union_counts u = union_of(UINT64_MAX);
        r.v.executions = u.executions;
        r.v.blocked = u.blocked;
        r.v.stale_cut = u.stale;
    } else {
        for (const row_result* p : by_part) {
            r.v.executions += p->v.executions;
            r.v.blocked += p->v.blocked;
            r.v.stale_cut += p->v.stale_cut;
            r.v.in_place += p->v.in_place;
        }
    }
    if (unfinished) {
        r.v.outcome = unfinished->v.outcome;
        r.v.detail = "part " + std::to_string(unfinished->v.search.split_part) + " of " +
                     std::to_string(n) + ": " + unfinished->v.detail;
    } else {
        r.v.outcome = "pass";
    }
    if (by_fingerprint) {
        // What the overlap cost: the runs the parts counted between them, against the union's.
        std::uint64_t counted = 0;
        for (const row_result* p : by_part) counted += p->v.executions + p->v.blocked;
        const std::uint64_t whole = r.v.executions + r.v.blocked;
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.2f", whole ? double(counted) / double(whole) : 0.0);
        const std::string note = "its " + std::to_string(n) + " parts counted " +
                                 std::to_string(counted) + " executions between them, " + buf +
                                 " times the whole search's " + std::to_string(whole) +
                                 " (under the LKMM the parts overlap)";
        r.v.detail = r.v.detail.empty() ? note : r.v.detail + "; " + note;
        if (notes) notes->push_back(row_name(r) + ": " + note);
    }
    return r;
}

// The rows of split searches, each joined from its parts; the other rows as they are.
std::vector<row_result> join_split_rows(std::vector<row_result> results,
                                        std::vector<std::string>& notes) {
    std::vector<row_result> out;
    for (std::size_t i = 0; i < results.size(); ++i) {
        if (results[i].v.search.split_parts == 0) {
            bool parts_too = false;
            for (const row_result& o : results)
                parts_too = parts_too || (o.v.search.split_parts > 0 && same_row(o, results[i]));
            if (parts_too)
                throw usage_error("row " + row_name(results[i]) +
                                  " is in the files both whole and in parts");
            out.push_back(std::move(results[i]));
            continue;
        }
        bool joined = false;
        for (std::size_t k = 0; k < i; ++k)
            joined =
                joined || (results[k].v.search.split_parts > 0 && same_row(results[k], results[i]));
        if (joined) continue;
        std::vector<row_result> parts;
        for (std::size_t k = i; k < results.size(); ++k)
            if (results[k].v.search.split_parts > 0 && same_row(results[k], results[i]))
                parts.push_back(results[k]);
        out.push_back(join_parts(parts, &notes));
    }
    return out;
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
        shards += (shards.empty() ? "" : ", ") +
                  (f.info.shard.empty() ? "unsharded" : f.info.shard) +
                  (f.info.split.empty() ? "" : " split " + f.info.split);
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
    std::vector<std::string> notes;  // (of the rows joined from overlapping parts)
    results = join_split_rows(std::move(results), notes);
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
    for (const std::string& note : notes) std::printf("%s\n", note.c_str());
    return rep.exit_status();
}

}  // namespace kverify::cli
