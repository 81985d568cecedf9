// SPDX-License-Identifier: GPL-2.0-only
// --threads N: one search on N threads gives the row of the one-thread search (verdict, complete
// and blocked executions, counterexample, its replay and trace, also_sc) for N = 2, 3, 4, on
// passing and violating rows of dpor-rc11, dpor-sc and dpor-lkmm (an objpool row whose values
// are pointers into each thread's own memory among them); 0 threads and a Relacy row are
// refused.
#include <map>

#include "tests/cli/cli_helpers.hpp"

namespace kverify_cli_test {
namespace {

// Rows with blocked executions (migration), plain passes, and violations found after many
// executions, on the three dpor engines.
const std::vector<std::pair<std::string, std::string>> thread_rows = {
    {"pcpu_stat/this_cpu_add/irq1-mig1", "dpor-rc11"},
    {"objpool/v6.15/c2-o1-r2-np", "dpor-sc"},
    {"objpool/mut-pop-entry-after-head/c3-o2-r2", "dpor-rc11"},
    {"kernel/migration-stale-cpu-id", "dpor-sc"},
    {"litmus/deps/lb-data", "dpor-lkmm"},
    {"objpool/fix-nested-push/c2-o2-irq2", "dpor-lkmm"},
    {"objpool/mut-rc1-acquire-last/c2-o2-irq2", "dpor-lkmm"},
    {"percpu_counter/mut-sum-skips-dying/hotplug-irq", "dpor-lkmm"},
};

using threads = cli;

TEST_F(threads, every_thread_count_gives_the_one_thread_row) {
    const std::string t = rows_table(thread_rows);
    const result w = kverify(
        {"verify", "--expected", t, "--tier", "all", "--threads", "1", "--json", path("one.json")});
    ASSERT_EQ(w.status, 0) << w.out << w.err;
    std::map<std::string, json> one;
    unsigned violations = 0;
    for (const json& row : rows_of(path("one.json"))) {
        one[key_of(row)] = row;
        violations += row.at("verdict") != "pass";
    }
    ASSERT_EQ(one.size(), thread_rows.size());
    EXPECT_GE(violations, 4u);  // the counterexamples are compared too

    for (const char* n : {"2", "3", "4"}) {
        SCOPED_TRACE(std::string(n) + " threads");
        const std::string f = path(std::string("threads-") + n + ".json");
        const result r =
            kverify({"verify", "--expected", t, "--tier", "all", "--threads", n, "--json", f});
        EXPECT_EQ(r.status, 0) << r.out << r.err;
        const json rows = rows_of(f);
        ASSERT_EQ(rows.size(), one.size());
        for (const json& row : rows) {
            const json& x = one[key_of(row)];
            for (const char* field : {"verdict", "executions", "blocked", "stale_cut", "status",
                                      "replay", "detail", "also_sc", "trace"})
                EXPECT_EQ(row.at(field), x.at(field)) << key_of(row) << ": " << field;
        }
    }
}

TEST_F(threads, zero_threads_and_a_relacy_row_are_refused) {
    const std::string t = rows_table(thread_rows);
    for (const char* cmd : {"verify", "run", "check"}) {
        std::vector<std::string> args = {cmd};
        if (std::string(cmd) != "verify") args.push_back("kernel/migration-stale-cpu-id");
        if (std::string(cmd) == "check") args.push_back("exhaustive");
        args.insert(args.end(), {"--threads", "0"});
        expect_usage_error(kverify(args), "--threads");
    }
    const std::string r = rows_table({{"kernel/migration-stale-cpu-id", "relacy"}});
    expect_usage_error(kverify({"verify", "--expected", r, "--tier", "all", "--threads", "2"}),
                       "engine relacy explores a search on one thread");
    expect_usage_error(kverify({"run", "kernel/migration-stale-cpu-id", "--threads", "2"}),
                       "engine relacy explores a search on one thread");
    expect_usage_error(kverify({"check", "kernel/migration-stale-cpu-id", "exhaustive",
                                "--expected", r, "--threads", "2"}),
                       "engine relacy explores a search on one thread");
    // The twin: the same row on a dpor engine runs.
    const result ok = kverify({"run", "kernel/migration-stale-cpu-id", "--engine", "dpor-sc",
                               "--threads", "2", "--no-shrink"});
    EXPECT_NE(ok.status, 2) << ok.err;
    EXPECT_NE(ok.out.find("stale"), std::string::npos) << ok.out;
}

}  // namespace
}  // namespace kverify_cli_test
