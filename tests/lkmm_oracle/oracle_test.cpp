// SPDX-License-Identifier: GPL-2.0-only
// The LKMM oracle against herd7: every test of the LKMM corpus (tests/lkmm, herd7 7.58's results
// in its EXPECTED.tsv) and of fixtures/ (lock.cat's other cases) gives herd7's states,
// observation, witnesses and flags; each mutation of an axiom or a dependency changes some
// corpus result (the twins); pruning changes nothing; the canonical keys; what is refused.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "tests/lkmm_oracle/generator.hpp"
#include "tests/lkmm_oracle/support.hpp"

namespace kverify::lkmm_oracle {
namespace {

using namespace test_support;

std::vector<summary> corpus_rows() { return load_expected(LKMM_CORPUS); }
std::vector<summary> fixture_rows() { return load_expected(LKMM_ORACLE_FIXTURES); }

std::string test_name(const testing::TestParamInfo<summary>& p) {
    std::string n = p.param.file.substr(p.param.file.rfind('/') + 1);
    n = n.substr(0, n.size() - std::string(".litmus").size());
    for (char& c : n)
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
    return n;
}

TEST(lkmm_oracle_corpus, has_every_test_of_the_folder) {
    // EXPECTED.tsv's rows are the 150 tests (a row lost to a bad line would go unchecked).
    EXPECT_EQ(corpus_rows().size(), 150u);
    EXPECT_EQ(fixture_rows().size(), 6u);
}

class herd7_results : public testing::TestWithParam<summary> {};

TEST_P(herd7_results, equal_the_oracles) {
    const summary& want = GetParam();
    const summary got = run_file(want.file);
    EXPECT_EQ(got.text(), want.text()) << want.file;
    // The Result comment of the file says the same as herd7's observation.
    EXPECT_EQ(parse_file(want.file).result.value_or("?"), want.observation);
}

INSTANTIATE_TEST_SUITE_P(corpus, herd7_results, testing::ValuesIn(corpus_rows()), test_name);
INSTANTIATE_TEST_SUITE_P(fixtures, herd7_results, testing::ValuesIn(fixture_rows()), test_name);

// ---- the twins: each mutation of the model changes the result of a named test ----
struct twin {
    mutation m;
    const char* file;  // a test of the corpus or of fixtures/ whose result must change
};

class mutated_model : public testing::TestWithParam<twin> {};

TEST_P(mutated_model, changes_a_result) {
    const twin& w = GetParam();
    oracle_options o;
    o.mut = w.m;
    unsigned changed = 0;
    std::string named;
    std::vector<summary> rows = corpus_rows();
    for (const summary& s : fixture_rows()) rows.push_back(s);
    for (const summary& want : rows) {
        const summary got = run_file(want.file, o);
        if (got == want) continue;
        ++changed;
        if (want.file.substr(want.file.rfind('/') + 1) == w.file) named = got.text();
    }
    EXPECT_FALSE(named.empty()) << to_string(w.m) << " leaves " << w.file << " as herd7 has it";
    std::cout << to_string(w.m) << ": " << changed << " of " << rows.size()
              << " results change (corpus and fixtures)\n";
}

INSTANTIATE_TEST_SUITE_P(
    twins, mutated_model,
    testing::Values(twin{mutation::no_coherence, "corr.litmus"},
                    twin{mutation::no_atomic, "xchg-vs-store.litmus"},
                    twin{mutation::no_happens_before, "mp+release+acquire.litmus"},
                    twin{mutation::no_propagation, "sb+mb+mb.litmus"},
                    twin{mutation::no_plain_coherence, "lb+plain-release+acquire.litmus"},
                    twin{mutation::no_addr, "mp+wmb+addr.litmus"},
                    twin{mutation::no_data, "lb+data+data.litmus"},
                    twin{mutation::no_ctrl, "lb+mb+ctrl.litmus"},
                    twin{mutation::ctrl_forward_closed, "lb+ctrl-after-if+ctrl.litmus"},
                    twin{mutation::no_carry_dep, "lb+data-plain+acquire.litmus"},
                    twin{mutation::no_rmw_data, "lb+fetch_add-rfi-data+ctrl.litmus"}),
    [](const testing::TestParamInfo<twin>& p) {
        std::string n = to_string(p.param.m);
        std::replace(n.begin(), n.end(), '-', '_');
        return n;
    });

// ---- pruning only skips what the model would reject ----
std::vector<std::string> keys(const oracle_result& r) {
    std::vector<std::string> k;
    for (const execution& x : r.executions) k.push_back(x.key);
    return k;
}

TEST(lkmm_oracle_pruning, keeps_every_execution) {
    oracle_options full;
    full.prune = false;
    std::vector<std::string> files;
    for (const summary& s : corpus_rows()) files.push_back(s.file);
    for (const summary& s : fixture_rows()) files.push_back(s.file);
    std::uint64_t pruned_candidates = 0, all_candidates = 0;
    for (const std::string& f : files) {
        const litmus::test t = parse_file(f);
        const oracle_result a = run_oracle(t), b = run_oracle(t, full);
        EXPECT_EQ(keys(a), keys(b)) << f;
        pruned_candidates += a.candidates;
        all_candidates += b.candidates;
    }
    // Generated tests too, those small enough without pruning.
    full.max_candidates = 200'000;
    unsigned compared = 0;
    for (std::uint64_t seed = 1; seed <= 60; ++seed) {
        const litmus::test t = litmus::parse_test("gen", generate_litmus(seed));
        oracle_result b;
        try {
            b = run_oracle(t, full);
        } catch (const litmus::litmus_error&) {
            continue;  // over the limit
        }
        EXPECT_EQ(keys(run_oracle(t)), keys(b)) << "seed " << seed;
        ++compared;
    }
    EXPECT_GE(compared, 30u);
    // The twin: pruning does skip candidates (or this test would compare a run with itself).
    EXPECT_LT(pruned_candidates, all_candidates);
}

// ---- canonical keys ----
TEST(lkmm_oracle_keys, sb_with_full_fences) {
    const oracle_result r = run_oracle(parse_file(std::string(LKMM_CORPUS) + "/sb+mb+mb.litmus"));
    EXPECT_EQ(keys(r), (std::vector<std::string>{
                           "P0: W x=1; F mb; R y=0<-init\nP1: W y=1; F mb; R x=1<-P0:0\n"
                           "co x: init P0:0\nco y: init P1:0\n",
                           "P0: W x=1; F mb; R y=1<-P1:0\nP1: W y=1; F mb; R x=0<-init\n"
                           "co x: init P0:0\nco y: init P1:0\n",
                           "P0: W x=1; F mb; R y=1<-P1:0\nP1: W y=1; F mb; R x=1<-P0:0\n"
                           "co x: init P0:0\nco y: init P1:0\n"}));
}

const char* const rmw_and_lock = R"(C keys-rmw-lock
{}
P0(int *x, spinlock_t *s)
{
	int r0;
	int r1;
	r0 = xchg_relaxed(x, 2);
	r1 = cmpxchg(x, 5, 3);
	spin_lock(s);
	spin_unlock(s);
}
P1(int *x, spinlock_t *s)
{
	spin_lock(s);
	WRITE_ONCE(*x, 1);
	spin_unlock(s);
}
exists (0:r0=1)
)";

TEST(lkmm_oracle_keys, rmw_failed_cmpxchg_and_locks) {
    // herd7 (by hand): 4 executions, 1 with 0:r0=1. The RMW is its read then its write, the
    // failed cmpxchg its read alone, a lock LKR then LKW, and each UL right after its LKW in co.
    const oracle_result r = run_oracle(litmus::parse_test("k.litmus", rmw_and_lock));
    const std::vector<std::string> k = keys(r);
    ASSERT_EQ(k.size(), 4u);
    EXPECT_EQ(k[2],
              "P0: R x=0<-init; W x=2; R x=2<-P0:1; R s=0<-init; W s=1; W s=0\n"
              "P1: R s=0<-P0:5; W s=1; W x=1; W s=0\n"
              "co s: init P0:4 P0:5 P1:1 P1:3\n"
              "co x: init P0:1 P1:2\n");
    EXPECT_EQ(r.positive, 1u);
    EXPECT_EQ(r.negative, 3u);
}

// ---- dependencies as herd7 has them (each checked with herd7 and a flagging cat file) ----
const event& only_event(const thread_run& r, ev_kind k, unsigned nth = 0) {
    for (const event& e : r.events)
        if (e.kind == k && nth-- == 0) return e;
    throw std::runtime_error("no such event");
}

std::vector<thread_run> runs_of(const std::string& code) {
    const std::string text =
        "C t\n{}\nP0(int *x, int *y, spinlock_t *s)\n{\n" + code + "\n}\nexists (x=0)\n";
    return thread_runs(litmus::parse_test("t.litmus", text))[0];
}

TEST(lkmm_oracle_deps, an_atomic_op_writes_from_its_read_xchg_does_not) {
    for (const thread_run& r : runs_of("int r0; r0 = atomic_fetch_add(1, x);"))
        EXPECT_EQ(only_event(r, ev_kind::write).data, std::vector<unsigned>{0});
    for (const thread_run& r : runs_of("int r0; r0 = xchg(x, 1);"))
        EXPECT_TRUE(only_event(r, ev_kind::write).data.empty());
    for (const thread_run& r : runs_of("int r0; int r1; r0 = READ_ONCE(*y); r1 = xchg(x, r0);"))
        EXPECT_EQ(only_event(r, ev_kind::write).data, std::vector<unsigned>{0});
}

TEST(lkmm_oracle_deps, a_failed_cmpxchg_is_one_read_of_the_rmw_set) {
    const std::vector<thread_run> runs = runs_of("int r0; r0 = cmpxchg(x, 1, 2);");
    ASSERT_EQ(runs.size(), 1u);  // x only ever holds 0: the cmpxchg fails
    ASSERT_EQ(runs[0].events.size(), 1u);
    EXPECT_TRUE(runs[0].events[0].atomic);
    EXPECT_EQ(runs[0].events[0].rmw_write, -1);
}

TEST(lkmm_oracle_deps, trylock_depends_on_failure_only) {
    const std::vector<thread_run> runs =
        runs_of("int r0; r0 = spin_trylock(s); WRITE_ONCE(*x, r0);");
    ASSERT_EQ(runs.size(), 2u);
    // Success: LKR, LKW, then the store, with no dependency (herd7 returns a constant).
    EXPECT_EQ(runs[0].events.size(), 3u);
    EXPECT_TRUE(runs[0].events[2].data.empty());
    // Failure: LF, then the store, data dependent on LF.
    ASSERT_EQ(runs[1].events.size(), 2u);
    EXPECT_EQ(runs[1].events[0].lock, lock_role::lf);
    EXPECT_EQ(runs[1].events[1].data, std::vector<unsigned>{0});
}

TEST(lkmm_oracle_domains, values_come_from_writes_only) {
    // The increment reads 0, or the 1 it writes from reading 0 (another thread's increment
    // could make it 2: here there is none), never a value computed from its own write.
    const std::vector<thread_run> runs =
        runs_of("int r0; r0 = READ_ONCE(*x); WRITE_ONCE(*x, r0 + 1);");
    std::vector<int> read;
    for (const thread_run& r : runs) read.push_back(only_event(r, ev_kind::read).val.i);
    EXPECT_EQ(read, (std::vector<int>{0, 1}));
    // The twin: a second increment of x makes 2 readable.
    const std::string two =
        "C t\n{}\nP0(int *x)\n{\nint r0; r0 = READ_ONCE(*x); "
        "WRITE_ONCE(*x, r0 + 1);\n}\nP1(int *x)\n{\natomic_inc(x);\n}\n"
        "exists (x=0)\n";
    read.clear();
    const std::vector<std::vector<thread_run>> both = thread_runs(litmus::parse_test("t", two));
    for (const thread_run& r : both[0]) read.push_back(only_event(r, ev_kind::read).val.i);
    EXPECT_EQ(read, (std::vector<int>{0, 1, 2}));
}

// ---- what the oracle refuses, each with a well-formed twin that runs ----
std::string refusal(const std::string& text) {
    try {
        run_oracle(litmus::parse_test("t.litmus", text));
    } catch (const litmus::litmus_error& e) {
        return std::to_string(e.pos.line) + ": " + e.what();
    }
    return "";
}

std::string one_thread(const std::string& code, const std::string& cond = "exists (x=0)") {
    return "C t\n{}\nP0(int *x, int *y, spinlock_t *s)\n{\nint r0; int r1;\n" + code + "\n}\n" +
           cond + "\n";
}

TEST(lkmm_oracle_refuses, two_accesses_herd7_leaves_unordered) {
    EXPECT_EQ(refusal(one_thread("r0 = READ_ONCE(*x) + READ_ONCE(*y);")).rfind("6: the LKMM ", 0),
              0u);
    EXPECT_NE(refusal(one_thread("r0 = xchg(x, READ_ONCE(*y));")), "");
    EXPECT_NE(refusal(one_thread("if (READ_ONCE(*x) == READ_ONCE(*y)) r0 = 1;")), "");
    // Twins: one access per instruction, and a store of a loaded value (ordered by its data).
    EXPECT_EQ(refusal(one_thread("r0 = READ_ONCE(*x); r1 = READ_ONCE(*y); r0 = r0 + r1;")), "");
    EXPECT_EQ(refusal(one_thread("WRITE_ONCE(*x, READ_ONCE(*y));")), "");
}

TEST(lkmm_oracle_refuses, spinlocks_used_as_data_or_observed) {
    EXPECT_NE(refusal(one_thread("spin_lock(s); r0 = READ_ONCE(*s);")).find("mixed-lock"),
              std::string::npos);
    EXPECT_NE(
        refusal(one_thread("spin_lock(s); spin_unlock(s);", "exists (s=0)")).find("lock-final"),
        std::string::npos);
    EXPECT_EQ(refusal(one_thread("spin_lock(s); spin_unlock(s);")), "");
}

TEST(lkmm_oracle_refuses, rcu_in_the_front_end) {
    EXPECT_THROW(litmus::parse_test("t.litmus", one_thread("rcu_read_lock(); rcu_read_unlock();")),
                 litmus::litmus_error);
}

const char* const lb_data = R"(C lb-data
{}
P0(int *x, int *y)
{
	int r0;
	r0 = LOAD;
	STORE(y, r0);
}
P1(int *x, int *y)
{
	int r1;
	r1 = READ_ONCE(*y);
	WRITE_ONCE(*x, r1);
}
exists (0:r0=0 /\ 1:r1=0)
)";

std::string lb_with(const std::string& load, const std::string& store) {
    std::string s = lb_data;
    s.replace(s.find("LOAD"), 4, load);
    s.replace(s.find("STORE(y, r0)"), 12, store);
    return s;
}

TEST(lkmm_oracle_refuses, values_out_of_thin_air) {
    // Plain accesses let P0's value come from P1's, which came from P0's: herd7 prints a
    // symbolic value for that execution.
    EXPECT_NE(refusal(lb_with("*x", "*y = r0")).find("out of thin air"), std::string::npos);
    // The twin: with marked accesses happens-before forbids the cycle.
    EXPECT_EQ(refusal(lb_with("READ_ONCE(*x)", "WRITE_ONCE(*y, r0)")), "");
}

TEST(lkmm_oracle_refuses, a_search_over_its_limit) {
    oracle_options o;
    o.max_candidates = 2;
    const litmus::test t = parse_file(std::string(LKMM_CORPUS) + "/sb.litmus");
    EXPECT_THROW(run_oracle(t, o), litmus::litmus_error);
    o.max_candidates = 1000;  // the twin: enough for its candidates
    EXPECT_EQ(run_oracle(t, o).executions.size(), 4u);
}

}  // namespace
}  // namespace kverify::lkmm_oracle
