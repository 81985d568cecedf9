// SPDX-License-Identifier: GPL-2.0-only
// verify --split i/N and merge: the parts of a search, run as separate commands, add up to the
// whole search's counts exactly and merge into its row (verdict, counts, counterexample), for
// passing and violating rows on dpor-rc11 and dpor-sc and N = 2, 3, 4; a missing or repeated
// part, a part count out of range and a row that cannot be split are refused.
#include <map>
#include <set>

#include "tests/cli/cli_helpers.hpp"

namespace kverify_cli_test {
namespace {

// Rows with blocked executions (migration), a plain pass, and two violations found after many
// executions, on both dpor engines that split.
const std::vector<std::pair<std::string, std::string>> split_rows = {
    {"pcpu_stat/this_cpu_add/irq1-mig1", "dpor-rc11"},
    {"objpool/v6.15/c2-o1-r2-np", "dpor-sc"},
    {"objpool/mut-pop-entry-after-head/c3-o2-r2", "dpor-rc11"},
    {"kernel/migration-stale-cpu-id", "dpor-sc"},
};

class split : public cli {
protected:
    std::vector<std::string> parts(const std::string& table, unsigned n) {
        std::vector<std::string> files;
        for (unsigned i = 1; i <= n; ++i) {
            const std::string f =
                path("part-" + std::to_string(i) + "-of-" + std::to_string(n) + ".json");
            const std::string s = std::to_string(i) + "/" + std::to_string(n);
            const result r = kverify({"verify", "--expected", table, "--tier", "all", "--split", s,
                                      "-j", "2", "--json", f});
            EXPECT_EQ(r.status, 0) << "part " << s << ": " << r.out << r.err;
            files.push_back(f);
        }
        return files;
    }
};

TEST_F(split, parts_add_up_to_the_whole_search_and_merge_into_its_row) {
    const std::string t = rows_table(split_rows);
    const result w =
        kverify({"verify", "--expected", t, "--tier", "all", "--json", path("whole.json")});
    ASSERT_EQ(w.status, 0) << w.out << w.err;
    std::map<std::string, json> whole;
    for (const json& row : rows_of(path("whole.json"))) whole[key_of(row)] = row;
    ASSERT_EQ(whole.size(), split_rows.size());

    for (unsigned n = 2; n <= 4; ++n) {
        SCOPED_TRACE(std::to_string(n) + " parts");
        const std::vector<std::string> files = parts(t, n);
        // A passing row's parts add up to its whole search, and each part has work of its own.
        std::map<std::string, std::uint64_t> executions, blocked;
        std::map<std::string, std::set<unsigned>> seen;
        for (const std::string& f : files)
            for (const json& row : rows_of(f)) {
                const std::string k = key_of(row);
                EXPECT_EQ(row.at("status"), "part") << k;
                ASSERT_TRUE(row.contains("split")) << k;
                EXPECT_EQ(row.at("split").at("parts"), n);
                seen[k].insert(row.at("split").at("part").get<unsigned>());
                executions[k] += row.at("executions").get<std::uint64_t>();
                blocked[k] += row.at("blocked").get<std::uint64_t>();
                if (whole[k].at("verdict") == "pass") {
                    EXPECT_GT(row.at("executions").get<std::uint64_t>(), 0u)
                        << k << ": a part without an execution of its own";
                }
            }
        for (const auto& [k, row] : whole) {
            EXPECT_EQ(seen[k].size(), n) << k;
            if (row.at("verdict") != "pass") continue;
            EXPECT_EQ(executions[k], row.at("executions").get<std::uint64_t>()) << k;
            EXPECT_EQ(blocked[k], row.at("blocked").get<std::uint64_t>()) << k;
        }

        // merge joins them into the rows of the whole search, counterexamples included.
        std::vector<std::string> args = {"merge"};
        args.insert(args.end(), files.rbegin(), files.rend());
        args.insert(args.end(), {"--json", path("merged.json")});
        const result m = kverify(args);
        EXPECT_EQ(m.status, 0) << m.out << m.err;
        const json merged = rows_of(path("merged.json"));
        ASSERT_EQ(merged.size(), whole.size());
        for (const json& row : merged) {
            const json& x = whole[key_of(row)];
            for (const char* f :
                 {"verdict", "executions", "blocked", "status", "replay", "detail", "also_sc"})
                EXPECT_EQ(row.at(f), x.at(f)) << key_of(row) << ": " << f;
            EXPECT_FALSE(row.contains("split"));
        }

        // The twins: a part missing, or given twice, is refused.
        std::vector<std::string> missing = {"merge"};
        missing.insert(missing.end(), files.begin(), files.end() - 1);
        expect_usage_error(kverify(missing), "part " + std::to_string(n) + " of " +
                                                 std::to_string(n) + " is missing");
        std::vector<std::string> twice = args;
        twice.insert(twice.begin() + 1, files.front());
        expect_usage_error(kverify(twice),
                           "part 1 of " + std::to_string(n) + " appears more than once");
        if (n == 2) {
            expect_usage_error(kverify({"merge", path("whole.json"), files[0], files[1]}),
                               "both whole and in parts");
            // Parts of two different splits of one row do not join.
            const std::vector<std::string> three = parts(t, 3);
            expect_usage_error(kverify({"merge", files[0], three[1], three[2]}),
                               "different splits");
        }
    }
}

TEST_F(split, a_split_out_of_range_or_of_a_row_that_cannot_split_is_refused) {
    const std::string t = rows_table(split_rows);
    for (const char* bad : {"0/4", "5/4", "1/0", "x/2", "2"})
        expect_usage_error(kverify({"verify", "--expected", t, "--split", bad}),
                           "must be i/N with 1 <= i <= N");
    const std::string r = rows_table({{"kernel/migration-stale-cpu-id", "relacy"}});
    expect_usage_error(kverify({"verify", "--expected", r, "--tier", "all", "--split", "1/2"}),
                       "on engine relacy cannot be split");
    const std::string l = rows_table({{"litmus/deps/lb-data", "dpor-lkmm"}});
    expect_usage_error(kverify({"verify", "--expected", l, "--tier", "all", "--split", "1/2"}),
                       "on engine dpor-lkmm cannot be split");
}

}  // namespace
}  // namespace kverify_cli_test
