// SPDX-License-Identifier: GPL-2.0-only
// Tests of the registry of checks (model/check/registry.hpp) on a registry of its own: a check is
// found by name, the engines of each build join one check in registration order, and a search
// runs on the engine named, never another.
#include <gtest/gtest.h>

#include "model/check/registry.hpp"

namespace {

using kverify::model::check;
using kverify::model::check_registry;
using kverify::model::search_spec;
using kverify::model::verdict;

// A check whose engines answer with their own name as the outcome.
check fake(const std::string& name, const std::vector<std::string>& engines) {
    check c;
    c.name = name;
    c.algorithm = "fake";
    for (const std::string& e : engines)
        c.engines.push_back({e,
                             [e](const search_spec&) {
                                 verdict v;
                                 v.outcome = "ran-" + e;
                                 return v;
                             },
                             {}});
    return c;
}

TEST(registry, finds_checks_by_name_and_joins_the_engines_of_each_build) {
    check_registry r;
    r.add(fake("a/x", {"relacy"}));
    r.add(fake("b/y", {"relacy"}));
    r.add(fake("a/x", {"dpor-rc11", "dpor-sc"}));  // the second build's engines, same check
    r.add(fake("b/y", {"dpor-rc11", "dpor-sc"}));

    ASSERT_EQ(r.all().size(), 2u);
    EXPECT_EQ(r.all()[0].name, "a/x");
    EXPECT_EQ(r.all()[1].name, "b/y");
    const check* a = r.find("a/x");
    ASSERT_NE(a, nullptr);
    EXPECT_EQ(a, &r.all()[0]);
    EXPECT_EQ(r.find("b/y"), &r.all()[1]);
    EXPECT_EQ(r.find("a/"), nullptr);
    EXPECT_EQ(r.find("no/such"), nullptr);

    ASSERT_EQ(a->engines.size(), 3u);
    EXPECT_EQ(a->engines[0].name, "relacy");
    EXPECT_EQ(a->engines[1].name, "dpor-rc11");
    EXPECT_EQ(a->engines[2].name, "dpor-sc");
    EXPECT_EQ(r.engines(), (std::vector<std::string>{"relacy", "dpor-rc11", "dpor-sc"}));
}

TEST(registry, a_search_runs_on_the_engine_named_and_no_other) {
    check_registry r;
    r.add(fake("a/x", {"relacy"}));
    r.add(fake("a/x", {"dpor-sc"}));
    const check& a = *r.find("a/x");
    for (const char* e : {"relacy", "dpor-sc"}) {
        const verdict v = a.run(e, search_spec{});
        EXPECT_EQ(v.outcome, std::string("ran-") + e);
        EXPECT_EQ(v.engine, e) << "the verdict names its engine";
        EXPECT_TRUE(a.supports(e));
    }
    EXPECT_FALSE(a.supports("dpor-rc11"));
    EXPECT_THROW(a.run("dpor-rc11", search_spec{}), std::invalid_argument);
}

TEST(registry, a_check_found_stays_where_it_is_as_more_are_registered) {
    check_registry r;
    r.add(fake("first", {"relacy"}));
    const check* first = r.find("first");
    for (int i = 0; i < 1000; ++i) r.add(fake("c" + std::to_string(i), {"relacy"}));
    EXPECT_EQ(r.find("first"), first);
    EXPECT_EQ(first->name, "first");
    EXPECT_EQ(r.find("c999")->name, "c999");
    EXPECT_EQ(r.all().size(), 1001u);
}

}  // namespace
