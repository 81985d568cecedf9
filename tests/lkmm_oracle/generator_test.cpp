// SPDX-License-Identifier: GPL-2.0-only
// The random litmus generator (generator.hpp): deterministic, parsed back by the front-end
// (and printed back to the same test), covering every construct it promises, and run by the
// oracle without a refusal. Its tests were compared with herd7 by hand (not here: herd7 is no
// dependency).
#include <gtest/gtest.h>

#include "model/litmus/parser.hpp"
#include "model/litmus/print.hpp"
#include "tests/lkmm_oracle/generator.hpp"
#include "tests/lkmm_oracle/oracle.hpp"

namespace kverify::lkmm_oracle {
namespace {

TEST(lkmm_generator, is_deterministic) {
    EXPECT_EQ(generate_litmus(7), generate_litmus(7));
    EXPECT_NE(generate_litmus(7), generate_litmus(8));  // the twin: the seed matters
}

TEST(lkmm_generator, prints_tests_the_front_end_parses_back) {
    for (std::uint64_t seed = 1; seed <= 300; ++seed) {
        const std::string text = generate_litmus(seed);
        litmus::test t;
        ASSERT_NO_THROW(t = litmus::parse_test("gen", text)) << text;
        EXPECT_GE(t.threads.size(), 2u);
        EXPECT_LE(t.threads.size(), 4u);
        const std::string again = litmus::print_test(t);
        EXPECT_EQ(litmus::print_test(litmus::parse_test("gen", again)), again) << text;
    }
}

TEST(lkmm_generator, covers_what_it_promises) {
    std::string all;
    for (std::uint64_t seed = 1; seed <= 300; ++seed) all += generate_litmus(seed);
    for (const char* construct : {"READ_ONCE(*",
                                  "WRITE_ONCE(*",
                                  "smp_load_acquire(",
                                  "smp_store_release(",
                                  " = *",
                                  "smp_mb();",
                                  "smp_rmb();",
                                  "smp_wmb();",
                                  "smp_mb__before_atomic();",
                                  "smp_mb__after_atomic();",
                                  "smp_mb__after_spinlock();",
                                  "smp_mb__after_unlock_lock();",
                                  "barrier();",
                                  "= xchg(",
                                  "xchg_relaxed(",
                                  "xchg_acquire(",
                                  "xchg_release(",
                                  "= cmpxchg(",
                                  "cmpxchg_relaxed(",
                                  "cmpxchg_acquire(",
                                  "cmpxchg_release(",
                                  "atomic_add(",
                                  "atomic_add_return(",
                                  "atomic_add_return_acquire(",
                                  "atomic_fetch_add(",
                                  "atomic_fetch_add_release(",
                                  "if (",
                                  "} else {",
                                  "spin_lock(s);",
                                  "spin_unlock(s);",
                                  "q0 = READ_ONCE(*p);",
                                  "READ_ONCE(*q0)",
                                  "WRITE_ONCE(*q0,",
                                  "WRITE_ONCE(*p,",
                                  " + 1)",
                                  "& 0) + 1",
                                  "P3(",
                                  "int *p = &x;"})
        EXPECT_NE(all.find(construct), std::string::npos) << construct;
}

TEST(lkmm_generator, tests_run_on_the_oracle) {
    oracle_options o;
    o.max_candidates = 5'000'000;
    std::uint64_t executions = 0;
    for (std::uint64_t seed = 1; seed <= 40; ++seed) {
        const litmus::test t = litmus::parse_test("gen", generate_litmus(seed));
        oracle_result r;
        ASSERT_NO_THROW(r = run_oracle(t, o)) << generate_litmus(seed);
        executions += r.executions.size();
    }
    EXPECT_GT(executions, 40u);
}

}  // namespace
}  // namespace kverify::lkmm_oracle
