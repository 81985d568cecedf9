// SPDX-License-Identifier: GPL-2.0-only
// The commands of the kverify binary, each a function of its own options: main.cpp parses the
// command line (CLI11) into them and calls one. verify and check: verify.cpp; merge: merge.cpp;
// run and replay: run.cpp; list: list.cpp; evidence: evidence.cpp; litmus: litmus.cpp; help:
// help.cpp.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/cli/cli.hpp"

namespace kverify::cli {

// --budget and --max-executions: either running out makes a search inconclusive.
struct search_budget {
    double seconds = 0;
    std::uint64_t max_executions = 0;
    unsigned threads = 1;             // --threads: of one search (the dpor engines)
    bool no_symmetry = false;         // --no-symmetry: a check's declared symmetry set aside
    bool every_switch_point = false;  // --every-switch-point: switches at a task's ends too
    bool preempt_by_choice = false;   // --preempt-by-choice: preemption a branch, not a window

    void apply(search_spec& s) const {
        s.budget_s = seconds;
        s.execution_cap = max_executions;
        s.threads = threads;
        s.limits.no_symmetry = no_symmetry;
        s.limits.every_switch_point = every_switch_point;
        s.limits.preempt_by_choice = preempt_by_choice;
    }
    // --threads N > 1 is for the dpor engines only: Relacy explores on one thread.
    void check_engine(const std::string& engine) const {
        if (threads > 1 && engine.rfind("dpor-", 0) != 0)
            throw usage_error("--threads " + std::to_string(threads) + ": engine " + engine +
                              " explores a search on one thread (only the dpor engines take "
                              "--threads; select them with --engine)");
    }
};

struct verify_options {
    std::string expected;  // the expected-verdict table
    selection sel;
    std::string shard;  // "i/N", or "" for every selected row
    std::string split;  // "i/N": part i of N of each selected row's search (dpor), or ""
    unsigned jobs = 1;
    search_budget budget;
    bool progress = false;
    bool repin = false;
    report_options report;
};
int cmd_verify(const verify_options& o);

struct check_options {
    std::string expected, name, search, engine;
    search_budget budget;
    bool trace = false, allow_count_changed = false;
};
int cmd_check(const check_options& o);

struct merge_options {
    std::vector<std::string> files;  // the shards' --json files
    report_options report;
};
int cmd_merge(const merge_options& o);

struct run_options {
    std::string name, engine = "relacy", search = "exhaustive", save_replay;
    std::string weaken;     // --weaken SITE=FORM, "" = none
    std::string graph;      // --graph FILE.{dot,svg,png}
    std::string behaviors;  // --behaviors FILE: what the complete executions did (dpor)
    search_budget budget;
    bool no_shrink = false, raw_trace = false, progress = false;
};
int cmd_run(const run_options& o);

// The counterexample as an execution graph (graph.cpp), from the trace `run` prints: Graphviz
// dot text; write_graph writes it as .dot, or renders .svg and .png with Graphviz's dot.
std::string trace_graph(const std::string& trace, const std::string& engine,
                        const std::string& title);
void check_graph_file(const std::string& path);  // throws usage_error: not .dot, .svg or .png
void write_graph(const std::string& path, const std::string& dot);

struct replay_options {
    std::string file, check;  // check: which row of a --json result file
    bool raw_trace = false;
};
int cmd_replay(const replay_options& o);

// A verdict of one check as run, replay and check print it: the check, engine, search, verdict,
// counts, time and the violation's message.
// `weakened`: the --weaken SITE=FORM the verdict is of ("" = none), named on the verdict line.
void print_verdict(const check& c, const verdict& v, const std::string& weakened = "");

// ----- the ordering override (orders.cpp, model/check/ordering.hpp) -----

// One site of impl/ run one step weaker: --weaken impl/objpool.hpp:718=READ_ONCE.
struct weakening {
    std::string file;  // impl/objpool.hpp
    unsigned line = 0;
    std::string form;          // what the site's primitive becomes (MANUAL.md lists the steps)
    std::string site() const;  // impl/objpool.hpp:718
    std::string text() const;  // impl/objpool.hpp:718=READ_ONCE
};
weakening parse_weakening(const std::string& text);  // throws usage_error
void apply_weakening(const weakening& w);            // for the searches of this process
// The primitives the applied weakening was reached as, "" when no search reached it.
std::string weakening_hit();

struct orders_options {
    std::string target;  // ALGORITHM or ALGORITHM/VARIANT
    std::string expected, markdown, json;
    std::string site;  // --site FILE:LINE: only this site's weakenings, "" = every site
    bool list = false, progress = false;
    bool strengthen = false;  // --strengthen: repairs of a failing variant, not weakenings
    unsigned jobs = 1;
    search_budget budget;  // per search; no --budget: 60 s
};
int cmd_orders(const orders_options& o);

struct list_options {
    std::string filter, engine;
    bool classes = false;    // one line per check and engine: the verdicts the table may pin
    bool symmetric = false;  // only the checks that declare a symmetry (--no-symmetry)
};
int cmd_list(const list_options& o);

struct litmus_command_options {
    std::vector<std::string> files;
    std::string model = "lkmm";
    bool judge = false;
    search_budget budget;
};
int cmd_litmus(const litmus_command_options& o);

struct evidence_options {
    std::string expected, algorithm;  // algorithm "" = every one
};
int cmd_evidence(const evidence_options& o);

// Every command, with its line in 'kverify help': the binary's own, then those the ./kverify
// script owns (it forwards every other command here).
struct command_info {
    const char* name;
    const char* summary;
    bool script = false;  // run by ./kverify, not by this binary
};
const std::vector<command_info>& commands();
const command_info* find_command(const std::string& name);
std::string command_names();  // "verify, list, ..., coverage"

// 'kverify help': the commands, the exit statuses and where the manual is.
int cmd_help();

}  // namespace kverify::cli
