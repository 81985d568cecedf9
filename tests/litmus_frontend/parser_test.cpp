// SPDX-License-Identifier: GPL-2.0-only
// The litmus parser: what it reads (every form of the init block, comments in each section,
// threads, statements, primitives, the final clause), that printing a parsed test and parsing
// it again gives the same test (the same text, and the same outcome when run), and each error
// path with its message and position.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "model/litmus/dpor_backend.hpp"
#include "model/litmus/print.hpp"
#include "model/litmus/report.hpp"
#include "tests/litmus_frontend/helpers.hpp"

namespace kverify::litmus {
namespace {

using namespace test_support;

const char* const fixtures[] = {"sb.litmus",
                                "sb-mb.litmus",
                                "mp-once.litmus",
                                "mp-wmb-rmb.litmus",
                                "lb-ctrl.litmus",
                                "2plus2w.litmus",
                                "publish-pointer.litmus",
                                "lock-counter.litmus",
                                "cmpxchg-claim.litmus",
                                "atomics.litmus",
                                "xor-unguessed.litmus",
                                "trylock-filter.litmus",
                                "syntax.litmus",
                                "syntax-ext.litmus"};

std::string outcome_of(const test& t) {
    const std::vector<rloc> obs = observed_rlocs(t);
    const run_result r = run_on_dpor(t, obs, dpor_run_options{});
    EXPECT_FALSE(r.error) << (r.error ? r.error->what() : "");
    return herd_report(t, obs, r.finals).text;
}

TEST(LitmusParser, PrintingAndParsingAgainGivesTheSameTest) {
    for (const char* f : fixtures) {
        SCOPED_TRACE(f);
        const test a = parse_test(f, read_file(fixture_path(f)));
        const std::string once = print_test(a);
        const test b = parse_test(f, once);
        EXPECT_EQ(print_test(b), once);
        EXPECT_EQ(b.name, a.name);
        EXPECT_EQ(b.threads.size(), a.threads.size());
        EXPECT_EQ(b.locations.size(), a.locations.size());
        EXPECT_EQ(b.result, a.result);
        EXPECT_EQ(outcome_of(b), outcome_of(a));  // the same executions and final states
    }
}

TEST(LitmusParser, ReadsTheHeaderTheInitBlockAndTheThreads) {
    const test t = parse_test("syntax.litmus", read_file(fixture_path("syntax.litmus")));
    EXPECT_EQ(t.name, "syntax+all-forms");
    ASSERT_TRUE(t.result);
    EXPECT_EQ(*t.result, "Always");
    EXPECT_EQ(t.result_pos.line, 6u);
    ASSERT_EQ(t.threads.size(), 3u);
    auto loc = [&](const std::string& n) -> const location& {
        for (const location& l : t.locations)
            if (l.name == n) return l;
        ADD_FAILURE() << "no location " << n;
        return t.locations[0];
    };
    EXPECT_EQ(loc("x").init, value::of_int(1));   // x=1;
    EXPECT_EQ(loc("y").init, value::of_int(-2));  // int y = -2;
    EXPECT_EQ(loc("z").init, value::of_int(0));   // int z;
    EXPECT_EQ(loc("p").init.is_ptr, true);        // int *p = &x;
    EXPECT_EQ(t.locations[loc("p").init.loc].name, "x");
    EXPECT_EQ(t.locations[loc("q").init.loc].name, "y");  // q=y; (a pointer by name)
    EXPECT_EQ(loc("w").init, value::of_int(3));           // [w]=3;
    EXPECT_EQ(loc("l").type.base, "spinlock_t");          // from P2's parameter
    EXPECT_EQ(loc("v").type.base, "atomic_t");
    EXPECT_EQ(loc("p").type.stars, 1u);
    const thread& p0 = t.threads[0];
    ASSERT_EQ(p0.params.size(), 3u);
    EXPECT_EQ(p0.params[1].name, "p");
    EXPECT_EQ(p0.params[1].type.stars, 2u);
    // r5 is only assigned, never declared: a register all the same (herd7 allows it).
    bool r5 = false;
    for (const reg_info& r : t.threads[1].regs) r5 |= r.name == "r5" && !r.declared && r.assigned;
    EXPECT_TRUE(r5);
    EXPECT_EQ(t.threads[0].regs[0].init, value::of_int(0));
    // 1:r3=7 in the init block.
    for (const reg_info& r : t.threads[1].regs) {
        if (r.name == "r3") {
            EXPECT_EQ(r.init, value::of_int(7));
        }
    }
    EXPECT_EQ(t.shown.size(), 3u);
    ASSERT_TRUE(t.filter);
    EXPECT_EQ(prop_text(t, *t.filter), "not ([z]=5)");
}

TEST(LitmusParser, PrintsConditionsInHerdsNormalForm) {
    auto cond = [](const std::string& c) {
        const test t = parse_test("t", "C t\n{}\nP0(int *x, int *y) { int r0; r0 = 1; }\n" + c);
        return condition_text(t);
    };
    EXPECT_EQ(cond("exists (x=1 /\\ 0:r0=2)"), "exists ([x]=1 /\\ 0:r0=2)");
    EXPECT_EQ(cond("exists (~x=2)"), "exists (not ([x]=2))");
    EXPECT_EQ(cond("exists (x != 2)"), "exists (not ([x]=2))");
    EXPECT_EQ(cond("exists (not (x=1 \\/ y=1))"), "exists (not ([x]=1 \\/ [y]=1))");
    EXPECT_EQ(cond("exists (x=1 \\/ y=1 /\\ 0:r0=0)"), "exists ([x]=1 \\/ [y]=1 /\\ 0:r0=0)");
    EXPECT_EQ(cond("exists ((x=1 \\/ y=1) /\\ 0:r0=0)"), "exists (([x]=1 \\/ [y]=1) /\\ 0:r0=0)");
    EXPECT_EQ(cond("exists (x=1 /\\ y=1 /\\ [x]=1)"), "exists ([x]=1 /\\ [y]=1 /\\ [x]=1)");
    EXPECT_EQ(cond("forall (x=1 => y=1)"), "forall ([x]=1 => [y]=1)");
    EXPECT_EQ(cond("forall (x=1 /\\ y=1 => 0:r0=1)"), "forall ([x]=1 /\\ ([y]=1 => 0:r0=1))");
    EXPECT_EQ(cond("~exists (0:r0=x)"), "~exists (0:r0=x)");
    EXPECT_EQ(cond("exists (x==1)"), "exists ([x]=1)");
    EXPECT_EQ(cond("(x=1)"), "exists ([x]=1)");
    EXPECT_EQ(cond("exists (true) ;"), "exists (true)");
    EXPECT_EQ(cond(""), "forall (true)");
}

struct bad_case {
    std::string src;
    const char* error;
};

// A thread around `body` with parameters x, y (int) and l (a lock).
std::string in_thread(const std::string& body, const std::string& cond = "exists (x=1)") {
    return "C t\n{}\nP0(int *x, int *y, spinlock_t *l)\n{\n" + body + "\n}\n" + cond + "\n";
}

TEST(LitmusParser, MalformedFilesAreErrorsWithTheirPosition) {
    const bad_case cases[] = {
        {"", "1:1: expected 'C NAME' on the first line, found the end of the file"},
        {"AArch64 t\n{}\n", "1:1: only C litmus tests are supported; this one is for 'AArch64'"},
        {"C\n{}\n", "1:2: missing test name after 'C'"},
        {"C t\n(* open\n", "2:1: unterminated comment (* ... *)"},
        {"C t\n(* no init *)\n", "3:1: missing the init block '{ ... }'"},
        {"C t\n{ x = ; }\n", "2:7: expected a value (a number or a location), found ';'"},
        {"C t\n{ x=1; x=2; }\n", "2:8: location 'x' is initialised twice"},
        {"C t\n{ long x; }\n",
         "2:3: type 'long' is not supported (int, atomic_t, spinlock_t and pointers to them are)"},
        {"C t\n{ x = 1\nP0(int *x) {}\n",
         "3:1: expected ';' between the init block's items, "
         "found 'P0'"},
        {"C t\n{ x = 1;\nP0(int *x) {}\n",
         "3:1: the init block is not closed: '}' is missing before P0"},
        {"C t\n{ 1:r0 = 1 }\nP0(int *x) {}\nexists (x=0)\n",
         "2:3: the init block sets a register of P1, which the test does not have"},
        {"C t\n{}\nexists (x=1)\n", "3:1: expected a thread 'P0(...) { ... }', found 'exists'"},
        {"C t\n{}\nP1(int *x) {}\n",
         "3:1: expected thread P0, found P1 (threads are P0, P1, ... "
         "in order)"},
        {"C t\n{}\nP0(int x) {}\n",
         "3:8: parameter 'x' must be a pointer (int *x): it is the "
         "address of a shared location"},
        {"C t\n{}\nP0(int *x, int *x) {}\n", "3:17: parameter 'x' appears twice"},
        {in_thread("while (1) {}"), "5:1: loops are not supported ('while')"},
        {in_thread("int r; for (;;) {}"), "5:8: loops are not supported ('for')"},
        {in_thread("return;"), "5:1: 'return' is not supported"},
        {in_thread("rcu_read_lock();"), "5:1: RCU is not supported ('rcu_read_lock')"},
        {in_thread("synchronize_rcu();"), "5:1: RCU is not supported ('synchronize_rcu')"},
        {in_thread("foo(x);"), "5:1: unknown function 'foo'"},
        {in_thread("int r; r = READ_ONCE(x);"), "5:22: READ_ONCE takes the location as *p, not p"},
        {in_thread("WRITE_ONCE(*x);"), "5:1: WRITE_ONCE takes 2 arguments, not 1"},
        {in_thread("int r; r = spin_lock(l);"), "5:12: spin_lock returns no value"},
        {in_thread("WRITE_ONCE(*x, y2);"),
         "5:16: 'y2' is neither a parameter of P0 nor a register it declares or assigns"},
        {in_thread("x = 1;"),
         "5:1: cannot assign to parameter 'x' (the location's address): "
         "write *x = ... or WRITE_ONCE(*x, ...)"},
        {in_thread("int r; int r;"), "5:12: register 'r' is declared twice"},
        {in_thread("int x;"), "5:5: register 'x' has a parameter's name"},
        {in_thread("int r; r = r / 2;"), "5:14: operator '/' is not supported"},
        {in_thread("int r; r = 1"), "6:1: expected ';' at the end of the statement, found '}'"},
        {in_thread("else WRITE_ONCE(*x, 1);"), "5:1: 'else' without an 'if'"},
        {in_thread("int r; r = (long)1;"),
         "5:13: type 'long' is not supported (int, atomic_t, spinlock_t and pointers to them are)"},
        {in_thread("int *r; r = &nowhere;"),
         "5:14: '&nowhere': 'nowhere' is not a shared location (a parameter or in the init "
         "block)"},
        {in_thread("1 + 2 = 3;"), "5:7: the left of '=' must be a register or *p"},
        {in_thread("int r; r = 12ab;"), "5:12: malformed number '12ab'"},
        {in_thread("int r; r = 99999999999;"), "5:12: number 99999999999 is too large"},
        {in_thread("int r; r = 2147483648;"), "5:12: number 2147483648 does not fit in an int"},
        {in_thread("int r; r = 1 @ 2;"), "5:14: unexpected character '@'"},
        {in_thread("/* never closed"), "5:1: unterminated comment /* ... */"},
        {"C t\n{}\nP0(int *x) {\n", "4:1: missing '}' at the end of the file"},
        {"C t\n{ int u; }\nP0(int *x) { WRITE_ONCE(*x, u); }\nexists (x=0)\n",
         "3:29: 'u' is a shared location but not a parameter of P0"},
        {in_thread("", "exists (0:r9=1)"), "7:11: P0 has no register 'r9'"},
        {in_thread("", "exists (3:r0=1)"), "7:9: the test has no thread P3"},
        {in_thread("", "exists (zz=1)"),
         "7:9: unknown location 'zz' (not in the init block nor a parameter)"},
        {in_thread("", "exists (x=zz)"), "7:11: unknown location 'zz' as a value"},
        {in_thread("", "exists (x 1)"), "7:11: expected '=' in the condition, found number 1"},
        {in_thread("", "exists (x=1) foo"), "7:14: unexpected 'foo' after the final condition"},
        {in_thread("", "exists (x=1 /\\ )"), "7:16: expected a condition, found ')'"},
        {in_thread("", "exists (x=1"),
         "8:1: expected ')' to close the parenthesis, found the "
         "end of the file"},
        {in_thread("", "final (x=1)"),
         "7:1: 'final' conditions are not supported (exists, ~exists and forall are)"},
        {in_thread("", "~forall (x=1)"),
         "7:2: expected 'exists' after '~' in the final condition, found 'forall'"},
        {in_thread("", "locations [x y] exists (x=1)"),
         "7:14: expected ';' or ']' in 'locations', found 'y'"},
        {in_thread("", "exists (x=1) with t: exists"), "7:14: 'with' clauses are not supported"},
        {in_thread("", "maybe (x=1)"),
         "7:1: expected the final condition (exists, ~exists or forall), found 'maybe'"},
    };
    for (const bad_case& c : cases) {
        SCOPED_TRACE(c.src);
        EXPECT_EQ(parse_error(c.src), c.error);
    }
}

TEST(LitmusParser, EachMalformedCaseHasAWellFormedTwin) {
    // The same shapes, written right: they parse (so the errors above are about what is wrong).
    const std::string good[] = {
        "C t\n{ x = 1; }\nP0(int *x) {}\nexists (x=1)\n",
        "C t\n{ int x; }\nP0(int *x) { int r; r = READ_ONCE(*x); }\nexists (0:r=0)\n",
        in_thread("int r; r = spin_trylock(l); if (r) spin_unlock(l);"),
        in_thread("int r; r = 1; WRITE_ONCE(*x, r);", "exists (0:r=1)"),
        in_thread("int r; r = (int)1; *x = r;"),
        in_thread("int *r; r = &x; WRITE_ONCE(*r, 1);"),
        "C t\n{ int u; }\nP0(int *x, int *u) { WRITE_ONCE(*x, READ_ONCE(*u)); }\nexists (x=0)\n",
        in_thread("", "locations [x; y;] exists (x=1)"),
    };
    for (const std::string& src : good) {
        SCOPED_TRACE(src);
        EXPECT_EQ(parse_error(src), "");
    }
}

}  // namespace
}  // namespace kverify::litmus
