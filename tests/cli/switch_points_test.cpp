// SPDX-License-Identifier: GPL-2.0-only
// Two ways the kernel starts fewer executions, each checked against the search it replaces on
// every quick row with migration: what each complete execution did, apart from the kernel's own
// words and the search's choices (`kverify run --behaviors`), is the same set either way, on
// every row that passes on a dpor engine; and every such row has its verdict either way.
// - No switch at a task's ends (kernel_config::switch_at_task_ends; model/ASSUMPTIONS.md,
//   Search): no preemption at a task's first and last points and no migration at its last, where
//   a switch changes nothing but the CPU token's events; `--every-switch-point` offers them. A
//   kernel that also left out the preemption at a task's second or fourth point, or the
//   migration at its first, loses behaviors on percpu_counter/local-cas/mig (checked when this
//   was written).
// - Preemption by window (cpu_token::window; model/ASSUMPTIONS.md, Preemption in place): the
//   task lets its CPU go and takes it back, instead of choosing a preemption that nobody may
//   take; `--preempt-by-choice` keeps the choice. The same complete executions, so the counts of
//   passing rows are equal too. A kernel that opened no window where its switch point offers
//   nothing else (no choice event) loses behaviors on 44 of these 53 rows (checked when this was
//   written).
#include <algorithm>
#include <map>
#include <sstream>
#include <vector>

#include "tests/cli/cli_helpers.hpp"

namespace kverify_cli_test {
namespace {

// "executions: N" of a `kverify run` output, or -1.
long long executions_of(const std::string& out) {
    const std::size_t at = out.find("executions: ");
    return at == std::string::npos ? -1 : std::stoll(out.substr(at + 12));
}

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string l; std::getline(in, l);) lines.push_back(l);
    return lines;
}

// A check with migration: its configuration's name says "mig".
bool has_migration(const std::string& check) {
    return check.substr(check.rfind('/') + 1).find("mig") != std::string::npos;
}

struct row {
    std::string check, engine, expected, tier;
};

// The table's rows of checks with migration (their configuration's name says "mig").
std::vector<row> migration_rows() {
    std::vector<row> rows;
    std::istringstream table(slurp(KVERIFY_TABLE));
    for (std::string line; std::getline(table, line);) {
        if (line.empty() || line[0] == '#') continue;
        std::vector<std::string> f;
        std::istringstream cols(line);
        for (std::string c; std::getline(cols, c, '\t');) f.push_back(c);
        if (f.size() != 6) continue;
        if (!has_migration(f[0])) continue;
        rows.push_back({f[0], f[1], f[3], f[5]});
    }
    return rows;
}

// "blocked: N" of a `kverify run` output, or 0 (the line says nothing when none was).
long long blocked_of(const std::string& out) {
    const std::size_t at = out.find("blocked: ");
    return at == std::string::npos ? 0 : std::stoll(out.substr(at + 9));
}

class switch_points : public cli {
protected:
    // Runs every quick migration row that passes on a dpor engine with and without `flag`, and
    // expects the same behaviors; `count` sees each row's two outputs.
    template <class Count>
    unsigned same_behaviors_with(const std::string& flag, Count count) {
        unsigned compared = 0;
        for (const row& r : migration_rows()) {
            if (r.tier != "quick" || r.expected != "pass" || r.engine.rfind("dpor-", 0) != 0)
                continue;
            SCOPED_TRACE(r.check + " " + r.engine);
            const result with =
                kverify({"run", r.check, "--engine", r.engine, "--behaviors", path("with.txt")});
            const result other = kverify(
                {"run", r.check, "--engine", r.engine, flag, "--behaviors", path("other.txt")});
            EXPECT_EQ(with.status, 0) << with.out << with.err;
            EXPECT_EQ(other.status, 0) << other.out << other.err;
            if (with.status != 0 || other.status != 0) continue;
            const std::vector<std::string> a = lines_of(slurp(path("with.txt")));
            const std::vector<std::string> b = lines_of(slurp(path("other.txt")));
            EXPECT_FALSE(a.empty());
            // (Each file is sorted, each line once: equal files are equal sets.)
            const auto missing = std::find_if(b.begin(), b.end(), [&a](const std::string& l) {
                return !std::binary_search(a.begin(), a.end(), l);
            });
            EXPECT_TRUE(a == b) << a.size() << " behaviors without " << flag << ", " << b.size()
                                << " with it; one of those missing: "
                                << (missing == b.end() ? "none" : *missing);
            count(with.out, other.out);
            ++compared;
        }
        return compared;
    }

    // Every quick migration row (every engine) has its verdict with `flag` too; the passes and the
    // violations it found.
    std::pair<unsigned, unsigned> verdicts_with(const std::string& flag) {
        unsigned rows = 0;
        quick_rows_table("mig.tsv", has_migration, rows);
        EXPECT_GE(rows, 200u) << "the quick tier's migration rows, on every engine";
        const result with = kverify({"verify", "--expected", path("mig.tsv"), "--tier", "all", "-j",
                                     "2", "--json", path("with.json")});
        EXPECT_EQ(with.status, 0) << with.out << with.err;
        // Exit status 1 where a check with several kinds of violation finds another first.
        kverify({"verify", "--expected", path("mig.tsv"), "--tier", "all", "-j", "2", flag,
                 "--allow-count-changed", "--json", path("other.json")});
        std::map<std::string, json> reduced;
        for (const json& r : rows_of(path("with.json"))) reduced[key_of(r)] = r;
        unsigned passes = 0, fails = 0;
        for (const json& r : rows_of(path("other.json"))) {
            const std::string k = key_of(r);
            EXPECT_TRUE(reduced.count(k)) << k;
            if (!reduced.count(k)) continue;
            EXPECT_NE(r.at("verdict"), "inconclusive") << k;
            EXPECT_EQ(r.at("verdict") == "pass", reduced[k].at("verdict") == "pass")
                << k << ": " << r.at("verdict") << " with " << flag << ", "
                << reduced[k].at("verdict") << " without";
            ++(r.at("verdict") == "pass" ? passes : fails);
        }
        return {passes, fails};
    }
};

TEST_F(switch_points, every_quick_migration_row_that_passes_keeps_its_behaviors) {
    unsigned fewer = 0;
    const unsigned compared = same_behaviors_with(
        "--every-switch-point", [&](const std::string& with, const std::string& every) {
            const long long n = executions_of(with), m = executions_of(every);
            EXPECT_LE(n, m);
            fewer += n < m;
        });
    EXPECT_GE(compared, 50u) << "the quick tier's migration rows that pass on a dpor engine";
    EXPECT_GE(fewer, 45u) << "on most of them the switches at the ends add executions";
}

TEST_F(switch_points, a_preemption_by_window_keeps_the_executions_of_a_preemption_by_choice) {
    unsigned less_blocked = 0;
    const unsigned compared = same_behaviors_with(
        "--preempt-by-choice", [&](const std::string& window, const std::string& choice) {
            EXPECT_EQ(executions_of(window), executions_of(choice)) << "the same executions";
            EXPECT_LE(blocked_of(window), blocked_of(choice));
            less_blocked += blocked_of(window) < blocked_of(choice);
        });
    EXPECT_GE(compared, 50u) << "the quick tier's migration rows that pass on a dpor engine";
    EXPECT_GE(less_blocked, 30u) << "on most of them a preemption nobody takes blocked";
}

TEST_F(switch_points, every_quick_migration_row_has_its_verdict_with_every_switch_point) {
    const auto [passes, fails] = verdicts_with("--every-switch-point");
    EXPECT_GE(passes, 80u);
    EXPECT_GE(fails, 120u);
}

TEST_F(switch_points, every_quick_migration_row_has_its_verdict_with_preemption_by_choice) {
    const auto [passes, fails] = verdicts_with("--preempt-by-choice");
    EXPECT_GE(passes, 80u);
    EXPECT_GE(fails, 120u);
}

TEST_F(switch_points, behaviors_only_of_a_whole_dpor_search_and_no_repin_of_another_search) {
    const result relacy = kverify({"run", "percpu_counter/local-cas/mig", "--engine", "relacy",
                                   "--behaviors", path("b.txt")});
    expect_usage_error(relacy, "keeps no execution graphs");
    const result failing = kverify({"run", "percpu_counter/mut-write-back/mig", "--engine",
                                    "dpor-rc11", "--no-shrink", "--behaviors", path("b.txt")});
    EXPECT_EQ(failing.status, 1) << failing.out << failing.err;
    EXPECT_NE(failing.out.find("behaviors not written"), std::string::npos) << failing.out;
    EXPECT_FALSE(std::ifstream(path("b.txt")).good()) << "nothing written";

    const std::string t = rows_table({{"percpu_counter/local-cas/mig", "dpor-rc11"}});
    const std::string before = slurp(t);
    const result p =
        kverify({"verify", "--expected", t, "--tier", "all", "--every-switch-point", "--repin"});
    expect_usage_error(p, "--repin with --every-switch-point");
    const result q =
        kverify({"verify", "--expected", t, "--tier", "all", "--preempt-by-choice", "--repin"});
    expect_usage_error(q, "--repin with --preempt-by-choice");
    EXPECT_EQ(slurp(t), before) << "the table is left as it was";
}

}  // namespace
}  // namespace kverify_cli_test
