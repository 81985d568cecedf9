// SPDX-License-Identifier: GPL-2.0-only
// kverify: the model checker's command line. Parses the options of each command with CLI11
// (each failure a one-line message, exit status 2), then runs the command (commands.hpp).
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <iostream>

#include <CLI/CLI.hpp>

#include "model/cli/commands.hpp"

#ifndef KVERIFY_SOURCE_DIR
#define KVERIFY_SOURCE_DIR "."
#endif

namespace kverify::cli {
namespace {

// ----- validators: each failure is one line naming what was wrong -----

std::string joined_engines() {
    std::string all;
    for (const std::string& e : model::known_engines()) all += (all.empty() ? "" : ", ") + e;
    return all;
}

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
            name_filter f(s);
        } catch (const usage_error& e) {
            return e.what();
        }
        return {};
    },
    "", "regex");

// --budget: seconds, a finite number in (0, 1e6] (nan and inf would mean no budget at all).
constexpr double max_budget_s = 1e6;
const CLI::Validator budget_seconds(
    [](std::string& s) -> std::string {
        char* end = nullptr;
        errno = 0;
        const double v = std::strtod(s.c_str(), &end);
        if (s.empty() || *end != '\0' || errno != 0 || !std::isfinite(v) || v <= 0 ||
            v > max_budget_s)
            return "budget '" + s + "' must be a number of seconds, 0 < SEC <= 1000000";
        return {};
    },
    "", "seconds");

// --max-executions: a whole number from 1 to 2^64 - 1, refused rather than wrapped or clamped.
const CLI::Validator execution_count(
    [](std::string& s) -> std::string {
        std::uint64_t v = 0;
        const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
        if (s.empty() || ec != std::errc() || end != s.data() + s.size() || v == 0)
            return "execution cap '" + s + "' must be a whole number, 1 <= N <= 2^64 - 1";
        return {};
    },
    "", "count");

const CLI::Validator shard_text(
    [](std::string& s) -> std::string {
        unsigned i = 0, n = 0;
        return parse_shard(s, i, n) ? std::string()
                                    : "shard '" + s + "' must be i/N with 1 <= i <= N";
    },
    "", "shard");

const CLI::Validator split_text(
    [](std::string& s) -> std::string {
        unsigned i = 0, n = 0;
        return parse_shard(s, i, n) ? std::string()
                                    : "split '" + s + "' must be i/N with 1 <= i <= N";
    },
    "", "split");

// ----- the parser: every command's options, and the command to run -----

// --progress / --no-progress: by default, progress only when stderr is a terminal.
struct progress_flags {
    bool on = false, off = false;
    bool show() const { return !off && (on || ::isatty(STDERR_FILENO)); }
};

struct parser {
    CLI::App app{"", "kverify"};  // its own help is cmd_help()
    verify_options verify;
    check_options check;
    merge_options merge;
    run_options run;
    replay_options replay;
    list_options list;
    evidence_options evidence;
    litmus_command_options litmus;
    orders_options orders;
    progress_flags progress;
    std::string help_command;
    std::vector<std::pair<CLI::App*, std::function<int()>>> commands;

    CLI::App* add(const char* name, std::function<int()> fn) {
        CLI::App* a = app.add_subcommand(name, find_command(name)->summary);
        commands.emplace_back(a, std::move(fn));
        return a;
    }

    static void add_expected(CLI::App* a, std::string& to) {
        to = std::string(KVERIFY_SOURCE_DIR) + "/proofs/expected/verdicts.tsv";
        a->add_option("--expected", to, "the expected-verdict table")
            ->type_name("FILE")
            ->default_str("proofs/expected/verdicts.tsv of the source tree");
    }
    static void add_engine(CLI::App* a, std::string& to, const char* what) {
        a->add_option("--engine", to, what)->check(engine_name)->type_name("E");
    }
    static void add_budget(CLI::App* a, search_budget& to) {
        a->add_option("--budget", to.seconds,
                      "wall-clock budget per search; out of it: inconclusive")
            ->check(budget_seconds)
            ->type_name("SEC");
        a->add_option("--max-executions", to.max_executions,
                      "stop each search after N executions; then: inconclusive")
            ->check(execution_count)
            ->type_name("N");
    }
    static void add_symmetry(CLI::App* a, search_budget& to) {
        a->add_flag("--no-symmetry", to.no_symmetry,
                    "explore also what a check's declared symmetry skips (same verdict, more "
                    "executions)");
        a->add_flag("--every-switch-point", to.every_switch_point,
                    "offer preemption and migration also at a task's first and last points "
                    "(same verdict, more executions)");
        a->add_flag("--preempt-by-choice", to.preempt_by_choice,
                    "make a preemption the preempted task's choice instead of a window the "
                    "waiting task takes (the dpor engines; same verdict, more blocked "
                    "executions)");
    }
    static void add_threads(CLI::App* a, search_budget& to) {
        a->add_option("--threads", to.threads,
                      "explore each search on N threads (the dpor engines; same verdicts and "
                      "counts)")
            ->check(CLI::Range(1, 64))
            ->type_name("N");
    }
    void add_progress(CLI::App* a) {
        auto* on = a->add_flag("--progress", progress.on, "progress on stderr even if no terminal");
        auto* off = a->add_flag("--no-progress", progress.off, "never show progress");
        on->excludes(off);
    }
    static void add_outputs(CLI::App* a, report_options& to) {
        a->add_option("--json", to.json, "write every row and its verdict as JSON")
            ->type_name("FILE");
        a->add_option("--junit", to.junit, "write JUnit XML, one testcase per row")
            ->type_name("FILE");
        a->add_option("--markdown", to.markdown, "write a summary for a review comment")
            ->type_name("FILE");
        a->add_option("--html", to.html, "write a report page: DIR/index.html and its files")
            ->type_name("DIR");
        a->add_flag("--allow-count-changed", to.allow_count_changed,
                    "count-changed rows are reported but do not fail");
        a->add_flag("--trace", to.traces, "print the trace of every violation, expected or not");
        a->add_flag("--rows", to.rows, "print every row's line, not only the summary");
    }

    parser() {
        app.require_subcommand(1, 1);
        // Each command's help ends with this (subcommands take the footer when added).
        app.footer(
            "\nsearches (S): exhaustive (every execution), bounded:K (at most K preemptive "
            "context\n"
            "switches, 0 <= K <= 64) or sampled:N (N random executions). The manual of every\n"
            "command: model/cli/MANUAL.md; 'kverify help': every command and the exit statuses.");
        app.get_formatter()->column_width(26);
        app.set_help_flag("-h,--help", "print this help and exit");

        CLI::App* v = add("verify", [this] {
            verify.progress = progress.show();
            return cmd_verify(verify);
        });
        add_expected(v, verify.expected);
        v->add_option("--tier", verify.sel.tier, "quick, full or all")
            ->check(CLI::IsMember({"quick", "full", "all"}))
            ->type_name("T");
        v->add_option("--filter", verify.sel.filter, "only rows whose check name matches")
            ->check(regex_text)
            ->type_name("REGEX");
        add_engine(v, verify.sel.engine, "only rows of engine E");
        v->add_option("--shard", verify.shard,
                      "run shard i of N of the selected rows ('kverify merge' joins them)")
            ->check(shard_text)
            ->type_name("i/N");
        v->add_option("--split", verify.split,
                      "explore part i of N of each selected row's search (the dpor engines; "
                      "'kverify merge' joins the parts)")
            ->check(split_text)
            ->type_name("i/N");
        verify.jobs = default_jobs();
        v->add_option("-j,--jobs", verify.jobs,
                      "cores for rows at once, one process each, and their --threads: N / T "
                      "rows at once (default: the CPUs available)")
            ->check(CLI::Range(1, 256))
            ->type_name("N");
        v->add_flag("--repin", verify.repin,
                    "re-pin the execution counts of count-changed rows in the table");
        add_outputs(v, verify.report);
        add_budget(v, verify.budget);
        add_symmetry(v, verify.budget);
        add_threads(v, verify.budget);
        add_progress(v);

        CLI::App* l = add("list", [this] { return cmd_list(list); });
        l->add_option("--filter", list.filter, "only checks whose name matches")
            ->check(regex_text)
            ->type_name("REGEX");
        add_engine(l, list.engine, "only checks that engine E can run");
        l->add_flag("--classes", list.classes,
                    "per check and engine, the verdicts the table may pin (pass, inconclusive "
                    "and the violation classes the check can report)");
        l->add_flag("--symmetric", list.symmetric,
                    "only checks that declare a symmetry (their searches skip what it makes "
                    "redundant; --no-symmetry explores it)");

        CLI::App* r = add("run", [this] {
            run.progress = progress.show();
            return cmd_run(run);
        });
        r->add_option("check", run.name, "the check (see 'kverify list')")
            ->required()
            ->check(check_name)
            ->type_name("NAME");
        r->add_option("--search", run.search, "exhaustive, bounded:K or sampled:N")
            ->check(search_text)
            ->type_name("S")
            ->default_str("exhaustive");
        add_engine(r, run.engine, "the engine (default: relacy)");
        add_budget(r, run.budget);
        add_symmetry(r, run.budget);
        add_threads(r, run.budget);
        r->add_flag("--no-shrink", run.no_shrink, "print the counterexample as first found");
        r->add_option("--graph", run.graph, "draw the counterexample: FILE.dot, .svg or .png")
            ->type_name("FILE");
        r->add_option("--save-replay", run.save_replay, "save the counterexample for 'replay'")
            ->type_name("FILE");
        r->add_option("--behaviors", run.behaviors,
                      "write what each complete execution did, apart from the kernel's own words "
                      "and the search's choices: one line each, sorted, each once (the dpor "
                      "engines; a search that passes)")
            ->type_name("FILE");
        r->add_flag("--raw-trace", run.raw_trace, "the engine's trace as it is, uncleaned");
        r->add_option("--weaken", run.weaken,
                      "run one ordering site of impl/ one step weaker (the model only; its "
                      "verdict is not the variant's)")
            ->type_name("SITE=FORM");
        add_progress(r);

        CLI::App* c = add("check", [this] { return cmd_check(check); });
        c->add_option("check", check.name, "the check")
            ->required()
            ->check(check_name)
            ->type_name("NAME");
        c->add_option("search", check.search, "the row's search")
            ->required()
            ->check(search_text)
            ->type_name("S");
        add_engine(c, check.engine, "the row's engine (if the check has rows on several)");
        add_expected(c, check.expected);
        add_budget(c, check.budget);
        add_symmetry(c, check.budget);
        add_threads(c, check.budget);
        c->add_flag("--trace", check.trace, "print the trace even when the row matches");
        c->add_flag("--allow-count-changed", check.allow_count_changed,
                    "a changed execution count alone does not fail");

        CLI::App* p = add("replay", [this] { return cmd_replay(replay); });
        p->add_option("file", replay.file, "the replay file")->required()->type_name("FILE");
        p->add_option("--check", replay.check,
                      "in a --json result file: this check's row (default: the first "
                      "with a violation)")
            ->type_name("CHECK");
        p->add_flag("--raw-trace", replay.raw_trace, "the engine's trace as it is, uncleaned");

        CLI::App* m = add("merge", [this] { return cmd_merge(merge); });
        m->add_option("files", merge.files, "the shards' --json files")
            ->required()
            ->type_name("FILE");
        add_outputs(m, merge.report);

        CLI::App* e = add("evidence", [this] { return cmd_evidence(evidence); });
        e->add_option("algorithm", evidence.algorithm,
                      "only this algorithm (objpool, percpu_counter, ...; default: all)")
            ->type_name("ALGORITHM");
        add_expected(e, evidence.expected);

        CLI::App* t = add("litmus", [this] { return cmd_litmus(litmus); });
        t->add_option("files", litmus.files, "litmus files (the kernel's C litmus format)")
            ->required()
            ->type_name("FILE");
        t->add_option("--model", litmus.model, "lkmm (default), rc11 or sc")
            ->check(CLI::IsMember({"lkmm", "rc11", "sc"}))
            ->type_name("M");
        t->add_flag("--judge", litmus.judge,
                    "compare each Observation with the file's Result line; 1 if one differs");
        add_budget(t, litmus.budget);

        CLI::App* d = add("orders", [this] {
            orders.progress = progress.show();
            return cmd_orders(orders);
        });
        d->add_option("target", orders.target, "ALGORITHM/VARIANT (ALGORITHM alone with --list)")
            ->required()
            ->type_name("ALGORITHM[/VARIANT]");
        d->add_flag("--list", orders.list, "only list the ordering sites its quick rows reach");
        d->add_flag("--strengthen", orders.strengthen,
                    "a failing variant: the sets of one or two one-step strengthenings that make "
                    "every row pass");
        d->add_option("--site", orders.site, "only the weakenings of this site (FILE:LINE)")
            ->type_name("SITE");
        add_expected(d, orders.expected);
        orders.jobs = default_jobs();
        d->add_option("-j,--jobs", orders.jobs,
                      "searches at once, one process each (default: the CPUs available)")
            ->check(CLI::Range(1, 256))
            ->type_name("N");
        d->add_option("--markdown", orders.markdown, "write the table for a review comment")
            ->type_name("FILE");
        d->add_option("--json", orders.json, "write every weakening and its result as JSON")
            ->type_name("FILE");
        add_budget(d, orders.budget);
        add_progress(d);

        CLI::App* h = add("help", [this] { return help(help_command); });
        h->add_option("command", help_command, "a command")->type_name("COMMAND");
    }

    // 'help': the short help; 'help CMD': CLI11's help of CMD (as 'CMD --help').
    int help(const std::string& name) {
        if (name.empty()) return cmd_help();
        const command_info* c = find_command(name);
        if (!c)
            throw usage_error("unknown command '" + name + "' (commands: " + command_names() + ")");
        if (c->script) {
            std::cout << name << ": " << c->summary << " (run by the ./kverify script: ./kverify "
                      << name << ")\n";
            return exit_ok;
        }
        app.clear();  // else CLI11 prints the help of the parsed subcommand, "help" itself
        std::cout << app.get_subcommand(name)->help("kverify");
        return exit_ok;
    }
};

int main_impl(int argc, char** argv) {
    // No command, or options first: verify (kverify --tier full is kverify verify --tier full).
    std::vector<std::string> args(argv + 1, argv + argc);
    if (args.empty() || (args[0].rfind("-", 0) == 0 && args[0] != "-h" && args[0] != "--help"))
        args.insert(args.begin(), "verify");
    const std::string& first = args.front();
    if (first.rfind("-", 0) != 0) {
        const command_info* c = find_command(first);
        if (!c) {
            std::cerr << "kverify: unknown command '" << first << "' (commands: " << command_names()
                      << ")\n";
            return exit_usage;
        }
        if (c->script) {
            std::cerr << "kverify: '" << first << "' is a command of the ./kverify script, not of "
                      << "this binary (./kverify " << first << ")\n";
            return exit_usage;
        }
    }

    parser p;
    std::reverse(args.begin(), args.end());  // CLI11 takes a reversed vector
    try {
        p.app.parse(args);
    } catch (const CLI::CallForHelp&) {
        // 'CMD --help': the options of CMD; 'kverify --help': the short help.
        if (p.app.get_subcommands().empty()) return cmd_help();
        std::cout << p.app.help();
        return exit_ok;
    } catch (const CLI::ParseError& e) {
        const std::string what = e.what();
        std::cerr << "kverify: " << what
                  << (what.find("(see '") == std::string::npos ? " (see 'kverify help')" : "")
                  << "\n";
        return exit_usage;
    }
    try {
        for (const auto& [app, run] : p.commands)
            if (app->parsed()) return run();
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

// The last resort: whatever escaped a command is one line and exit 2, never an abort.
int guarded_main(int argc, char** argv) {
    try {
        return main_impl(argc, argv);
    } catch (const std::exception& e) {
        std::cout.flush();
        std::string what = e.what();
        std::replace(what.begin(), what.end(), '\n', ' ');
        std::cerr << "kverify: error: " << what << "\n";
    } catch (...) {
        std::cout.flush();
        std::cerr << "kverify: error: an unknown exception\n";
    }
    return exit_usage;
}

}  // namespace
}  // namespace kverify::cli

int main(int argc, char** argv) { return kverify::cli::guarded_main(argc, argv); }
