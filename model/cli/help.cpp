// SPDX-License-Identifier: GPL-2.0-only
// `kverify help`: every command in one line, the exit statuses, and where the manual is (the
// options of one command are CLI11's `kverify CMD --help`).
#include <cstdio>

#include "model/cli/commands.hpp"

namespace kverify::cli {

const std::vector<command_info>& commands() {
    static const std::vector<command_info> all = {
        {"verify", "run rows of the expected-verdict table, print a summary (--rows: each row)"},
        {"list", "list the checks: name, algorithm, variant, configuration, engines"},
        {"run", "run one check, print its verdict and a shrunk counterexample"},
        {"check", "run one row of the table (as ctest does for each row)"},
        {"replay", "run exactly the saved counterexample again and print its trace"},
        {"merge", "merge the --json files of a sharded run; exit status as for verify"},
        {"evidence", "per variant: what it is verified against (model, search, configurations)"},
        {"orders", "per ordering site of a variant: needed, or not in any checked configuration"},
        {"litmus", "run C litmus tests (the kernel's format) under the LKMM, RC11 or SC, as herd7"},
        {"help", "this help, or the options of one command (= kverify COMMAND --help)"},
        {"test", "the whole test suite: presets default, tsan and asan", true},
        {"bench", "the benchmarks, written to tests/bench/results/", true},
        {"coverage", "line and branch coverage of impl/ by the quick-tier rows", true},
    };
    return all;
}

const command_info* find_command(const std::string& name) {
    for (const command_info& c : commands())
        if (name == c.name) return &c;
    return nullptr;
}

std::string command_names() {
    std::string all;
    for (const command_info& c : commands()) all += (all.empty() ? "" : ", ") + std::string(c.name);
    return all;
}

int cmd_help() {
    std::printf(
        "kverify: model checks of the kernel's per-CPU algorithms (objpool, percpu_counter) on a\n"
        "simulated kernel, against the expected verdicts in proofs/expected/verdicts.tsv.\n\n"
        "usage: kverify [COMMAND] [OPTIONS]   (no command, or options first: verify)\n\n"
        "commands:\n");
    bool script = false;
    for (const command_info& c : commands()) {
        if (c.script && !script) std::printf("of the ./kverify script:\n");
        script = c.script;
        std::printf("  %-9s %s\n", c.name, c.summary);
    }
    std::printf(
        "\nexit status:\n"
        "  0  every verdict as expected (verify, check, merge); no violation found (run, replay)\n"
        "  1  a verdict differs, a check's process died (error), or its execution count changed\n"
        "     (count-changed, unless --allow-count-changed); a violation was found (run, replay)\n"
        "  2  bad usage; one line on stderr says what was wrong\n"
        "  3  inconclusive: a search ran out of its --budget or --max-executions, nothing "
        "differs\n\n"
        "'kverify COMMAND --help' lists the options of a command; the manual of every command:\n"
        "model/cli/MANUAL.md.\n");
    return exit_ok;
}

}  // namespace kverify::cli
