// SPDX-License-Identifier: GPL-2.0-only
// verify --split i/N and merge: the parts of a search, run as separate commands, add up to the
// whole search's counts exactly and merge into its row (verdict, counts, counterexample), for
// passing and violating rows on dpor-rc11 and dpor-sc and N = 2, 3, 4; on dpor-lkmm the parts
// overlap and merge into the whole row by the union of the executions they list (a part
// without its list does not); a missing or repeated part, a part count out of range and a row
// that cannot be split are refused.
#include <map>
#include <set>

#include "tests/cli/cli_helpers.hpp"

namespace kverify_cli_test {
namespace {

// Rows with blocked executions (migration), a plain pass, and two violations found after many
// executions, on dpor-rc11 and dpor-sc; and a pass and a violation found late on dpor-lkmm, whose
// parts overlap and merge by the union of what they counted.
const std::vector<std::pair<std::string, std::string>> split_rows = {
    {"pcpu_stat/this_cpu_add/irq1-mig1", "dpor-rc11"},
    {"objpool/v6.15/c2-o1-r2-np", "dpor-sc"},
    {"objpool/mut-pop-entry-after-head/c3-o2-r2", "dpor-rc11"},
    {"kernel/migration-stale-cpu-id", "dpor-sc"},
    {"objpool/fix-acquire-last/c2-o2-irq2-np", "dpor-lkmm"},
    {"objpool/mut-rc1-acquire-last/c2-o2-irq2-np", "dpor-lkmm"},
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
        // A passing row's parts add up to its whole search (under the LKMM, the parts overlap:
        // to more), and each part has work of its own.
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
            if (row.at("engine") == "dpor-lkmm") {
                // (so a merge that summed them would be wrong: merge counts the union)
                EXPECT_GT(executions[k], row.at("executions").get<std::uint64_t>()) << k;
                continue;
            }
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
                 {"verdict", "executions", "blocked", "status", "replay", "also_sc"})
                EXPECT_EQ(row.at(f), x.at(f)) << key_of(row) << ": " << f;
            EXPECT_FALSE(row.contains("split"));
            if (row.at("engine") == "dpor-lkmm" && row.at("verdict") == "pass") {
                // (what the parts' overlap cost, in the detail and on stdout)
                EXPECT_NE(row.at("detail").get<std::string>().find("times the whole search's"),
                          std::string::npos)
                    << row.at("detail");
                EXPECT_NE(m.out.find(row.at("check").get<std::string>() +
                                     " dpor-lkmm exhaustive: its " + std::to_string(n) + " parts"),
                          std::string::npos)
                    << m.out;
            } else {
                EXPECT_EQ(row.at("detail"), x.at("detail")) << key_of(row);
            }
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
}

// A dpor-lkmm part's list of what it counted is what merge counts: with either part's list
// emptied, the merged row misses executions (count-changed, exit 1); a list that is no list of
// fingerprints is refused (exit 2).
TEST_F(split, an_lkmm_part_without_its_list_does_not_merge_into_the_whole_row) {
    const std::string t = rows_table({{"objpool/fix-acquire-last/c2-o2-irq2-np", "dpor-lkmm"}});
    const std::vector<std::string> files = parts(t, 2);
    const result whole = kverify({"merge", files[0], files[1]});
    EXPECT_EQ(whole.status, 0) << whole.out << whole.err;
    for (std::size_t k = 0; k < 2; ++k) {
        SCOPED_TRACE("part " + std::to_string(k + 1));
        json j = json::parse(slurp(files[k]));
        json& ends = j["rows"][0]["split"]["ends"];
        ASSERT_TRUE(ends.is_array() && !ends.empty());
        const json kept = ends;
        ends = json::array();
        spit(path("cut.json"), j.dump());
        const result m = kverify({"merge", path("cut.json"), files[1 - k]});
        EXPECT_EQ(m.status, 1) << m.out << m.err;
        EXPECT_NE(m.out.find("count-changed"), std::string::npos) << m.out;
        ends = kept;
        ends[0][1] = ends[0][1].get<std::string>().substr(1);
        spit(path("cut.json"), j.dump());
        expect_usage_error(kverify({"merge", path("cut.json"), files[1 - k]}),
                           "not a multiple of 33");
    }
}

}  // namespace
}  // namespace kverify_cli_test
