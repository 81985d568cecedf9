// SPDX-License-Identifier: GPL-2.0-only
// A declared symmetry (kernel_config::irq_rounds_interchangeable; model/ASSUMPTIONS.md, Search):
// every row of the quick tier whose check declares one passes with the symmetry set aside
// (--no-symmetry) exactly where it passes with it, and then with more executions; the
// kernel's twin counts exactly (2 executions with it, 4 without) on every engine, and its
// misdeclared twin shows what the comparison guards against: a symmetry declared for an IRQ
// handler that runs other code than the task's rounds hides a violation that --no-symmetry
// finds. The full tier's symmetric rows (c3-o2-irq3) are compared by the ctest
// model.symmetry-full (label model-full, model/CMakeLists.txt).
#include <map>
#include <set>
#include <sstream>
#include <vector>

#include "tests/cli/cli_helpers.hpp"

namespace kverify_cli_test {
namespace {

// `kverify list --symmetric`: the lines, each the check's name, algorithm, variant, configuration
// and engines.
std::vector<std::string> symmetric_lines() {
    const result r = kverify({"list", "--symmetric"});
    EXPECT_EQ(r.status, 0) << r.err;
    std::vector<std::string> lines;
    std::istringstream in(r.out);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

std::set<std::string> names_of(const std::vector<std::string>& lines) {
    std::set<std::string> names;
    for (const std::string& line : lines) names.insert(line.substr(0, line.find('\t')));
    return names;
}

// "executions: N" of a `kverify run` output, or -1.
long long executions_of(const std::string& out) {
    const std::size_t at = out.find("executions: ");
    return at == std::string::npos ? -1 : std::stoll(out.substr(at + 12));
}

class symmetry : public cli {};

TEST_F(symmetry, list_names_exactly_the_checks_that_declare_one) {
    const std::vector<std::string> lines = symmetric_lines();
    const std::set<std::string> names = names_of(lines);
    for (const char* c :
         {"kernel/irq-rounds-interchangeable", "kernel/irq-rounds-misdeclared",
          "objpool/fix-acquire-last/c2-o2-irq2-np", "objpool/refresh-acquire/c3-o2-irq3"})
        EXPECT_EQ(names.count(c), 1u) << c;
    for (const char* c : {"objpool/fix-acquire-last/c2-o2-irq", "kernel/back-to-back-irqs",
                          "objpool/fix-acquire-last/c2-o2-r2-irq-swap"})
        EXPECT_EQ(names.count(c), 0u) << c;
    for (const std::string& line : lines)
        EXPECT_NE(line.find("symmetry"), std::string::npos)
            << "its configuration says so: " << line;
}

TEST_F(symmetry, every_quick_row_of_a_symmetric_check_has_its_verdict_without_the_symmetry) {
    const std::set<std::string> names = names_of(symmetric_lines());
    unsigned rows = 0;
    quick_rows_table(
        "sym.tsv",
        [&names](const std::string& check) {
            return names.count(check) && check != "kernel/irq-rounds-misdeclared";
        },
        rows);
    ASSERT_GE(rows, 100u) << "the quick tier's symmetric rows (c2-o2-irq2 on three engines)";

    const result with = kverify({"verify", "--expected", path("sym.tsv"), "--tier", "all", "-j",
                                 "2", "--json", path("with.json")});
    ASSERT_EQ(with.status, 0) << with.out << with.err;
    // Its exit status is 1 where a check with several violations finds another one first.
    kverify({"verify", "--expected", path("sym.tsv"), "--tier", "all", "-j", "2", "--no-symmetry",
             "--allow-count-changed", "--json", path("without.json")});

    std::map<std::string, json> reduced;
    for (const json& row : rows_of(path("with.json"))) reduced[key_of(row)] = row;
    unsigned passes = 0, same_class = 0, fails = 0;
    for (const json& row : rows_of(path("without.json"))) {
        const std::string k = key_of(row);
        ASSERT_TRUE(reduced.count(k)) << k;
        const json& r = reduced[k];
        EXPECT_NE(row.at("verdict"), "inconclusive") << k;
        EXPECT_EQ(row.at("verdict") == "pass", r.at("verdict") == "pass")
            << k << ": " << row.at("verdict") << " without the symmetry, " << r.at("verdict")
            << " with it";
        if (r.at("verdict") != "pass") {
            // A search stops at its first violation, and the two searches run in another order:
            // a check with several kinds of violation may show another one first (the set of
            // violating executions is the same up to the symmetry).
            ++fails;
            same_class += row.at("verdict") == r.at("verdict");
            continue;
        }
        ++passes;
        // Every symmetric configuration offers an IRQ at the first round boundary, so a search
        // that passes explores strictly more without the symmetry.
        EXPECT_GT(row.at("executions").get<std::uint64_t>(),
                  r.at("executions").get<std::uint64_t>())
            << k;
    }
    EXPECT_GE(passes, 30u);
    EXPECT_GE(fails, 30u);
    EXPECT_GE(same_class + 2, fails) << "violations of another kind first on more than two rows";
}

TEST_F(symmetry, the_kernel_twin_explores_two_of_its_four_executions_on_every_engine) {
    for (const char* engine : {"relacy", "dpor-rc11", "dpor-sc", "dpor-lkmm"}) {
        SCOPED_TRACE(engine);
        const result with =
            kverify({"run", "kernel/irq-rounds-interchangeable", "--engine", engine});
        EXPECT_EQ(with.status, 0) << with.out << with.err;
        EXPECT_EQ(executions_of(with.out), 2) << with.out;
        const result without = kverify(
            {"run", "kernel/irq-rounds-interchangeable", "--engine", engine, "--no-symmetry"});
        EXPECT_EQ(without.status, 0) << without.out << without.err;
        EXPECT_EQ(executions_of(without.out), 4) << without.out;
        EXPECT_NE(without.out.find("no-symmetry"), std::string::npos) << "the search says so";
    }
}

TEST_F(symmetry, a_misdeclared_symmetry_hides_a_violation_that_the_full_search_finds) {
    const result with = kverify({"run", "kernel/irq-rounds-misdeclared", "--engine", "dpor-rc11"});
    EXPECT_EQ(with.status, 0) << with.out;
    EXPECT_NE(with.out.find("verdict: pass"), std::string::npos) << with.out;
    const result without =
        kverify({"run", "kernel/irq-rounds-misdeclared", "--engine", "dpor-rc11", "--no-symmetry"});
    EXPECT_EQ(without.status, 1) << without.out;
    EXPECT_NE(without.out.find("verdict: irq-last"), std::string::npos) << without.out;
}

TEST_F(symmetry, no_symmetry_on_a_check_that_declares_none_or_with_repin_is_refused) {
    const result r =
        kverify({"run", "kernel/back-to-back-irqs", "--engine", "dpor-rc11", "--no-symmetry"});
    EXPECT_EQ(r.status, 2) << r.out << r.err;
    EXPECT_NE(r.err.find("declares no symmetry"), std::string::npos) << r.err;
    const std::string t = rows_table({{"kernel/irq-rounds-interchangeable", "dpor-rc11"}});
    const std::string before = slurp(t);
    const result p =
        kverify({"verify", "--expected", t, "--tier", "all", "--no-symmetry", "--repin"});
    EXPECT_EQ(p.status, 2) << p.out << p.err;
    EXPECT_NE(p.err.find("--repin with --no-symmetry"), std::string::npos) << p.err;
    EXPECT_EQ(slurp(t), before) << "the table is left as it was";
}

}  // namespace
}  // namespace kverify_cli_test
