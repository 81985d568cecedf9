// SPDX-License-Identifier: GPL-2.0-only
// kverify: the model checker's command line (parsed with CLI11). Runs the registered checks
// (tests/model) and compares each verdict with the expected
// verdicts kept as data in proofs/expected/verdicts.tsv.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <regex>
#include <sstream>

#include <CLI/CLI.hpp>

#include "model/cli/cli.hpp"

#ifndef KVERIFY_SOURCE_DIR
#define KVERIFY_SOURCE_DIR "."
#endif

namespace kverify::cli {
namespace {

const char* const footer_text = R"(
searches (S):
  exhaustive   every execution of the configuration (within its interrupt, migration and task
               budgets)
  bounded:K    executions with at most K preemptive context switches (0 <= K <= 64)
  sampled:N    N random executions (reproducible: seeded by the execution index)
  A pass is as strong as its search: every verdict is printed with its search.

engines (E): relacy (Relacy Race Detector, C++11 memory model), dpor-rc11 and dpor-sc (the
  project's own DPOR engine under RC11 or sequential consistency); 'kverify list' shows which
  engines can run a check. A row of the table names its engine; 'run' defaults to relacy.

parallel runs: 'verify -j N' runs each row in a child process of its own (Relacy keeps global
  state, so two searches never share a process, and threads are not an option); the table is
  printed in table order whatever N is. 'run', 'check' and 'replay' run in this process.

sharding: 'verify --shard i/N' runs shard i (1-based) of N of the selected rows. The split is
  deterministic for one table and selection, balanced by the pinned execution counts, and the
  N shards cover every selected row exactly once. 'kverify merge' joins their --json files.

count-changed: the verdict matches but the number of executions explored differs (a harmless
  edit to an algorithm moves counts). It fails verify unless --allow-count-changed;
  'verify --repin' rewrites the executions column of such rows, never a verdict.

progress: on stderr, only when stderr is a terminal (or with --progress): the checks running,
  executions so far, executions per second, elapsed time. Nothing extra in CI logs.

exit status:
  0  every verdict as expected (verify, check, merge); no violation found (run, replay)
  1  a verdict differs, a check's process died (error), or only its execution count changed
     (count-changed, unless --allow-count-changed); a violation was found (run, replay)
  2  bad usage: unknown command, option, check, engine or search, bad regex, unreadable or
     malformed table or result file, --shard out of range; a one-line message says which
  3  inconclusive: a search ran out of its --budget or --max-executions (and nothing
     differs)

files:
  proofs/expected/verdicts.tsv   the expected verdicts (see its header)
  --json FILE      every row with its verdict, counts, trace and replay string
  --junit FILE     JUnit XML, one testcase per row; failures carry the mismatch and the trace
  --markdown FILE  a summary for a review comment: verdicts per variant, by search kind
  replay files     JSON: check, engine, search, limits and the engine's replay string; a row
                   of a --json file is one too

examples:
  kverify verify --tier all -j 2 --json results.json
  kverify verify --shard 2/4 --json shard-2.json      (then: kverify merge shard-*.json)
  kverify run objpool/v6.7/c2-o1-np --search bounded:2 --save-replay cex.json
  kverify replay cex.json
)";

std::string default_table() {
    return std::string(KVERIFY_SOURCE_DIR) + "/proofs/expected/verdicts.tsv";
}

std::string joined(const std::vector<std::string>& names) {
    std::string all;
    for (const std::string& e : names) all += (all.empty() ? "" : ", ") + e;
    return all;
}

std::string joined_engines() { return joined(model::known_engines()); }

// Fails early, before any search, when a result file cannot be written.
void check_writable(const std::string& path) {
    if (path.empty()) return;
    std::ofstream out(path, std::ios::app);
    if (!out) throw usage_error("cannot write " + path);
}

// ----- validators: each failure is one line naming what was wrong -----

const CLI::Validator engine_name(
    [](std::string& e) -> std::string {
        for (const std::string& k : model::known_engines())
            if (k == e) return {};
        return "unknown engine '" + e + "' (known: " + joined_engines() + ")";
    },
    "", "engine");

const CLI::Validator check_name(
    [](std::string& n) -> std::string {
        return model::find_check(n) ? std::string()
                                    : "unknown check '" + n + "' (see 'kverify list')";
    },
    "", "check");

const CLI::Validator search_text(
    [](std::string& s) -> std::string {
        search_spec spec;
        std::string err;
        return search_spec::parse(s, spec, err) ? std::string() : err;
    },
    "", "search");

const CLI::Validator regex_text(
    [](std::string& s) -> std::string {
        try {
            std::regex re(s);
        } catch (const std::regex_error& e) {
            return "invalid regex '" + s + "': " + e.what();
        }
        return {};
    },
    "", "regex");

const CLI::Validator shard_text(
    [](std::string& s) -> std::string {
        unsigned i = 0, n = 0;
        return parse_shard(s, i, n) ? std::string()
                                    : "shard '" + s + "' must be i/N with 1 <= i <= N";
    },
    "", "shard");

// ----- options -----

struct options {
    std::string expected = default_table();
    std::string tier = "quick";
    std::string filter;
    std::string engine;
    std::string search = "exhaustive";
    std::string shard;
    unsigned jobs = default_jobs();
    double budget = 0;
    std::uint64_t max_executions = 0;
    bool trace = false, raw_trace = false;
    bool progress = false, no_progress = false;
    bool repin = false, allow_count_changed = false, no_shrink = false;
    std::string json_out, junit_out, markdown_out, save_replay;
    std::string name, search_arg, replay_file, replay_check;
    std::vector<std::string> merge_files;

    bool show_progress() const {
        if (no_progress) return false;
        return progress || ::isatty(STDERR_FILENO);
    }
};

search_spec make_spec(const options& o, const std::string& s) {
    search_spec spec;
    std::string err;
    if (!search_spec::parse(s, spec, err)) throw usage_error(err);
    spec.budget_s = o.budget;
    spec.execution_cap = o.max_executions;
    spec.raw_trace = o.raw_trace;
    return spec;
}

void print_verdict(const check& c, const verdict& v) {
    std::cout << c.name << "\n  " << c.algorithm << " " << c.variant << " [" << c.config
              << "]\n  engine: " << v.engine << "  search: " << v.search.str();
    if (v.search.limits.any()) std::cout << " " << v.search.limits.str();
    std::cout << "  verdict: " << v.outcome << "  executions: " << v.executions;
    if (v.blocked) std::cout << "  blocked: " << v.blocked;
    if (!v.also_sc.empty()) std::cout << "  also under SC: " << v.also_sc;
    std::cout << "  time: " << format_seconds(v.seconds) << "\n";
    if (!v.detail.empty()) std::cout << "  " << v.detail << "\n";
}

std::string saved_verdict(const check& c, const verdict& v) {
    json j = verdict_to_json(v);
    j["kverify_replay"] = 1;
    j["check"] = c.name;
    return j.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

// ----- commands -----

int cmd_list(const options& o) {
    const std::regex re(o.filter.empty() ? std::string(".*") : o.filter);
    for (const check& c : model::registry()) {
        if (!std::regex_search(c.name, re) || (!o.engine.empty() && !c.supports(o.engine)))
            continue;
        std::string engines;
        for (const std::string& e : c.engines) engines += (engines.empty() ? "" : ",") + e;
        std::cout << c.name << "\t" << c.algorithm << "\t" << c.variant << "\t" << c.config << "\t"
                  << engines << "\n";
    }
    return exit_ok;
}

int cmd_evidence(const options& o) {
    const table t = load_table(o.expected);
    if (!o.name.empty()) {
        std::cout << evidence_markdown(t, o.name);
        return exit_ok;
    }
    bool first = true;
    for (const std::string& a : evidence_algorithms(t)) {
        std::cout << (first ? "" : "\n") << "## " << a << "\n\n" << evidence_markdown(t, a);
        first = false;
    }
    return exit_ok;
}

int cmd_run(const options& o) {
    const check& c = *model::find_check(o.name);
    const std::string engine = o.engine.empty() ? "relacy" : o.engine;
    if (!c.supports(engine))
        throw usage_error("check " + c.name + " cannot run on engine '" + engine +
                          "' (it runs on: " + joined(c.engines) + ")");
    check_writable(o.save_replay);
    const job j{&c, engine, make_spec(o, o.search)};
    const verdict v = run_here(j, o.show_progress(), c.name);
    print_verdict(c, v);
    if (!v.found_violation()) return v.outcome == "inconclusive" ? exit_inconclusive : exit_ok;

    verdict cex = v;
    if (!o.no_shrink) {
        const shrink_result s = shrink(j, v, o.show_progress());
        if (s.shrunk) {
            cex = s.v;
            std::cout << "  counterexample shrunk from " << v.search.str() << " to "
                      << cex.search.str()
                      << (cex.search.limits.any() ? " " + cex.search.limits.str() : "") << " ("
                      << s.searches << " smaller searches, " << s.executions
                      << " executions); found at execution " << cex.executions << ":\n";
        } else {
            std::cout << "  counterexample (no smaller search shows it: " << s.searches
                      << " tried, " << s.executions << " executions), found at execution "
                      << cex.executions << ":\n";
        }
    } else {
        std::cout << "  counterexample, found at execution " << cex.executions << ":\n";
    }
    std::cout << cex.trace;
    if (!o.save_replay.empty()) {
        write_file(o.save_replay, saved_verdict(c, cex));
        std::cout << "  saved for 'kverify replay " << o.save_replay << "'\n";
    }
    return exit_differs;
}

// Reads a replay file: one verdict object with "check", or a --json result file (the row named
// by --check, or its first row with a replay string).
std::pair<std::string, verdict> read_replay(const std::string& path, const std::string& which) {
    std::ifstream in(path);
    if (!in) throw usage_error("cannot read replay file " + path);
    const json j = json::parse(in, nullptr, false);
    if (j.is_discarded()) throw usage_error(path + ": not a JSON file");
    json row = j;
    if (j.is_object() && j.contains("rows") && j["rows"].is_array()) {
        row = json();
        for (const json& r : j["rows"]) {
            if (!r.is_object() || !r.contains("check") || !r.contains("replay")) continue;
            if (!which.empty() ? r["check"] == which : !r["replay"].get<std::string>().empty()) {
                row = r;
                break;
            }
        }
        if (row.is_null())
            throw usage_error(path + ": no row " +
                              (which.empty() ? "with a replay string" : "of check " + which));
    }
    if (!row.is_object() || !row.contains("check") || !row["check"].is_string())
        throw usage_error(path + ": not a replay file (no 'check' field)");
    verdict v;
    try {
        v = verdict_from_json(row);
    } catch (const usage_error& e) {
        throw usage_error(path + ": " + e.what());
    }
    if (v.replay.empty())
        throw usage_error(path + ": no replay string (the row found no violation)");
    return {row["check"].get<std::string>(), v};
}

// The first line where two traces differ, 0 when they are the same.
std::size_t first_difference(const std::string& a, const std::string& b) {
    std::istringstream sa(a), sb(b);
    std::string la, lb;
    for (std::size_t n = 1;; ++n) {
        const bool ga = bool(std::getline(sa, la)), gb = bool(std::getline(sb, lb));
        if (!ga && !gb) return 0;
        if (ga != gb || la != lb) return n;
    }
}

int cmd_replay(const options& o) {
    const auto [name, saved] = read_replay(o.replay_file, o.replay_check);
    const check* c = model::find_check(name);
    if (!c) throw usage_error(o.replay_file + ": unknown check '" + name + "'");
    if (!c->supports(saved.engine))
        throw usage_error(o.replay_file + ": check " + name + " cannot run on engine '" +
                          saved.engine + "'");
    search_spec spec = saved.search;
    spec.replay = saved.replay;
    spec.raw_trace = o.raw_trace;
    const verdict v = run_here(job{c, saved.engine, spec}, false, name);
    print_verdict(*c, v);
    if (!v.found_violation()) {
        std::cout << "  the saved counterexample (" << saved.outcome << ") does not reproduce\n";
        return v.outcome == "inconclusive" ? exit_inconclusive : exit_ok;
    }
    std::cout << "  counterexample trace (replayed execution " << v.executions << "):\n" << v.trace;
    if (!o.raw_trace && !saved.trace.empty()) {
        const std::size_t d = first_difference(saved.trace, v.trace);
        if (d == 0)
            std::cout << "  the trace is identical to the one saved in " << o.replay_file << "\n";
        else
            std::cout << "  the trace differs from the one saved in " << o.replay_file
                      << " from line " << d << " on\n";
    }
    return exit_differs;
}

int cmd_check(const options& o) {
    const table t = load_table(o.expected);
    const search_spec spec = make_spec(o, o.search_arg);
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
    const check& c = *model::find_check(o.name);
    row_result r;
    r.row = matches.front();
    r.algorithm = c.algorithm;
    r.variant = c.variant;
    r.config = c.config;
    search_spec s = r.row.search;
    s.budget_s = o.budget;
    s.execution_cap = o.max_executions;
    r.v = run_here(job{&c, r.row.engine, s}, false, c.name);
    judge(r);
    print_verdict(c, r.v);
    std::cout << "  expected: " << r.row.expected << " (" << o.expected << ":" << r.row.line
              << ")\n"
              << (r.status == "ok" ? "  OK\n" : "  " + r.status + ": " + r.mismatch + "\n");
    if ((r.status != "ok" || o.trace) && !r.v.trace.empty())
        std::cout << "  counterexample trace:\n" << r.v.trace;
    return exit_status({r}, o.allow_count_changed);
}

void write_outputs(const options& o, const run_info& info, const std::vector<row_result>& res) {
    if (!o.json_out.empty())
        write_file(o.json_out, results_to_json(info, res, o.allow_count_changed)
                                       .dump(2, ' ', false, json::error_handler_t::replace) +
                                   "\n");
    if (!o.junit_out.empty()) write_file(o.junit_out, junit_xml(res, info.wall_seconds));
    if (!o.markdown_out.empty())
        write_file(o.markdown_out, markdown_summary(res, info, o.allow_count_changed));
}

int cmd_verify(const options& o) {
    const auto t0 = std::chrono::steady_clock::now();
    for (const std::string* f : {&o.json_out, &o.junit_out, &o.markdown_out}) check_writable(*f);
    const table t = load_table(o.expected);
    run_info info;
    info.table_path = o.expected;
    info.table_digest = t.digest;
    info.sel = selection{o.tier, o.filter, o.engine};
    info.jobs = o.jobs;
    std::vector<table_row> rows = select_rows(t, info.sel);
    if (rows.empty())
        throw usage_error("no rows selected (tier " + o.tier +
                          (o.filter.empty() ? "" : ", filter '" + o.filter + "'") +
                          (o.engine.empty() ? "" : ", engine " + o.engine) + ")");
    info.selected = rows.size();
    if (!o.shard.empty()) {
        unsigned index = 0, count = 0;
        parse_shard(o.shard, index, count);
        rows = shard_rows(rows, index, count);
        info.shard = o.shard;
    }

    std::vector<job> jobs;
    std::vector<row_result> results(rows.size());
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const check& c = *model::find_check(rows[i].check);
        search_spec s = rows[i].search;
        s.budget_s = o.budget;
        s.execution_cap = o.max_executions;
        jobs.push_back(job{&c, rows[i].engine, s});
        results[i].row = rows[i];
        results[i].algorithm = c.algorithm;
        results[i].variant = c.variant;
        results[i].config = c.config;
    }
    const table_printer printer(rows);
    printer.header();
    run_jobs(jobs, o.jobs, o.show_progress(), [&](std::size_t i, const verdict& v) {
        results[i].v = v;
        judge(results[i]);
        printer.row(results[i]);
    });
    info.wall_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    print_epilogue(results, o.trace, info.wall_seconds, o.jobs);
    write_outputs(o, info, results);

    bool allow = o.allow_count_changed;
    if (o.repin) {
        std::vector<std::pair<int, std::string>> counts;
        for (const row_result& r : results)
            if (r.status == "count-changed")
                counts.emplace_back(r.row.line, std::to_string(r.v.executions));
        const int n = counts.empty() ? 0 : repin_table(o.expected, counts);
        std::printf("re-pinned %d execution count(s) in %s (no verdict changed)\n", n,
                    o.expected.c_str());
        allow = true;
    }
    return exit_status(results, allow);
}

int cmd_merge(const options& o) {
    for (const std::string* f : {&o.json_out, &o.junit_out, &o.markdown_out}) check_writable(*f);
    std::vector<row_result> results;
    run_info info;
    std::vector<std::string> shards;
    for (const std::string& path : o.merge_files) {
        std::ifstream in(path);
        if (!in) throw usage_error("cannot read result file " + path);
        const json j = json::parse(in, nullptr, false);
        if (j.is_discarded() || !j.is_object() || j.value("kverify_results", 0) != 1 ||
            !j.contains("rows") || !j["rows"].is_array())
            throw usage_error(path + ": not a kverify --json result file");
        const std::string digest = j.value("table_digest", "");
        const json sel = j.value("selection", json::object());
        const selection s{sel.value("tier", ""), sel.value("filter", ""), sel.value("engine", "")};
        const std::size_t selected = j.value("selected", std::size_t(0));
        if (results.empty() && shards.empty()) {
            info.table_path = j.value("table", "");
            info.table_digest = digest;
            info.sel = s;
            info.selected = selected;
        } else if (digest != info.table_digest || s.tier != info.sel.tier ||
                   s.filter != info.sel.filter || s.engine != info.sel.engine ||
                   selected != info.selected) {
            throw usage_error(path + ": comes from another table or selection than " +
                              o.merge_files.front());
        }
        shards.push_back(j.value("shard", ""));
        info.wall_seconds = std::max(info.wall_seconds, j.value("wall_seconds", 0.0));
        info.jobs = std::max(info.jobs, j.value("jobs", 1u));
        for (const json& r : j["rows"]) {
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
    if (results.size() != info.selected) {
        std::string have;
        for (const std::string& s : shards)
            have += (have.empty() ? "" : ", ") + (s.empty() ? "unsharded" : s);
        throw usage_error("the files hold " + std::to_string(results.size()) + " of the " +
                          std::to_string(info.selected) + " selected rows (shards given: " + have +
                          ")");
    }
    std::vector<table_row> rows;
    for (const row_result& r : results) rows.push_back(r.row);
    const table_printer printer(rows);
    printer.header();
    for (const row_result& r : results) printer.row(r);
    print_epilogue(results, o.trace, info.wall_seconds, info.jobs);
    write_outputs(o, info, results);
    return exit_status(results, o.allow_count_changed);
}

// ----- the parser -----

struct parser {
    CLI::App app{
        "kverify: model checks of the kernel's per-CPU algorithms (objpool, "
        "percpu_counter) on a simulated kernel, against the expected verdicts in "
        "proofs/expected/verdicts.tsv.",
        "kverify"};
    options o;
    CLI::App *verify, *list, *run, *check, *replay, *merge, *evidence, *help;

    void add_expected(CLI::App* a) {
        a->add_option("--expected", o.expected, "the expected-verdict table")
            ->type_name("FILE")
            ->default_str("proofs/expected/verdicts.tsv of the source tree");
    }
    void add_engine(CLI::App* a, const char* what) {
        a->add_option("--engine", o.engine, what)->check(engine_name)->type_name("E");
    }
    void add_budget(CLI::App* a) {
        a->add_option("--budget", o.budget, "wall-clock budget per search; out of it: inconclusive")
            ->check(CLI::PositiveNumber)
            ->type_name("SEC");
        a->add_option("--max-executions", o.max_executions,
                      "stop each search after N executions; then: inconclusive")
            ->check(CLI::PositiveNumber)
            ->type_name("N");
    }

    void add_progress(CLI::App* a) {
        auto* on = a->add_flag("--progress", o.progress, "progress on stderr even if no terminal");
        auto* off = a->add_flag("--no-progress", o.no_progress, "never show progress");
        on->excludes(off);
    }
    void add_outputs(CLI::App* a) {
        a->add_option("--json", o.json_out, "write every row and its verdict as JSON")
            ->type_name("FILE");
        a->add_option("--junit", o.junit_out, "write JUnit XML, one testcase per row")
            ->type_name("FILE");
        a->add_option("--markdown", o.markdown_out, "write a summary for a review comment")
            ->type_name("FILE");
        a->add_flag("--allow-count-changed", o.allow_count_changed,
                    "count-changed rows are reported but do not fail");
        a->add_flag("--trace", o.trace, "print the trace of every violation, expected or not");
    }

    parser() {
        app.require_subcommand(1, 1);
        app.footer(footer_text);
        app.get_formatter()->column_width(26);
        app.set_help_flag("-h,--help", "print this help and exit");

        verify = app.add_subcommand(
            "verify", "run rows of the expected-verdict table, print the verdict table");
        add_expected(verify);
        verify->add_option("--tier", o.tier, "quick, full or all")
            ->check(CLI::IsMember({"quick", "full", "all"}))
            ->type_name("T");
        verify->add_option("--filter", o.filter, "only rows whose check name matches")
            ->check(regex_text)
            ->type_name("REGEX");
        add_engine(verify, "only rows of engine E");
        verify
            ->add_option("--shard", o.shard,
                         "run shard i of N of the selected rows (see 'sharding')")
            ->check(shard_text)
            ->type_name("i/N");
        verify
            ->add_option("-j,--jobs", o.jobs,
                         "rows at once, one process each (default: the CPUs available)")
            ->check(CLI::Range(1, 256))
            ->type_name("N");
        verify->add_flag("--repin", o.repin,
                         "re-pin the execution counts of count-changed rows in the table");
        add_outputs(verify);
        add_budget(verify);
        add_progress(verify);

        list = app.add_subcommand(
            "list", "list the checks: name, algorithm, variant, configuration, engines");
        list->add_option("--filter", o.filter, "only checks whose name matches")
            ->check(regex_text)
            ->type_name("REGEX");
        add_engine(list, "only checks that engine E can run");

        run = app.add_subcommand("run",
                                 "run one check, print its verdict and a shrunk counterexample");
        run->add_option("check", o.name, "the check (see 'kverify list')")
            ->required()
            ->check(check_name)
            ->type_name("NAME");
        run->add_option("--search", o.search, "exhaustive, bounded:K or sampled:N")
            ->check(search_text)
            ->type_name("S")
            ->default_str("exhaustive");
        add_engine(run, "the engine (default: relacy)");
        add_budget(run);
        run->add_flag("--no-shrink", o.no_shrink, "print the counterexample as first found");
        run->add_option("--save-replay", o.save_replay, "save the counterexample for 'replay'")
            ->type_name("FILE");
        run->add_flag("--raw-trace", o.raw_trace, "the engine's trace as it is, uncleaned");
        add_progress(run);

        check =
            app.add_subcommand("check", "run one row of the table (as ctest does for each row)");
        check->add_option("check", o.name, "the check")
            ->required()
            ->check(check_name)
            ->type_name("NAME");
        check->add_option("search", o.search_arg, "the row's search")
            ->required()
            ->check(search_text)
            ->type_name("S");
        add_engine(check, "the row's engine (if the check has rows on several)");
        add_expected(check);
        add_budget(check);
        check->add_flag("--trace", o.trace, "print the trace even when the row matches");
        check->add_flag("--allow-count-changed", o.allow_count_changed,
                        "a changed execution count alone does not fail");

        replay = app.add_subcommand(
            "replay", "run exactly the saved counterexample again and print its trace");
        replay->add_option("file", o.replay_file, "the replay file")->required()->type_name("FILE");
        replay
            ->add_option("--check", o.replay_check,
                         "in a --json result file: this check's row (default: the first "
                         "with a violation)")
            ->type_name("CHECK");
        replay->add_flag("--raw-trace", o.raw_trace, "the engine's trace as it is, uncleaned");

        merge = app.add_subcommand(
            "merge", "merge the --json files of a sharded run; exit status as for verify");
        merge->add_option("files", o.merge_files, "the shards' --json files")
            ->required()
            ->type_name("FILE");
        add_outputs(merge);

        evidence = app.add_subcommand(
            "evidence",
            "what each variant is verified against (model, engine, search, configurations), "
            "from the table, as Markdown");
        evidence
            ->add_option("algorithm", o.name,
                         "only this algorithm (objpool, percpu_counter, ...; default: all)")
            ->type_name("ALGORITHM");
        add_expected(evidence);

        help = app.add_subcommand("help", "this help, or the help of one command");
        help->add_option("command", o.name, "a command")->type_name("COMMAND");
    }

    int help_text() {
        app.clear();  // else CLI11 prints the help of the parsed subcommand, "help" itself
        if (o.name.empty()) {
            std::cout << app.help("", CLI::AppFormatMode::All);
            return exit_ok;
        }
        for (CLI::App* s : app.get_subcommands({}))
            if (s->get_name() == o.name) {
                std::cout << s->help("kverify");
                return exit_ok;
            }
        throw usage_error("unknown command '" + o.name + "'");
    }
};

int main_impl(int argc, char** argv) {
    // No command, or options first: verify (kverify --tier full is kverify verify --tier full).
    std::vector<std::string> args(argv + 1, argv + argc);
    if (args.empty() || (args[0].rfind("-", 0) == 0 && args[0] != "-h" && args[0] != "--help"))
        args.insert(args.begin(), "verify");
    std::reverse(args.begin(), args.end());  // CLI11 takes a reversed vector

    parser p;
    const std::string& first = args.back();
    if (first.rfind("-", 0) != 0) {
        std::string names;
        bool known = false;
        for (const CLI::App* s : p.app.get_subcommands({})) {
            known = known || s->get_name() == first;
            names += (names.empty() ? "" : ", ") + s->get_name();
        }
        if (!known) {
            std::cerr << "kverify: unknown command '" << first << "' (commands: " << names << ")\n";
            return exit_usage;
        }
    }
    try {
        p.app.parse(args);
    } catch (const CLI::CallForHelp&) {
        std::cout << p.app.help();
        return exit_ok;
    } catch (const CLI::CallForAllHelp&) {
        std::cout << p.app.help("", CLI::AppFormatMode::All);
        return exit_ok;
    } catch (const CLI::ParseError& e) {
        const std::string what = e.what();
        std::cerr << "kverify: " << what
                  << (what.find("(see '") == std::string::npos ? " (see 'kverify help')" : "")
                  << "\n";
        return exit_usage;
    }
    try {
        if (p.help->parsed()) return p.help_text();
        if (p.verify->parsed()) return cmd_verify(p.o);
        if (p.list->parsed()) return cmd_list(p.o);
        if (p.run->parsed()) return cmd_run(p.o);
        if (p.check->parsed()) return cmd_check(p.o);
        if (p.replay->parsed()) return cmd_replay(p.o);
        if (p.merge->parsed()) return cmd_merge(p.o);
        if (p.evidence->parsed()) return cmd_evidence(p.o);
    } catch (const usage_error& e) {
        std::cout.flush();
        std::cerr << "kverify: " << e.what() << "\n";
        return exit_usage;
    } catch (const std::invalid_argument& e) {
        // An engine refusing a search it does not offer (e.g. bounded:K on dpor).
        std::cout.flush();
        std::cerr << "kverify: " << e.what() << "\n";
        return exit_usage;
    }
    return exit_usage;
}

}  // namespace
}  // namespace kverify::cli

int main(int argc, char** argv) { return kverify::cli::main_impl(argc, argv); }
