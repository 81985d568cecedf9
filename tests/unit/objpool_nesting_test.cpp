// SPDX-License-Identifier: GPL-2.0-only
// objpool on real_env, one thread, with deterministic interrupt nesting: the test Env
// (objpool_test_env.hpp) raises an NMI or IRQ on this thread at one chosen access to an entry,
// which shows a finding in every kernel version (an NMI push inside a push), checks our repair
// fix-nested-push against its known-bad twins, and catches the mutants a single thread can catch.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "impl/objpool.hpp"
#include "tests/common/gtest_variants.hpp"
#include "tests/unit/objpool_test_env.hpp"

namespace kverify {
namespace {

using E = test_env;

// ----- deterministic interrupt nesting on one thread -----

template <class Pool>
struct nest_ctx {
    Pool* pool = nullptr;
    void* push_obj = nullptr;  // what the interrupt pushes, if anything
    bool pop_first = false;    // pop, then push what it popped
    void* popped = nullptr;
    int runs = 0;
};

template <class Pool>
void nested_handler(unsigned, void* arg) {
    auto* c = static_cast<nest_ctx<Pool>*>(arg);
    c->runs++;
    if (c->pop_first) {
        c->popped = c->pool->pop();
        if (c->popped != nullptr) c->pool->push(c->popped);
        return;
    }
    if (c->push_obj != nullptr) c->pool->push(c->push_obj);
    c->popped = c->pool->pop();
}

void nmi_on_cpu0() { E::raise_nmi(0); }
void irq_on_cpu0() { E::raise_irq(0); }

class handlers_scope {
public:
    ~handlers_scope() {
        E::set_irq_handler(0, nullptr, nullptr);
        E::set_nmi_handler(0, nullptr, nullptr);
        E::reset();
    }
};

// The scenario: one CPU, two objects o0 and o1, both popped (head == last == tail == 2). The
// outer push of o1 reserves sequence 2; an interrupt lands before it writes the entry, pushes
// o0 (sequence 3, last = 4) and pops. Result reported for the checks.
struct nested_push_result {
    void* o0;
    void* o1;
    void* interrupt_popped;
    int interrupt_runs;
    objpool<E, objpool_v6_15>::slot_snapshot after;
};

template <class V>
nested_push_result run_nested_push(void (*raise)(), bool as_nmi, objpool<E, V>& p) {
    using pool_t = objpool<E, V>;
    nest_ctx<pool_t> ctx;
    ctx.pool = &p;
    if (as_nmi)
        E::set_nmi_handler(0, nested_handler<pool_t>, &ctx);
    else
        E::set_irq_handler(0, nested_handler<pool_t>, &ctx);
    void* o0 = p.pop();
    void* o1 = p.pop();
    ctx.push_obj = o0;
    E::arm(E::hook_point::entry_write, raise);
    p.push(o1);
    const auto s = p.slot_state(0);
    return {o0, o1, ctx.popped, ctx.runs, {s.head, s.tail, s.last}};
}

// The good variants that keep the kernel's commit (every kernel version, fix-acquire-last):
// the ones F2 and F4 apply to. fix-nested-push has tests of its own below.
template <class V>
struct keeps_kernel_commit
    : std::bool_constant<V::push_commit == objpool_commit::reservation && !V::push_warn_reserved> {
};
using kernel_commit_variants = variant_filter_t<keeps_kernel_commit, objpool_good_variants>;
static_assert(kernel_commit_variants::size + 2 == objpool_good_variants::size,
              "only fix-nested-push and refresh-acquire (built on it) change the commit");

template <class V>
class ObjpoolFinding : public ::testing::Test {};
TYPED_TEST_SUITE(ObjpoolFinding, gtest_types<kernel_commit_variants>, variant_names);

// FINDING (every kernel version, and our fix-acquire-last): push commits with
// store_release(last, tail + 1), which assumes pushes on one CPU complete in reservation order.
// An NMI push nested between an outer push's reservation and its entry write breaks that: the
// NMI's commit publishes the outer's unwritten entry (a popper gets a stale object that is also
// in the ring: a duplicate), and the outer commit then moves `last` backwards below `tail`
// (the NMI's object is hidden and a published position is skipped: a lost object). This test
// pins the observed behaviour; it fails once push tolerates nested commits.
TYPED_TEST(ObjpoolFinding, NmiPushNestedInPushDuplicatesAndLosesObjects) {
    handlers_scope h;
    E::reset();
    machine_scope m(cpumask(0b1));
    E::cpu_scope cpu(0);
    objpool<E, TypeParam> p;
    ASSERT_EQ(p.init(2, 8, nullptr, nullptr, nullptr), 0);
    const auto r = run_nested_push(nmi_on_cpu0, true, p);
    ASSERT_EQ(r.interrupt_runs, 1) << "the NMI did not land inside the push";
    // The NMI popped sequence 2, whose entry the outer push had not written: the stale o0 from
    // init, which the NMI itself had just published at sequence 3.
    EXPECT_EQ(r.interrupt_popped, r.o0);
    EXPECT_EQ(r.after.head, 3u);
    EXPECT_EQ(r.after.tail, 4u);
    EXPECT_EQ(r.after.last, 3u) << "last moved backwards from 4 to 3";
    // o1 was pushed and never popped, yet the pool looks empty.
    EXPECT_EQ(p.pop(), nullptr);
    // The NMI's holder returns o0: now o0 is published twice and o1 is gone for good.
    p.push(r.o0);
    EXPECT_EQ(p.pop(), r.o0);
    EXPECT_EQ(p.pop(), r.o0) << "o0 handed out twice";
    EXPECT_EQ(p.pop(), nullptr);
    p.free();
}

// The IRQ twin is harmless for every good variant: push runs with irqs off, so the IRQ is
// deferred to the irq_restore at the end of the push and its push/pop run after the commit.
TYPED_TEST(ObjpoolFinding, IrqInsidePushIsDeferredSoNothingBreaks) {
    handlers_scope h;
    E::reset();
    machine_scope m(cpumask(0b1));
    E::cpu_scope cpu(0);
    objpool<E, TypeParam> p;
    ASSERT_EQ(p.init(2, 8, nullptr, nullptr, nullptr), 0);
    const auto r = run_nested_push(irq_on_cpu0, false, p);
    ASSERT_EQ(r.interrupt_runs, 1);
    EXPECT_EQ(r.interrupt_popped, r.o1) << "the IRQ ran after the commit and got the oldest entry";
    EXPECT_EQ(r.after.head, 3u);
    EXPECT_EQ(r.after.tail, 4u);
    EXPECT_EQ(r.after.last, 4u);
    EXPECT_EQ(p.pop(), r.o0);
    EXPECT_EQ(p.pop(), nullptr);
    p.push(r.o0);
    p.push(r.o1);
    p.fini();
    EXPECT_EQ(E::live_allocs, 0);
}

// FINDING F4 (every kernel version): push reads tail once before its reservation loop and
// checks tail - head > nr_objs against each head it reads. An NMI push between the read of tail
// and the read of head, then a pop on another CPU, put head past that stale tail: the unsigned
// difference wraps and the warning fires in a sound pool (a panic under panic_on_warn). Here:
// CPU 0 pops o0 and pushes it back; at push's read of head an NMI on CPU 0 pops o1 from CPU 1's
// slot and pushes it into CPU 0's, and then CPU 1 pops it from there.
template <class V>
struct f4_ctx {
    static inline objpool<E, V>* pool = nullptr;
    static inline void* remote_popped = nullptr;
    static void nmi(unsigned, void*) {
        void* o = pool->pop();
        if (o != nullptr) pool->push(o);
    }
    static void nmi_then_remote_pop() {
        E::raise_nmi(0);  // delivered to this thread before raise_nmi returns
        std::thread cpu1([] {
            E::cpu_scope c(1);
            remote_popped = pool->pop();
        });
        cpu1.join();
    }
};

template <class V>
std::uint64_t warnings_with_nmi_push_at(E::hook_point where, int skip_seq_reads,
                                        void** remote_popped) {
    using ctx = f4_ctx<V>;
    E::reset_stats();
    objpool<E, V> p;
    EXPECT_EQ(p.init(2, 8, nullptr, nullptr, nullptr), 0);
    ctx::pool = &p;
    ctx::remote_popped = nullptr;
    E::set_nmi_handler(0, ctx::nmi, nullptr);
    void* o0 = p.pop();
    EXPECT_EQ(o0, p.object_at(0, 0));
    E::arm(where, ctx::nmi_then_remote_pop, skip_seq_reads);
    p.push(o0);
    EXPECT_EQ(E::armed, E::hook_point::none) << "the NMI was not raised inside the push";
    E::set_nmi_handler(0, nullptr, nullptr);
    *remote_popped = ctx::remote_popped;
    const std::uint64_t warnings = E::stats().warnings;
    // Every object is accounted for: one held by the test (if CPU 1 got it), the rest pooled.
    int pooled = 0;
    while (void* o = p.pop()) {
        EXPECT_NE(o, *remote_popped);
        ++pooled;
    }
    EXPECT_EQ(pooled + (*remote_popped != nullptr ? 1 : 0), 2) << "an object was lost";
    p.free();
    E::reset_stats();
    return warnings;
}

TYPED_TEST(ObjpoolFinding, NmiPushBeforeTheHeadReadFiresTheWarning) {
    handlers_scope h;
    E::reset();
    machine_scope m(cpumask(0b11));
    E::cpu_scope cpu(0);
    void* remote = nullptr;
    // Sequence reads in push: tail, then head (the hook fires just before reading head).
    EXPECT_EQ(warnings_with_nmi_push_at<TypeParam>(E::hook_point::seq_read, 1, &remote), 1u)
        << "expected the spurious warning";
    EXPECT_NE(remote, nullptr) << "CPU 1 should have popped the NMI's object from CPU 0's slot";
}

// ----- fix-nested-push: our repair of F2 and F4, and its known-bad twins -----

// One CPU (this thread), handlers and hooks reset at the end.
class ObjpoolNestedPush : public ::testing::Test {
protected:
    ObjpoolNestedPush() {
        E::reset();
        E::reset_stats();
    }
    handlers_scope handlers_;
    machine_scope machine_{cpumask(0b1)};
    E::cpu_scope cpu_{0};
};

// The F2 scenario of run_nested_push: the NMI lands before the outer push writes its entry.
// The NMI's push finds an older open reservation (last != its sequence) and does not commit;
// the outer push, the oldest, publishes both entries.
TEST_F(ObjpoolNestedPush, RepairPublishesANestedPushWithTheOuterOne) {
    objpool<E, objpool_fix_nested_push> p;
    ASSERT_EQ(p.init(2, 8, nullptr, nullptr, nullptr), 0);
    const auto r = run_nested_push(nmi_on_cpu0, true, p);
    ASSERT_EQ(r.interrupt_runs, 1) << "the NMI did not land inside the push";
    EXPECT_EQ(r.interrupt_popped, nullptr) << "nothing was published while the NMI ran";
    EXPECT_EQ(r.after.head, 2u);
    EXPECT_EQ(r.after.tail, 4u);
    EXPECT_EQ(r.after.last, 4u) << "the outer push publishes the NMI's entry too";
    EXPECT_EQ(p.pop(), r.o1);
    EXPECT_EQ(p.pop(), r.o0);
    EXPECT_EQ(p.pop(), nullptr);
    p.push(r.o0);
    p.push(r.o1);
    p.fini();
    EXPECT_EQ(E::live_allocs, 0);
    EXPECT_EQ(E::stats().warnings, 0u);
}

// Twin: without the outermost test, the NMI's commit publishes the outer push's unwritten entry
// and the NMI pops the stale o0 that the ring still holds there: o0 is out twice.
TEST_F(ObjpoolNestedPush, NotOutermostTwinPublishesTheUnwrittenEntry) {
    objpool<E, objpool_mut_nested_not_outermost> bad;
    ASSERT_EQ(bad.init(2, 8, nullptr, nullptr, nullptr), 0);
    const auto r = run_nested_push(nmi_on_cpu0, true, bad);
    ASSERT_EQ(r.interrupt_runs, 1);
    EXPECT_EQ(r.interrupt_popped, r.o0) << "mutant not caught: the NMI should pop a stale o0";
    EXPECT_EQ(bad.pop(), r.o0) << "o0 handed out twice";
    bad.free();
    E::reset_stats();
}

// Twin: without the re-read of tail, the outer push publishes only its own entry; the NMI's
// stays in [last, tail) and o0 is lost.
TEST_F(ObjpoolNestedPush, NoRecheckTwinLeavesTheNestedEntryUnpublished) {
    objpool<E, objpool_mut_nested_no_recheck> bad;
    ASSERT_EQ(bad.init(2, 8, nullptr, nullptr, nullptr), 0);
    const auto r = run_nested_push(nmi_on_cpu0, true, bad);
    ASSERT_EQ(r.interrupt_runs, 1);
    EXPECT_EQ(r.after.last, 3u);
    EXPECT_EQ(r.after.tail, 4u) << "mutant not caught: the NMI's entry should stay unpublished";
    EXPECT_EQ(bad.pop(), r.o1);
    EXPECT_EQ(bad.pop(), nullptr) << "o0 should be lost";
    bad.free();
    E::reset_stats();
}

// An NMI push during the outer push's commit loop, just after it stored `last`: `last` equals
// the NMI's sequence, so the NMI commits itself; the outer push then finds tail moved and stores
// the same value again. `last` never moves backwards.
TEST_F(ObjpoolNestedPush, RepairLetsAnNmiAfterTheOuterCommitCommitItself) {
    using pool_t = objpool<E, objpool_fix_nested_push>;
    pool_t p;
    ASSERT_EQ(p.init(2, 8, nullptr, nullptr, nullptr), 0);
    nest_ctx<pool_t> ctx;
    ctx.pool = &p;
    E::set_nmi_handler(0, nested_handler<pool_t>, &ctx);
    void* o0 = p.pop();
    void* o1 = p.pop();
    ctx.push_obj = o0;
    E::arm(E::hook_point::after_commit, nmi_on_cpu0);
    p.push(o1);  // commits last = 3; the NMI pushes o0 (last = 4) and pops o1
    ASSERT_EQ(ctx.runs, 1);
    EXPECT_EQ(ctx.popped, o1) << "the outer push had published o1 before the NMI";
    const auto s = p.slot_state(0);
    EXPECT_EQ(s.head, 3u);
    EXPECT_EQ(s.last, 4u);
    EXPECT_EQ(s.tail, 4u);
    EXPECT_EQ(p.pop(), o0);
    EXPECT_EQ(p.pop(), nullptr);
    p.push(o0);
    p.push(o1);
    p.fini();
    EXPECT_EQ(E::stats().warnings, 0u);
}

// F4 with the repair: an NMI push and a remote pop just before the reservation, or just after
// it (before the head read), never fire the warning, and nothing is lost.
TEST(ObjpoolNestedPushWarning, RepairChecksTheWarningOnlyOnceReserved) {
    handlers_scope h;
    E::reset();
    machine_scope m(cpumask(0b11));
    E::cpu_scope cpu(0);
    void* remote = nullptr;
    EXPECT_EQ(
        warnings_with_nmi_push_at<objpool_fix_nested_push>(E::hook_point::reserve, 0, &remote), 0u);
    EXPECT_NE(remote, nullptr) << "the NMI's object should have been published and popped";
    EXPECT_EQ(
        warnings_with_nmi_push_at<objpool_fix_nested_push>(E::hook_point::seq_read, 1, &remote),
        0u);
    EXPECT_EQ(remote, nullptr) << "the NMI's push nested in the reservation: not yet published";
    // Its twin keeps the kernel's warning and fires like the kernel versions.
    EXPECT_EQ(warnings_with_nmi_push_at<objpool_mut_nested_warn_in_loop>(E::hook_point::seq_read, 1,
                                                                         &remote),
              1u)
        << "mutant not caught";
}

// ----- mutants a single thread with interrupts can catch, each with its good twin -----

TEST(ObjpoolMutantTwin, PushWithIrqsOnNestsAnIrqPushAndBreaksTheSlot) {
    handlers_scope h;
    machine_scope m(cpumask(0b1));
    E::cpu_scope cpu(0);
    objpool<E, objpool_mut_push_irqs_on> bad;
    ASSERT_EQ(bad.init(2, 8, nullptr, nullptr, nullptr), 0);
    const auto r = run_nested_push(irq_on_cpu0, false, bad);
    ASSERT_EQ(r.interrupt_runs, 1);
    EXPECT_EQ(r.interrupt_popped, r.o0) << "mutant not caught: the IRQ saw a consistent slot";
    EXPECT_EQ(r.after.last, 3u);
    EXPECT_LT(r.after.last, r.after.tail);
    bad.free();
    // The twin (v6.15) is the IrqInsidePushIsDeferredSoNothingBreaks test above.
}

template <class V>
void* nmi_pop_inside_push(objpool<E, V>& p, void** held) {
    using pool_t = objpool<E, V>;
    nest_ctx<pool_t> ctx;
    ctx.pool = &p;
    E::set_nmi_handler(0, nested_handler<pool_t>, &ctx);
    held[0] = p.pop();
    held[1] = p.pop();
    E::arm(E::hook_point::entry_write, nmi_on_cpu0);
    p.push(held[1]);  // the NMI pops while this push is between its commit and entry write
    E::set_nmi_handler(0, nullptr, nullptr);
    return ctx.popped;
}

TEST(ObjpoolMutantTwin, PublishBeforeEntryHandsOutAStaleEntry) {
    handlers_scope h;
    machine_scope m(cpumask(0b1));
    E::cpu_scope cpu(0);
    void* held[2];
    {
        objpool<E, objpool_v6_15> good;
        ASSERT_EQ(good.init(2, 8, nullptr, nullptr, nullptr), 0);
        EXPECT_EQ(nmi_pop_inside_push(good, held), nullptr)
            << "v6.15 published the entry before writing it";
        good.push(held[0]);
        good.fini();
    }
    objpool<E, objpool_mut_publish_before_entry> bad;
    ASSERT_EQ(bad.init(2, 8, nullptr, nullptr, nullptr), 0);
    void* got = nmi_pop_inside_push(bad, held);
    EXPECT_EQ(got, held[0]) << "mutant not caught: the NMI should get o0, which the test holds";
    bad.free();
}

template <class V>
std::pair<void*, void*> pop_with_nmi_refill(objpool<E, V>& p) {
    using pool_t = objpool<E, V>;
    nest_ctx<pool_t> ctx;
    ctx.pool = &p;
    ctx.pop_first = true;  // the NMI pops one object and pushes it back (a kretprobe in NMI)
    E::set_nmi_handler(0, nested_handler<pool_t>, &ctx);
    E::arm(E::hook_point::entry_read, nmi_on_cpu0);
    void* first = p.pop();
    E::set_nmi_handler(0, nullptr, nullptr);
    return {first, p.pop()};
}

TEST(ObjpoolMutantTwin, EntryReadAfterHeadMovesReturnsARefilledEntry) {
    handlers_scope h;
    machine_scope m(cpumask(0b1));
    E::cpu_scope cpu(0);
    {
        objpool<E, objpool_v6_15> good;
        ASSERT_EQ(good.init(2, 8, nullptr, nullptr, nullptr), 0);
        const auto [a, b] = pop_with_nmi_refill(good);
        EXPECT_NE(a, b) << "v6.15 handed out one object twice";
        EXPECT_EQ(a, good.object_at(0, 1));
        EXPECT_EQ(b, good.object_at(0, 0));
        good.push(a);
        good.push(b);
        good.fini();
    }
    objpool<E, objpool_mut_pop_entry_after_head> bad;
    ASSERT_EQ(bad.init(2, 8, nullptr, nullptr, nullptr), 0);
    const auto [a, b] = pop_with_nmi_refill(bad);
    EXPECT_EQ(a, b) << "mutant not caught: its pop should return the object the NMI refilled";
    bad.free();
}

template <class V>
std::set<void*> drift_everything_to_cpu0(objpool<E, V>& p) {
    std::vector<void*> objs;
    while (void* o = p.pop()) objs.push_back(o);
    for (void* o : objs) p.push(o);
    std::set<void*> back;
    for (std::size_t i = 0; i < objs.size(); i++) back.insert(p.pop());
    return back;
}

TEST(ObjpoolMutantTwin, SmallCapacityOverflowsWhenObjectsDrift) {
    E::reset();
    machine_scope m(cpumask(0b11));
    E::cpu_scope cpu(0);
    {
        objpool<E, objpool_v6_15> good;
        ASSERT_EQ(good.init(4, 8, nullptr, nullptr, nullptr), 0);
        const auto back = drift_everything_to_cpu0(good);
        EXPECT_EQ(back.size(), 4u);
        EXPECT_EQ(back.count(nullptr), 0u);
        for (void* o : back) good.push(o);
        good.fini();
    }
    objpool<E, objpool_mut_small_capacity> bad;
    ASSERT_EQ(bad.init(4, 8, nullptr, nullptr, nullptr), 0);
    EXPECT_EQ(bad.capacity(), 2u);
    EXPECT_LT(drift_everything_to_cpu0(bad).size(), 4u)
        << "mutant not caught: four objects came back from a ring of two";
    bad.free();
    EXPECT_EQ(E::live_allocs, 0);
    E::reset_stats();  // the mutant warns about tail - head; that is expected here
}

template <class V>
std::pair<unsigned, unsigned> push_lands_where(objpool<E, V>& p) {
    void* o = p.pop();  // from CPU 0's own slot
    const auto before0 = p.slot_state(0), before1 = p.slot_state(1);
    p.push(o);
    const auto after0 = p.slot_state(0), after1 = p.slot_state(1);
    return {after0.last - before0.last, after1.last - before1.last};
}

TEST(ObjpoolMutantTwin, PushRemoteWritesAnotherCpusSlot) {
    E::reset();
    machine_scope m(cpumask(0b11));
    E::cpu_scope cpu(0);
    {
        objpool<E, objpool_local_cas> good;
        ASSERT_EQ(good.init(4, 8, nullptr, nullptr, nullptr), 0);
        EXPECT_EQ(push_lands_where(good), std::make_pair(1u, 0u));
        good.fini();
    }
    objpool<E, objpool_mut_push_remote> bad;
    ASSERT_EQ(bad.init(4, 8, nullptr, nullptr, nullptr), 0);
    EXPECT_EQ(push_lands_where(bad), std::make_pair(0u, 1u))
        << "mutant not caught: CPU 0's push should land in CPU 1's slot";
    bad.fini();
    EXPECT_EQ(E::live_allocs, 0);
}

TEST(ObjpoolVariants, ListsAreCompleteAndNamed) {
    std::vector<std::string> names;
    int bad = 0;
    for_each_objpool_variant([&](auto tag) {
        using V = typename decltype(tag)::type;
        names.push_back(V::name);
        bad += V::known_bad ? 1 : 0;
    });
    EXPECT_EQ(names.size(), objpool_all_variants::size);
    EXPECT_EQ(bad, static_cast<int>(objpool_bad_variants::size));
    for (const char* n : {"v6.7-rc1", "v6.7", "v6.10", "v6.15", "local-cas", "fix-acquire-last",
                          "fix-nested-push", "mut-publish-before-entry", "mut-push-remote"})
        EXPECT_NE(std::find(names.begin(), names.end(), n), names.end()) << n;
}

}  // namespace
}  // namespace kverify
