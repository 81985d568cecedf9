// SPDX-License-Identifier: GPL-2.0-only
// The kernel checks under the LKMM (dpor-lkmm): there a read may take the value of a write that
// runs later, so the scenarios judge what their tasks read in after() (proofs/properties.md).
// The table's rows show the failing and passing sides of most of those judgements; the payload
// handover chain of objpool is never the first violation found there (the data-race flag of a
// racy handover comes first), so it is shown here with every class of the search.
#include <cstdlib>
#include <string>

#include "cli_helpers.hpp"

namespace kverify_cli_test {
namespace {

class cli_lkmm : public cli {};

// The classes a dpor search met, with KVERIFY_ALL_VIOLATIONS (the row's detail names them).
std::string classes_of(const std::string& table, const std::string& json_path) {
    ::setenv("KVERIFY_ALL_VIOLATIONS", "1", 1);
    const result r = kverify({"verify", "--expected", table, "--tier", "all", "-j", "1", "--json",
                              json_path, "--no-progress"});
    ::unsetenv("KVERIFY_ALL_VIOLATIONS");
    EXPECT_EQ(r.status, 0) << r.out << r.err;
    const json rows = rows_of(json_path);
    EXPECT_EQ(rows.size(), 1u);
    return rows.empty() ? "" : rows[0].value("verdict", "") + " " + rows[0].value("detail", "");
}

TEST_F(cli_lkmm, a_stale_payload_breaks_the_chain_of_handovers_and_a_sound_pool_keeps_it) {
    // v6.15's pop reads `last` with READ_ONCE (F1): under the LKMM the popper may read the
    // payload from before the push, which the chain check reports beside the data race.
    const std::string bad =
        classes_of(small_table("bad.tsv", {"objpool/v6.15/c2-o1\tdpor-lkmm"}), path("bad.json"));
    EXPECT_NE(bad.find("stale-payload"), std::string::npos) << bad;
    EXPECT_NE(bad.find("data-race"), std::string::npos) << bad;
    // The twin: with smp_load_acquire of `last` every execution hands each payload over once.
    const std::string good = classes_of(
        small_table("good.tsv", {"objpool/fix-acquire-last/c2-o1\tdpor-lkmm"}), path("good.json"));
    EXPECT_EQ(good.rfind("pass", 0), 0u) << good;
    EXPECT_EQ(good.find("stale-payload"), std::string::npos) << good;
}

}  // namespace
}  // namespace kverify_cli_test
