// SPDX-License-Identifier: GPL-2.0-only
// The report of a run of table rows, for verify and merge alike: judging each verdict against
// its row, the verdict table and its epilogue on stdout, and the result files (JSON, JUnit XML
// with tinyxml2, a Markdown summary).
#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>

#include <tinyxml2.h>

#include "model/cli/cli.hpp"

namespace kverify::cli {

std::string format_seconds(double s) {
    char buf[32];
    if (s < 0.001) return "<1 ms";
    if (s < 1)
        std::snprintf(buf, sizeof buf, "%.0f ms", s * 1000);
    else if (s < 60)
        std::snprintf(buf, sizeof buf, "%.2f s", s);
    else
        std::snprintf(buf, sizeof buf, "%dm%02ds", int(s) / 60, int(s) % 60);
    return buf;
}

void judge(row_result& r) {
    const verdict& v = r.v;
    r.mismatch.clear();
    if (v.outcome == "error") {
        r.status = "error";
        r.mismatch = v.detail;
    } else if (v.outcome == "inconclusive" && r.row.expected != "inconclusive") {
        r.status = "inconclusive";
        r.mismatch = "inconclusive: " + v.detail;
    } else if (v.search.split_parts > 0) {
        // One part of a split search: only merge, with every part, can judge the row.
        r.status = "part";
        r.mismatch = "part " + std::to_string(v.search.split_part) + " of " +
                     std::to_string(v.search.split_parts) + " (kverify merge judges the row)";
    } else if (v.outcome != r.row.expected) {
        r.status = "MISMATCH";
        r.mismatch = "expected " + r.row.expected + ", got " + v.outcome;
    } else if (r.row.executions != "-" && std::to_string(v.executions) != r.row.executions) {
        // Every search is deterministic: the explored space changed, the verdict did not.
        r.status = "count-changed";
        r.mismatch = "executions changed: pinned " + r.row.executions + ", got " +
                     std::to_string(v.executions) + " (verdict " + v.outcome + " unchanged)";
    } else {
        r.status = "ok";
    }
}

int exit_status(const std::vector<row_result>& results, bool allow_count_changed) {
    bool differs = false, inconclusive = false;
    for (const row_result& r : results) {
        differs = differs || r.status == "MISMATCH" || r.status == "error" ||
                  (r.status == "count-changed" && !allow_count_changed);
        inconclusive = inconclusive || r.status == "inconclusive";
    }
    return differs ? exit_differs : inconclusive ? exit_inconclusive : exit_ok;
}

namespace {

// ----- the result files -----

json results_to_json(const run_info& info, const std::vector<row_result>& results,
                     bool allow_count_changed) {
    json rows = json::array();
    std::map<std::string, int> counts = {
        {"ok", 0}, {"MISMATCH", 0}, {"count-changed", 0}, {"inconclusive", 0}, {"error", 0}};
    for (const row_result& r : results) {
        rows.push_back(row_to_json(r));
        ++counts[r.status];
    }
    return {{"kverify_results", 1},
            {"table", info.table_path},
            {"table_digest", info.table_digest},
            {"selection",
             {{"tier", info.sel.tier}, {"filter", info.sel.filter}, {"engine", info.sel.engine}}},
            {"shard", info.shard},
            {"split", info.split},
            {"selected", info.selected},
            {"jobs", info.jobs},
            {"wall_seconds", info.wall_seconds},
            {"summary",
             {{"rows", results.size()},
              {"ok", counts["ok"]},
              {"mismatch", counts["MISMATCH"]},
              {"count_changed", counts["count-changed"]},
              {"inconclusive", counts["inconclusive"]},
              {"error", counts["error"]}}},
            {"exit_status", exit_status(results, allow_count_changed)},
            {"rows", rows}};
}

}  // namespace

// XML 1.0 text: UTF-8, and no control characters but tab, newline and carriage return. A
// control character becomes '?', a byte that is no part of a well-formed UTF-8 sequence (or
// one that encodes a surrogate or a non-character XML forbids) U+FFFD.
std::string xml_safe(const std::string& s) {
    std::string r;
    r.reserve(s.size());
    const auto byte = [&s](std::size_t i) { return static_cast<unsigned char>(s[i]); };
    for (std::size_t i = 0; i < s.size();) {
        const unsigned char c = byte(i);
        if (c < 0x80) {
            r += c < 0x20 && c != '\t' && c != '\n' && c != '\r' ? '?' : char(c);
            ++i;
            continue;
        }
        const std::size_t n = c >= 0xc2 && c <= 0xdf   ? 2
                              : c >= 0xe0 && c <= 0xef ? 3
                              : c >= 0xf0 && c <= 0xf4 ? 4
                                                       : 0;
        std::uint32_t cp = n == 2 ? c & 0x1f : n == 3 ? c & 0x0f : c & 0x07;
        bool ok = n != 0 && i + n <= s.size();
        for (std::size_t k = 1; ok && k < n; ++k) {
            ok = (byte(i + k) & 0xc0) == 0x80;
            cp = cp << 6 | (byte(i + k) & 0x3f);
        }
        ok = ok && !(n == 3 && cp < 0x800) && !(n == 4 && (cp < 0x10000 || cp > 0x10ffff)) &&
             !(cp >= 0xd800 && cp <= 0xdfff) && cp != 0xfffe && cp != 0xffff;
        if (ok) {
            r.append(s, i, n);
            i += n;
        } else {
            r += "\xef\xbf\xbd";  // U+FFFD, for the one byte that starts no valid sequence
            ++i;
        }
    }
    return r;
}

namespace {

// Seconds as JUnit readers parse them: a plain decimal, never an exponent.
std::string junit_time(double s) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6f", s > 0 ? s : 0.0);
    return buf;
}

// A testcase's classname: "algorithm.variant" with the dots inside the variant (kernel versions,
// v6.7) as '_', since JUnit readers take the last dot as the one between package and class.
std::string junit_classname(const row_result& r) {
    std::string v = r.variant;
    std::replace(v.begin(), v.end(), '.', '_');
    return xml_safe(r.algorithm + "." + v);
}

std::string row_title(const table_row& r) {
    return r.check + " " + r.engine + " " + r.search.str();
}

std::string junit_xml(const std::vector<row_result>& results, double wall_seconds) {
    // One testsuite per algorithm, in order of first appearance; one testcase per row.
    std::vector<std::string> suites;
    for (const row_result& r : results)
        if (std::find(suites.begin(), suites.end(), r.algorithm) == suites.end())
            suites.push_back(r.algorithm);
    const auto is_failure = [](const row_result& r) {
        return r.status == "MISMATCH" || r.status == "count-changed";
    };
    const auto is_error = [](const row_result& r) {
        return r.status == "error" || r.status == "inconclusive";
    };
    int failures = 0, errors = 0;
    for (const row_result& r : results) {
        failures += is_failure(r);
        errors += is_error(r);
    }

    tinyxml2::XMLPrinter p;
    p.PushHeader(false, true);
    p.OpenElement("testsuites");
    p.PushAttribute("name", "kverify");
    p.PushAttribute("tests", int(results.size()));
    p.PushAttribute("failures", failures);
    p.PushAttribute("errors", errors);
    p.PushAttribute("time", junit_time(wall_seconds).c_str());
    for (const std::string& suite : suites) {
        int n = 0, f = 0, e = 0;
        double t = 0;
        for (const row_result& r : results) {
            if (r.algorithm != suite) continue;
            ++n;
            f += is_failure(r);
            e += is_error(r);
            t += r.v.seconds;
        }
        p.OpenElement("testsuite");
        p.PushAttribute("name", xml_safe("model." + suite).c_str());
        p.PushAttribute("tests", n);
        p.PushAttribute("failures", f);
        p.PushAttribute("errors", e);
        p.PushAttribute("time", junit_time(t).c_str());
        for (const row_result& r : results) {
            if (r.algorithm != suite) continue;
            p.OpenElement("testcase");
            p.PushAttribute("classname", junit_classname(r).c_str());
            p.PushAttribute("name", xml_safe(row_title(r.row)).c_str());
            p.PushAttribute("time", junit_time(r.v.seconds).c_str());
            if (r.status != "ok") {
                p.OpenElement(is_failure(r) ? "failure" : "error");
                p.PushAttribute("type", xml_safe(r.status).c_str());
                p.PushAttribute("message", xml_safe(r.mismatch).c_str());
                std::string body = r.mismatch + "\n";
                if (!r.v.detail.empty()) body += r.v.detail + "\n";
                if (!r.v.trace.empty()) body += "counterexample trace:\n" + r.v.trace;
                p.PushText(xml_safe(body).c_str());
                p.CloseElement();
            }
            std::ostringstream out;
            out << "config: " << r.config << "\nverdict: " << r.v.outcome << " (expected "
                << r.row.expected << ")\nexecutions: " << r.v.executions << " (pinned "
                << r.row.executions << ")\n";
            if (r.v.blocked) out << "blocked: " << r.v.blocked << "\n";
            if (!r.v.also_sc.empty()) out << "also under SC: " << r.v.also_sc << "\n";
            if (!r.v.replay.empty()) out << "replay: " << r.v.replay << "\n";
            p.OpenElement("system-out");
            p.PushText(xml_safe(out.str()).c_str());
            p.CloseElement();
            p.CloseElement();  // testcase
        }
        p.CloseElement();  // testsuite
    }
    p.CloseElement();  // testsuites
    return p.CStr();
}

std::string md_cell(const std::string& s) {
    std::string r;
    for (char c : s) {
        if (c == '|')
            r += "\\|";
        else if (c == '\n')
            r += ' ';
        else
            r += c;
    }
    return r;
}

std::string kind_of(const search_spec& s) {
    switch (s.kind) {
        case model::search_kind::exhaustive:
            return "exhaustive";
        case model::search_kind::bounded:
            return "bounded";
        case model::search_kind::sampled:
            return "sampled";
    }
    return "?";
}

std::string markdown_summary(const std::vector<row_result>& results, const run_info& info,
                             bool allow_count_changed) {
    std::map<std::string, int> counts;
    for (const row_result& r : results) ++counts[r.status];
    std::ostringstream md;
    const int code = exit_status(results, allow_count_changed);
    md << "## kverify: " << results.size() << " checks, "
       << (code == exit_ok             ? "every verdict as expected"
           : code == exit_inconclusive ? "some searches inconclusive"
                                       : "verdicts differ")
       << "\n\n";
    md << "Table `" << info.table_path << "`, tier " << info.sel.tier;
    if (!info.sel.filter.empty()) md << ", filter `" << md_cell(info.sel.filter) << "`";
    if (!info.sel.engine.empty()) md << ", engine " << info.sel.engine;
    if (!info.shard.empty()) md << ", shard " << info.shard;
    md << ".\n\n| status | rows |\n|---|---|\n";
    for (const char* s : {"ok", "MISMATCH", "count-changed", "inconclusive", "error"})
        md << "| " << s << " | " << counts[s] << " |\n";

    bool any_diff = false;
    for (const row_result& r : results) any_diff = any_diff || r.status != "ok";
    if (any_diff) {
        md << "\n### Rows that differ from the table\n\n"
           << "| check | engine | search | expected | verdict | status | what |\n"
           << "|---|---|---|---|---|---|---|\n";
        for (const row_result& r : results) {
            if (r.status == "ok") continue;
            md << "| `" << md_cell(r.row.check) << "` | " << r.row.engine << " | "
               << r.row.search.str() << " | " << md_cell(r.row.expected) << " | "
               << md_cell(r.v.outcome) << " | " << r.status << " | " << md_cell(r.mismatch)
               << " |\n";
        }
        if (counts["count-changed"])
            md << "\n`count-changed`: the verdict is unchanged but the search explored a "
                  "different number of executions; `kverify verify --repin` re-pins the counts "
                  "(never a verdict).\n";
    }

    // What only some engines report: executions cut short, and whether a violation also occurs
    // under sequential consistency.
    bool engine_details = false;
    for (const row_result& r : results)
        engine_details = engine_details || r.v.blocked != 0 || !r.v.also_sc.empty();
    if (engine_details) {
        md << "\n### Engine details\n\n"
           << "| check | engine | search | verdict | also under SC | executions | blocked |\n"
           << "|---|---|---|---|---|---|---|\n";
        for (const row_result& r : results) {
            if (r.v.blocked == 0 && r.v.also_sc.empty()) continue;
            md << "| `" << md_cell(r.row.check) << "` | " << r.row.engine << " | "
               << r.row.search.str() << " | " << md_cell(r.v.outcome) << " | "
               << (r.v.also_sc.empty() ? "-" : r.v.also_sc) << " | " << r.v.executions << " | "
               << r.v.blocked << " |\n";
        }
    }

    // Per variant: how many rows of each search kind passed or found a violation.
    struct tally {
        std::map<std::string, std::pair<int, int>> by_kind;  // kind -> (pass, violation)
        std::set<std::string> bounds;                        // bounded:K, sampled:N seen
        std::map<std::string, int> classes;                  // violation classes found
        int rows = 0, differ = 0;
    };
    std::vector<std::pair<std::string, tally>> variants;
    for (const row_result& r : results) {
        const std::string key = r.algorithm + "\t" + r.variant;
        auto it = std::find_if(variants.begin(), variants.end(),
                               [&](const auto& v) { return v.first == key; });
        if (it == variants.end()) it = variants.insert(variants.end(), {key, tally{}});
        tally& t = it->second;
        ++t.rows;
        t.differ += r.status != "ok";
        const std::string kind = kind_of(r.row.search);
        if (kind != "exhaustive") t.bounds.insert(r.row.search.str());
        if (r.v.outcome == "pass")
            ++t.by_kind[kind].first;
        else if (r.v.found_violation()) {
            ++t.by_kind[kind].second;
            ++t.classes[r.v.outcome];
        }
    }
    md << "\n### Verdicts per variant\n\n"
       << "Each cell: rows that pass / rows that find a violation.\n\n"
       << "| algorithm | variant | rows | exhaustive | bounded | sampled | violations found | "
          "as expected |\n|---|---|---|---|---|---|---|---|\n";
    for (const auto& [key, t] : variants) {
        const std::size_t tab = key.find('\t');
        md << "| " << md_cell(key.substr(0, tab)) << " | " << md_cell(key.substr(tab + 1)) << " | "
           << t.rows;
        for (const char* kind : {"exhaustive", "bounded", "sampled"}) {
            const auto it = t.by_kind.find(kind);
            if (it == t.by_kind.end())
                md << " | -";
            else
                md << " | " << it->second.first << " / " << it->second.second;
        }
        md << " | ";
        bool first = true;
        for (const auto& [cls, n] : t.classes) {
            md << (first ? "" : ", ") << md_cell(cls) << " x" << n;
            first = false;
        }
        if (t.classes.empty()) md << "none";
        md << " | " << (t.differ ? "no (" + std::to_string(t.differ) + ")" : std::string("yes"))
           << " |\n";
    }
    md << "\nSearches: **exhaustive** explores every execution of the configuration (within its "
          "interrupt, migration and task budgets); **bounded:K** only executions with at most K "
          "preemptive context switches; **sampled:N** N random executions. A pass is as strong "
          "as its search, no stronger.\n";
    return md.str();
}

}  // namespace

// ----- the report -----

report::report(run_info info, const std::vector<table_row>& rows, report_options o)
    : info_(std::move(info)), o_(std::move(o)) {
    for (const table_row& r : rows) {
        name_width_ = std::max(name_width_, r.check.size());
        verdict_width_ = std::max(verdict_width_, r.expected.size());
    }
    results_.reserve(rows.size());
}

void report::header() const {
    if (!o_.rows) return;
    std::printf("%-*s  %-9s  %-14s  %-*s  %-*s  %11s  %8s  %s\n", int(name_width_), "check",
                "engine", "search", int(verdict_width_), "verdict", int(verdict_width_), "expected",
                "executions", "time", "status");
    std::fflush(stdout);
}

void report::add(row_result r) {
    judge(r);
    if (o_.rows)
        std::printf("%-*s  %-9s  %-14s  %-*s  %-*s  %11llu  %7.2fs  %s\n", int(name_width_),
                    r.row.check.c_str(), r.row.engine.c_str(), r.row.search.str().c_str(),
                    int(verdict_width_), r.v.outcome.c_str(), int(verdict_width_),
                    r.row.expected.c_str(), static_cast<unsigned long long>(r.v.executions),
                    r.v.seconds, r.status.c_str());
    std::fflush(stdout);
    results_.push_back(std::move(r));
}

void report::finish(double wall_seconds) {
    info_.wall_seconds = wall_seconds;
    print_epilogue();
    write_files();
}

// The rows that differ (with their traces), the count changes, and the summary line.
void report::print_epilogue() const {
    std::map<std::string, int> counts;
    for (const row_result& r : results_) ++counts[r.status];
    for (const row_result& r : results_) {
        const bool differs = r.status == "MISMATCH" || r.status == "error";
        if (!differs && r.status != "inconclusive" && !(o_.traces && !r.v.trace.empty())) continue;
        std::printf("\n%s: %s\n", row_title(r.row).c_str(),
                    r.status == "ok" ? ("expected " + r.row.expected).c_str() : r.mismatch.c_str());
        if (!r.v.detail.empty()) std::printf("  %s\n", r.v.detail.c_str());
        if (!r.v.also_sc.empty()) std::printf("  also under SC: %s\n", r.v.also_sc.c_str());
        if ((differs || o_.traces) && !r.v.trace.empty())
            std::printf("  counterexample trace:\n%s", r.v.trace.c_str());
    }
    if (counts["count-changed"]) {
        std::printf("\nexecution counts changed, verdicts unchanged:\n");
        for (const row_result& r : results_)
            if (r.status == "count-changed")
                std::printf("  %s: pinned %s, got %llu\n", row_title(r.row).c_str(),
                            r.row.executions.c_str(),
                            static_cast<unsigned long long>(r.v.executions));
        std::printf("('kverify verify --repin' with the same selection re-pins these counts)\n");
    }
    if (counts["part"]) {
        // A part of a search is no verdict of its row: merge joins the parts, and judges.
        std::printf(
            "\n%zu checks, %d of them as part %s of their search (kverify merge joins every "
            "part and judges the rows), %d inconclusive, %d errors (%s wall, -j %u)\n",
            results_.size(), counts["part"], info_.split.c_str(), counts["inconclusive"],
            counts["error"], format_seconds(info_.wall_seconds).c_str(), info_.jobs);
        std::fflush(stdout);
        return;
    }
    std::vector<summary_row> summary;
    for (const row_result& r : results_)
        summary.push_back(
            {r.row.check, r.algorithm, r.variant, r.row.engine, r.v.outcome, r.status});
    std::printf("\n%s", variant_summary(summary, colour_wanted(1)).c_str());
    const std::string differ = difference_list(results_);
    if (!differ.empty()) std::printf("\n%s", differ.c_str());
    // The time on a line of its own keeps the totals, the last line (scripts read it with
    // tail -1), within 80 columns for any table of fewer than 10000 rows.
    std::printf("\nwall time %s, -j %u\n", format_seconds(info_.wall_seconds).c_str(), info_.jobs);
    std::printf("%s\n", totals_line(results_).c_str());
    std::fflush(stdout);
}

std::string totals_line(const std::vector<row_result>& results) {
    std::map<std::string, int> counts;
    for (const row_result& r : results) ++counts[r.status];
    return std::to_string(results.size()) + " checks: " + std::to_string(counts["ok"]) +
           " as expected, " + std::to_string(counts["MISMATCH"] + counts["error"]) + " differ, " +
           std::to_string(counts["count-changed"]) + " count changed, " +
           std::to_string(counts["inconclusive"]) + " inconclusive";
}

void report::write_files() const {
    if (!o_.json.empty())
        write_file(o_.json, results_to_json(info_, results_, o_.allow_count_changed)
                                    .dump(2, ' ', false, json::error_handler_t::replace) +
                                "\n");
    if (!o_.junit.empty()) write_file(o_.junit, junit_xml(results_, info_.wall_seconds));
    if (!o_.markdown.empty())
        write_file(o_.markdown, markdown_summary(results_, info_, o_.allow_count_changed));
    if (!o_.html.empty()) write_html(o_.html, info_, results_, totals_line(results_));
}

}  // namespace kverify::cli
