// SPDX-License-Identifier: GPL-2.0-only
// `kverify orders` and `kverify run --weaken` (issue 19): bad input, the weakened verdict named
// as such, and the evidence: orderings that published fixes added are reported needed, with the
// bug they fix, and one that is redundant by construction is reported not needed. Sites are
// found by their source text in impl/, so the tests follow impl/ when its lines move.
#include <fstream>
#include <tuple>

#include "cli_helpers.hpp"

namespace kverify_cli_test {
namespace {

// "impl/FILE:LINE" of the one line of impl/FILE that contains `text`.
std::string site_of(const std::string& file, const std::string& text) {
    std::ifstream in(std::string(KVERIFY_SOURCE_DIR) + "/" + file);
    std::string line, found;
    for (unsigned n = 1; std::getline(in, line); ++n)
        if (line.find(text) != std::string::npos) {
            EXPECT_TRUE(found.empty()) << text << " is on two lines of " << file;
            found = file + ":" + std::to_string(n);
        }
    EXPECT_FALSE(found.empty()) << text << " is not in " << file;
    return found;
}

std::string acquire_of_last() {
    return site_of("impl/objpool.hpp", "return Env::load_acquire(s.last);");
}
// The irq-save region of percpu_counter's decide-then-add (an irq_save_guard in the irqsave
// form, a preempt_guard in preempt-only): the v6.3 fix that made the add irq-safe.
std::string irqsave_of_add() { return site_of("impl/percpu_counter.hpp", "section pinned;"); }
// Negative control: the acquire of push's reservation cas on `tail`. Only the owner CPU ever
// touches a slot's tail (its pushes, and NMIs on that CPU, which run to completion before the
// code they interrupt goes on: program order, not another CPU); pop reads head, last and the
// entries, never tail, and nobody writes tail with a release. An acquire pairs only with a
// release it reads from, so this one orders nothing any other CPU can observe; what must stay
// after the reservation (the entry store) is published by the release of `last`. Redundant.
std::string acquire_of_tail() {
    return site_of("impl/objpool.hpp",
                   "return Env::try_cmpxchg_acquire(tail_seq, tail, tail + 1);");
}

// Pop's acquire of `head` and its release cas of `head` (v6.7's pop): a thief's read of the
// entry at `head` stays before the move of head that lets the owner write that position again.
std::string acquire_of_head() {
    return site_of("impl/objpool.hpp", "auto head = Env::load_acquire(s.head);");
}
std::string release_of_head() {
    return site_of("impl/objpool.hpp", "return Env::try_cmpxchg_release(s.head, head, head + 1);");
}
// sum()'s lock, taken with irqs off: "impl/FILE:LINE" of the line after `text`.
std::string irqsave_of_sum() {
    const std::string at = site_of("impl/percpu_counter.hpp", "s64 sum() const {");
    const std::size_t colon = at.rfind(':');
    return at.substr(0, colon + 1) + std::to_string(std::stoul(at.substr(colon + 1)) + 1);
}

// Runs orders on one site and returns its JSON, with the one weakening asserted present.
json orders_of(const std::string& dir, const std::string& target, const std::string& site) {
    const std::string out = dir + "/orders.json";
    const result r =
        kverify({"orders", target, "--site", site, "--json", out, "-j", "2", "--no-progress"});
    EXPECT_EQ(r.status, 0) << r.out << r.err;
    const json j = json::parse(slurp(out));
    EXPECT_EQ(j.at("kverify_orders"), 1);
    EXPECT_EQ(j.at("target"), target);
    return j;
}

using orders = cli;

TEST_F(orders, bad_input_is_one_line_and_exit_2) {
    const std::string c = "objpool/fix-acquire-last/c2-o1";
    const std::vector<bad_input> cases = {
        {{"run", c, "--engine", "dpor-rc11", "--weaken", "impl/objpool.hpp:718"}, "is not"},
        {{"run", c, "--engine", "dpor-rc11", "--weaken", "objpool.hpp:718=READ_ONCE"},
         "a file of impl/"},
        {{"run", c, "--engine", "dpor-rc11", "--weaken", "impl/objpool.hpp:x=READ_ONCE"},
         "FILE:LINE"},
        {{"run", c, "--engine", "dpor-rc11", "--weaken", acquire_of_last() + "=sloppy"},
         "unknown form 'sloppy'"},
        // Line 1 holds the SPDX line: no primitive there, so nothing was weakened.
        {{"run", c, "--engine", "dpor-rc11", "--weaken", "impl/objpool.hpp:1=READ_ONCE"},
         "reached no primitive at impl/objpool.hpp:1"},
        // The acquire of `last` has no try_cmpxchg_relaxed step.
        {{"run", c, "--engine", "dpor-rc11", "--weaken",
          acquire_of_last() + "=try_cmpxchg_relaxed"},
         "that weakens to try_cmpxchg_relaxed"},
        // A replay file cannot carry the weakening: replayed, it would be the variant's.
        {{"run", c, "--engine", "dpor-rc11", "--weaken", acquire_of_last() + "=READ_ONCE",
          "--save-replay", "/tmp/kverify-weakened.replay"},
         "--save-replay cannot be used with --weaken"},
        {{"orders", "objpool"}, "only with --list"},
        {{"orders", "objpool/no-such-variant"}, "no quick rows of objpool/no-such-variant"},
        {{"orders", "objpool/v6.7/c2-o1"}, "is not ALGORITHM or ALGORITHM/VARIANT"},
        {{"orders", "percpu_counter/mut-fold-gt", "--strengthen", "--site",
          "impl/percpu_counter.hpp:1"},
         "no ordering site impl/percpu_counter.hpp:1 is reached"},
    };
    for (const bad_input& b : cases) {
        SCOPED_TRACE(b.args.back());
        expect_usage_error(kverify(b.args), b.message);
    }
}

// The twin pair: the same check passes unweakened and finds the C11 data race of F1 with the
// acquire of `last` weakened; the verdict line says it is the weakened program's.
TEST_F(orders, weakened_run_names_itself_and_its_twin_passes) {
    const std::string c = "objpool/fix-acquire-last/c2-o1";
    const result plain = kverify({"run", c, "--engine", "dpor-rc11", "--no-progress"});
    EXPECT_EQ(plain.status, 0) << plain.out << plain.err;
    EXPECT_NE(plain.out.find("verdict: pass  "), std::string::npos) << plain.out;
    EXPECT_EQ(plain.out.find("WEAKENED"), std::string::npos) << plain.out;

    const std::string w = acquire_of_last() + "=READ_ONCE";
    const result weak =
        kverify({"run", c, "--engine", "dpor-rc11", "--weaken", w, "--no-progress"});
    EXPECT_EQ(weak.status, 1) << weak.out << weak.err;
    EXPECT_NE(
        weak.out.find("verdict: data-race (WEAKENED: " + w + " [smp_load_acquire -> READ_ONCE])"),
        std::string::npos)
        << weak.out;
}

// The smallest configuration's finding of `w` and each violation class's, "class config models".
std::vector<std::string> findings_of(const json& w) {
    std::vector<std::string> out;
    for (const json& v : w.at("violations")) {
        std::string models;
        for (const json& m : v.at("models"))
            models += (models.empty() ? "" : ",") + m.get<std::string>();
        out.push_back(v.at("violation").get<std::string>() + " " +
                      v.at("configuration").get<std::string>() + " " + models);
    }
    return out;
}

// fix-acquire-last's one change: pop reads `last` with smp_load_acquire. Weakened back to the
// kernel's READ_ONCE it is v6.15 again, and finds what proofs/objpool.md F1 says of v6.7: the
// object's contents handed over without happens-before (a data race, on every model, since a
// race is judged by happens-before), and, by weak memory only (never under SC), the stale entry
// behind a new `last`: a lost object and one popped twice.
TEST_F(orders, fix_acquire_last_acquire_is_needed) {
    const std::string site = acquire_of_last();
    const json j = orders_of(dir_, "objpool/fix-acquire-last", site);
    ASSERT_EQ(j.at("weakenings").size(), 1u) << j.dump(2);
    const json& w = j.at("weakenings")[0];
    EXPECT_EQ(w.at("site"), site);
    EXPECT_EQ(w.at("primitive"), "smp_load_acquire");
    EXPECT_EQ(w.at("form"), "READ_ONCE");
    EXPECT_EQ(w.at("function"), "read_last");
    ASSERT_EQ(w.at("result"), "needed") << w.dump(2);
    EXPECT_EQ(w.at("violation"), "data-race") << w.dump(2);
    EXPECT_EQ(w.at("configuration"), "c2-o1") << w.dump(2);
    EXPECT_EQ(w.at("command"),
              "./kverify run objpool/fix-acquire-last/c2-o1 --engine dpor-sc "
              "--search exhaustive --weaken " +
                  site + "=READ_ONCE");
    EXPECT_EQ(findings_of(w),
              (std::vector<std::string>{"data-race c2-o1 SC,RC11,LKMM", "loss c2-o1-np RC11,LKMM",
                                        "duplicate c2-o2-r2-irq-np RC11"}))
        << w.dump(2);
}

// percpu_counter irqsave (v6.3): the whole decide-then-add with irqs off. With only preemption
// off, an interrupt's add between the read and the add breaks the batch bound, the bug v6.3
// fixed, on every memory model (an interleaving bug). The smallest configuration shows a
// consequence first: the fold then takes the lock with spin_lock, "irqs are already off", and
// an interrupt that folds on the same CPU spins on it for ever.
TEST_F(orders, percpu_counter_irqsave_of_add_is_needed) {
    const std::string site = irqsave_of_add();
    const json j = orders_of(dir_, "percpu_counter/irqsave", site);
    ASSERT_EQ(j.at("weakenings").size(), 1u) << j.dump(2);
    const json& w = j.at("weakenings")[0];
    EXPECT_EQ(w.at("primitive"), "local_irq_save");
    EXPECT_EQ(w.at("form"), "preempt_disable");
    EXPECT_EQ(w.at("function"), "add_batch_decide_then_add");
    ASSERT_EQ(w.at("result"), "needed") << w.dump(2);
    EXPECT_EQ(findings_of(w), (std::vector<std::string>{
                                  "self-deadlock irq SC,RC11,LKMM", "lost-update smp3-irq SC,RC11",
                                  "batch-bound s32-max-batch-irq SC,RC11,LKMM"}))
        << w.dump(2);
}

// The negative control (acquire_of_tail): reported not needed, with what was checked.
TEST_F(orders, owner_only_tail_acquire_is_not_needed) {
    const std::string site = acquire_of_tail();
    const json j = orders_of(dir_, "objpool/fix-acquire-last", site);
    ASSERT_EQ(j.at("weakenings").size(), 1u) << j.dump(2);
    const json& w = j.at("weakenings")[0];
    EXPECT_EQ(w.at("primitive"), "try_cmpxchg_acquire");
    EXPECT_EQ(w.at("form"), "try_cmpxchg_relaxed");
    EXPECT_EQ(w.at("result"), "not needed") << w.dump(2);
    EXPECT_EQ(w.at("checked").at("models"), "SC, RC11, LKMM") << w.dump(2);
    // Every configuration that pushes reaches it: the NMI ones too, where an NMI's push lands
    // between the task's reservation and its commit.
    const json& configs = w.at("checked").at("configurations");
    EXPECT_NE(std::find(configs.begin(), configs.end(), "c2-o2-nmi"), configs.end()) << w.dump(2);
    EXPECT_NE(std::find(configs.begin(), configs.end(), "c2-o2-irq"), configs.end()) << w.dump(2);
}

// head's release: "not needed" in every configuration of the ladder, under every model, until
// c3-o2-reuse (tests/model/objpool/objpool_reuse.cpp), where the owner writes a ring position
// again while a thief may still read it. Weakened, the thief's read may take the entry written
// later (load buffering): a duplicate, under the LKMM only, as proofs/objpool.md explains; RC11
// and SC forbid the cycle. The unweakened rows pass (verdicts.tsv).
TEST_F(orders, head_release_is_needed_where_a_ring_position_is_reused) {
    const std::string site = release_of_head();
    const json j = orders_of(dir_, "objpool/fix-acquire-last", site);
    ASSERT_EQ(j.at("weakenings").size(), 1u) << j.dump(2);
    const json& w = j.at("weakenings")[0];
    EXPECT_EQ(w.at("primitive"), "try_cmpxchg_release");
    EXPECT_EQ(w.at("form"), "try_cmpxchg_relaxed");
    ASSERT_EQ(w.at("result"), "needed") << w.dump(2);
    EXPECT_EQ(findings_of(w), (std::vector<std::string>{"duplicate c3-o2-reuse LKMM"}))
        << w.dump(2);
    EXPECT_EQ(w.at("command"),
              "./kverify run objpool/fix-acquire-last/c3-o2-reuse --engine "
              "dpor-lkmm --search exhaustive --weaken " +
                  site + "=try_cmpxchg_relaxed");
}

// head's acquire: the owner's half of the same cycle, which c3-o2-reuse reaches (checked there
// on the LKMM), and "not needed": the refill writes back the object the owner's pop read at an
// index computed from head, so an address and a data dependency order the refill after the
// read of head as the acquire would (pop hands its value to the caller, impl/objpool.hpp).
// Needed only by a caller whose refill does not depend on its pop (proofs/objpool.md).
TEST_F(orders, head_acquire_is_not_needed_where_the_refill_depends_on_the_pop) {
    const std::string site = acquire_of_head();
    const json j = orders_of(dir_, "objpool/fix-acquire-last", site);
    ASSERT_EQ(j.at("weakenings").size(), 1u) << j.dump(2);
    const json& w = j.at("weakenings")[0];
    EXPECT_EQ(w.at("primitive"), "smp_load_acquire");
    EXPECT_EQ(w.at("form"), "READ_ONCE");
    ASSERT_EQ(w.at("result"), "not needed") << w.dump(2);
    EXPECT_EQ(w.at("checked").at("models"), "SC, RC11, LKMM") << w.dump(2);
    const json& configs = w.at("checked").at("configurations");
    EXPECT_NE(std::find(configs.begin(), configs.end(), "c3-o2-reuse"), configs.end()) << w.dump(2);
}

// sum()'s irq-save: needed where an IRQ that folds lands on the CPU inside sum() (irq-sum,
// tests/model/percpu_counter/percpu_counter_orders.cpp): with spin_lock alone the IRQ spins
// on the lock its own CPU holds. An interleaving bug: every model. No other configuration has
// an IRQ on a summing CPU, so before irq-sum the step was "not needed".
TEST_F(orders, percpu_counter_irqsave_of_sum_is_needed_where_an_irq_folds_during_it) {
    const std::string site = irqsave_of_sum();
    const json j = orders_of(dir_, "percpu_counter/irqsave", site);
    ASSERT_EQ(j.at("weakenings").size(), 1u) << j.dump(2);
    const json& w = j.at("weakenings")[0];
    EXPECT_EQ(w.at("primitive"), "spin_lock_irqsave");
    EXPECT_EQ(w.at("form"), "spin_lock");
    EXPECT_EQ(w.at("function"), "sum");
    ASSERT_EQ(w.at("result"), "needed") << w.dump(2);
    EXPECT_EQ(findings_of(w), (std::vector<std::string>{"self-deadlock irq-sum SC,RC11,LKMM"}))
        << w.dump(2);
}

// fix-limited-add's precise step: the smp_mb after the odd limited_seq pairs with the shortcut's
// smp_mb (store buffering). Without it the LKMM allows the overshoot, as RC11 does
// (proofs/lkmm/percpu_counter-limited-seq-no-precise-mb.litmus). The online mask read between the
// two must not stand in for it: a mask read is an acquire read under the LKMM, not a full barrier
// (model/kernel/MAPPING.md, note 9); as a seq_cst word it hid this barrier. Its twin: unweakened,
// the row passes on the LKMM.
TEST_F(orders, precise_step_mb_of_fix_limited_add_is_needed_under_the_lkmm) {
    const std::string c = "percpu_counter/fix-limited-add/smp-race";
    // The line after the comment that ends "... between its add and its re-check." (the
    // shortcut's smp_mb is the same line of code).
    const std::string at = site_of("impl/percpu_counter.hpp",
                                   "smp_mb in the shortcut between its add and its re-check");
    const std::size_t colon = at.rfind(':');
    const std::string site =
        at.substr(0, colon + 1) + std::to_string(std::stoul(at.substr(colon + 1)) + 1);
    const result plain = kverify({"run", c, "--engine", "dpor-lkmm", "--no-progress"});
    EXPECT_EQ(plain.status, 0) << plain.out << plain.err;
    const result weak =
        kverify({"run", c, "--engine", "dpor-lkmm", "--weaken", site + "=none", "--no-progress"});
    EXPECT_EQ(weak.status, 1) << weak.out << weak.err;
    EXPECT_NE(weak.out.find("verdict: limit-overshoot (WEAKENED: " + site), std::string::npos)
        << weak.out;
}

// Site discovery: the sites come from a run, with their functions and primitives.
TEST_F(orders, list_names_sites_by_line_function_and_primitive) {
    const result r = kverify({"orders", "percpu_counter/irqsave", "--list", "--no-progress"});
    EXPECT_EQ(r.status, 0) << r.err;
    std::istringstream lines(r.out);
    bool irqsave = false;
    for (std::string l; std::getline(lines, l);)
        if (l.rfind(irqsave_of_add() + " ", 0) == 0 &&
            l.find("local_irq_save") != std::string::npos &&
            l.find("preempt_disable") != std::string::npos)
            irqsave = true;
    EXPECT_TRUE(irqsave) << r.out;
    // irqsave never takes the local-cas path: its this_cpu_try_cmpxchg is not reached.
    EXPECT_EQ(r.out.find("this_cpu_try_cmpxchg"), std::string::npos) << r.out;
}

// ----- --strengthen: repairs of a failing variant -----

// Runs orders --strengthen and returns its JSON.
json strengthen(const std::string& dir, const std::string& target) {
    const std::string out = dir + "/strengthen.json";
    const result r =
        kverify({"orders", target, "--strengthen", "--json", out, "-j", "2", "--no-progress"});
    EXPECT_EQ(r.status, 0) << r.out << r.err;
    const json j = json::parse(slurp(out));
    EXPECT_EQ(j.at("mode"), "strengthen");
    EXPECT_EQ(j.at("target"), target);
    EXPECT_GT(j.at("failing").size(), 0u) << j.dump(2);
    return j;
}

// Each repair as "SITE=FORM[ + SITE=FORM] (PRIMITIVE...) FUNCTION... MODELS".
std::vector<std::string> repairs_of(const json& j) {
    std::vector<std::string> out;
    for (const json& c : j.at("repairs")) {
        EXPECT_EQ(c.at("result"), "repair");
        std::string s;
        for (const json& x : c.at("strengthenings"))
            s += (s.empty() ? "" : " + ") + x.at("site").get<std::string>() + "=" +
                 x.at("form").get<std::string>() + " (" + x.at("primitive").get<std::string>() +
                 " in " + x.at("function").get<std::string>() + ")";
        out.push_back(s + " " + c.at("verified").at("models").get<std::string>());
    }
    return out;
}

// preempt-only (before v6.3): the decide-then-add with only preemption off. Its one repair is
// v6.3's: that section with irqs off (the irqsave variant), and it holds on every row.
TEST_F(orders, strengthen_finds_the_v6_3_irq_save_as_preempt_only_repair) {
    const json j = strengthen(dir_, "percpu_counter/preempt-only");
    EXPECT_EQ(j.at("result"), "repaired");
    EXPECT_EQ(
        repairs_of(j),
        (std::vector<std::string>{irqsave_of_add() + "=local_irq_save (preempt_disable in "
                                                     "add_batch_decide_then_add) SC, RC11, LKMM"}))
        << j.dump(2);
}

// The RFC of the second seed: preempt_disable around a loop of the non-irq-safe
// __this_cpu_cmpxchg. Two single repairs: the merged version's irq-safe this_cpu_try_cmpxchg,
// or irqs off around the loop.
TEST_F(orders, strengthen_finds_both_repairs_of_the_percpu_counter_rfc) {
    const json j = strengthen(dir_, "percpu_counter/rfc");
    EXPECT_EQ(j.at("result"), "repaired");
    EXPECT_EQ(repairs_of(j),
              (std::vector<std::string>{
                  site_of("impl/percpu_counter.hpp",
                          "return Env::this_cpu_try_cmpxchg_nocheck(counters, old, nv);") +
                      "=this_cpu_try_cmpxchg (__this_cpu_cmpxchg in local_update) SC, RC11, LKMM",
                  site_of("impl/percpu_counter.hpp", "preempt_guard<Env> no_preempt;") +
                      "=local_irq_save (preempt_disable in add_batch) SC, RC11, LKMM"}))
        << j.dump(2);
}

// F1 put back into fix-nested-push (tests/model/objpool/objpool_reuse.cpp): the one repair is
// the acquire of `last`, fix-acquire-last's change, and with it every row passes again,
// c1-o2-nmi (the nested NMI push) included.
TEST_F(orders, strengthen_finds_the_acquire_of_last_as_the_repair_of_f1) {
    const json j = strengthen(dir_, "objpool/mut-nested-last-once");
    EXPECT_EQ(j.at("result"), "repaired");
    EXPECT_EQ(
        repairs_of(j),
        (std::vector<std::string>{site_of("impl/objpool.hpp", "return Env::read_once(s.last);") +
                                  "=smp_load_acquire (READ_ONCE in read_last) SC, RC11, "
                                  "LKMM"}))
        << j.dump(2);
    const json& configs = j.at("repairs")[0].at("verified").at("configurations");
    EXPECT_NE(std::find(configs.begin(), configs.end(), "c1-o2-nmi"), configs.end());
}

// The twins: bugs that are not orderings. mut-fold-drops-amount folds only the old delta (an
// arithmetic slip); mut-small-capacity sizes a ring for one CPU's share of the objects (a range
// bug). Every single strengthening and every pair of them still fails some row.
TEST_F(orders, strengthen_finds_no_repair_of_a_bug_that_is_no_ordering) {
    for (const char* target :
         {"percpu_counter/mut-fold-drops-amount", "objpool/mut-small-capacity"}) {
        SCOPED_TRACE(target);
        const json j = strengthen(dir_, target);
        EXPECT_EQ(j.at("result"), "no repair of one or two sites") << j.dump(2);
        EXPECT_TRUE(j.at("repairs").empty()) << j.dump(2);
        EXPECT_TRUE(j.at("inconclusive").empty()) << j.dump(2);
        EXPECT_GT(j.at("singles").get<std::size_t>(), 5u) << j.dump(2);
        EXPECT_GT(j.at("pairs").get<std::size_t>(), 20u) << j.dump(2);
    }
}

}  // namespace
}  // namespace kverify_cli_test
