// SPDX-License-Identifier: GPL-2.0-only
// objpool on real_env, one thread: the sequential contract (limits, allocation failure, objinit,
// distribution, capacity, FIFO per slot, pop order, lifecycle, 32-bit wrap-around), typed over
// the variants that must be correct. Interrupts nested at chosen points of one thread:
// objpool_nesting_test.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <set>
#include <thread>
#include <vector>

#include "impl/objpool.hpp"
#include "tests/common/gtest_variants.hpp"
#include "tests/unit/objpool_test_env.hpp"

namespace kverify {
namespace {

using E = test_env;

// Counts release callbacks; the context pointer tells which pool/test it came from.
struct release_log {
    int calls = 0;
    const void* pool = nullptr;
    void* context = nullptr;
};
release_log g_release;

template <class Pool>
int record_release(Pool* pool, void* context) {
    ++g_release.calls;
    g_release.pool = pool;
    g_release.context = context;
    return 0;
}

// Every variant that must be correct, plus v6.7-rc1: its bug needs the weak model, so a single
// thread must see the full contract from it too.
using sequential_variants =
    gtest_types<variant_concat_t<objpool_good_variants, objpool_variant_list<objpool_v6_7_rc1>>>;

template <class V>
class ObjpoolContract : public ::testing::Test {
protected:
    using pool_t = objpool<E, V>;

    void SetUp() override {
        E::reset();
        E::fail_kmalloc_after(-1);
        E::reset_stats();
        g_release = {};
    }
    void TearDown() override {
        E::fail_kmalloc_after(-1);
        E::configure(cpumask::first_n(4));
        EXPECT_EQ(E::live_allocs, 0) << "objpool leaked (or freed too much)";
        EXPECT_EQ(E::stats().warnings, 0u) << "objpool warned in normal use";
    }

    static int init(pool_t& p, int nr, int size = 16) {
        return p.init(nr, size, nullptr, &g_release, record_release<pool_t>);
    }
    static std::vector<void*> pop_all(pool_t& p) {
        std::vector<void*> v;
        while (void* o = p.pop()) v.push_back(o);
        return v;
    }
    static unsigned published(const pool_t& p, unsigned cpu) {
        const auto s = p.slot_state(cpu);
        return s.last - s.head;
    }
    static void expect_slot_consistent(const pool_t& p, unsigned cpu) {
        const auto s = p.slot_state(cpu);
        EXPECT_EQ(s.last, s.tail) << "cpu " << cpu << ": a reservation was never committed";
        EXPECT_LE(s.last - s.head, static_cast<std::uint32_t>(p.nr_objs())) << "cpu " << cpu;
    }
};
TYPED_TEST_SUITE(ObjpoolContract, sequential_variants, variant_names);

TYPED_TEST(ObjpoolContract, InitRejectsOutOfRangeSizesWithoutAllocating) {
    typename TestFixture::pool_t p;
    const int bad[][2] = {{0, 8}, {-1, 8}, {INT_MIN, 8},       {(1 << 24) + 1, 8}, {INT_MAX, 8},
                          {1, 0}, {1, -1}, {1, (1 << 16) + 1}, {1, INT_MIN},       {0, 0}};
    for (const auto& b : bad) {
        EXPECT_EQ(p.init(b[0], b[1], nullptr, nullptr, nullptr), err_inval)
            << "nr_objs " << b[0] << " object_size " << b[1];
    }
    EXPECT_EQ(E::total_allocs, 0) << "a rejected init allocated memory";
    EXPECT_FALSE(p.allocated());
}

TYPED_TEST(ObjpoolContract, InitAcceptsTheEdgesOfTheLimits) {
    E::cpu_scope cpu(0);
    for (int size : {1, 8, 1 << 16}) {
        typename TestFixture::pool_t p;
        ASSERT_EQ(this->init(p, 1, size), 0) << "object_size " << size;
        EXPECT_EQ(p.nr_objs(), 1);
        EXPECT_EQ(p.fini(), 0);
        EXPECT_EQ(g_release.calls, 1);
        g_release = {};
    }
}

TYPED_TEST(ObjpoolContract, ObjectSizeIsRoundedUpToLongAndObjectsAreThatFarApart) {
    E::cpu_scope cpu(0);
    machine_scope m(cpumask(0b1));
    const std::pair<int, std::size_t> cases[] = {
        {1, sizeof(long)}, {7, 8}, {8, 8}, {9, 16}, {17, 24}, {(1 << 16) - 1, 1 << 16}};
    for (const auto& c : cases) {
        typename TestFixture::pool_t p;
        ASSERT_EQ(this->init(p, 3, c.first), 0);
        EXPECT_EQ(p.obj_size(), c.second) << "object_size " << c.first;
        const auto objs = this->pop_all(p);
        ASSERT_EQ(objs.size(), 3u);
        for (std::size_t i = 1; i < objs.size(); i++) {
            EXPECT_EQ(static_cast<char*>(objs[i]) - static_cast<char*>(objs[i - 1]),
                      static_cast<std::ptrdiff_t>(c.second));
            EXPECT_EQ(reinterpret_cast<std::uintptr_t>(objs[i]) % alignof(long), 0u);
        }
        for (void* o : objs) p.push(o);
        p.fini();
    }
}

TYPED_TEST(ObjpoolContract, CapacityIsTheNextPowerOfTwo) {
    E::cpu_scope cpu(0);
    const std::pair<int, std::uint32_t> cases[] = {{1, 1},       {2, 2},      {3, 4},  {4, 4},
                                                   {5, 8},       {8, 8},      {9, 16}, {1000, 1024},
                                                   {1024, 1024}, {1025, 2048}};
    for (const auto& c : cases) {
        typename TestFixture::pool_t p;
        ASSERT_EQ(this->init(p, c.first), 0);
        EXPECT_EQ(p.capacity(), c.second) << "nr_objs " << c.first;
        p.fini();
    }
}

TYPED_TEST(ObjpoolContract, ObjectsAreSpreadOverPossibleCpusSkippingHoles) {
    struct layout {
        std::uint64_t mask;
        int nr;
        std::vector<std::pair<unsigned, unsigned>> per_cpu;  // (cpu, objects), hand-computed
    };
    const layout cases[] = {
        {0b1101, 7, {{0, 3}, {1, 0}, {2, 2}, {3, 2}}}, {0b1101, 2, {{0, 1}, {2, 1}, {3, 0}}},
        {0b0010, 7, {{0, 0}, {1, 7}, {2, 0}}},         {0xff, 7, {{0, 1}, {3, 1}, {6, 1}, {7, 0}}},
        {0xff, 17, {{0, 3}, {1, 2}, {7, 2}}},          {0b1010'0000, 3, {{5, 2}, {6, 0}, {7, 1}}},
    };
    for (const auto& c : cases) {
        machine_scope m{cpumask(c.mask)};
        E::cpu_scope cpu(cpumask(c.mask).next(-1));
        typename TestFixture::pool_t p;
        ASSERT_EQ(this->init(p, c.nr), 0);
        EXPECT_EQ(p.nr_objs(), c.nr);
        EXPECT_EQ(p.nr_possible_cpus(), cpumask(c.mask).weight());
        for (const auto& [cpu_id, n] : c.per_cpu) {
            SCOPED_TRACE(::testing::Message()
                         << "mask " << c.mask << " nr " << c.nr << " cpu " << cpu_id);
            const bool possible = cpumask(c.mask).test(cpu_id);
            EXPECT_EQ(p.has_slot(cpu_id), possible);
            if (!possible) continue;
            EXPECT_EQ(this->published(p, cpu_id), n);
            EXPECT_EQ(p.objects_in_slot(cpu_id), n);
            const auto s = p.slot_state(cpu_id);
            EXPECT_EQ(s.head, 0u);
            EXPECT_EQ(s.tail, n);
            // A slot's own objects, in order, behind its entries.
            for (unsigned i = 0; i < n; i++)
                EXPECT_EQ(p.entry_at(cpu_id, i), p.object_at(cpu_id, i));
        }
        p.fini();
        EXPECT_EQ(g_release.calls, 1);
        g_release = {};
    }
}

int g_init_calls = 0;
std::vector<void*>* g_init_seen = nullptr;
int init_zeroed_and_tagged(void* obj, void* context) {
    const auto* bytes = static_cast<const unsigned char*>(obj);
    for (int i = 0; i < 24; i++)
        if (bytes[i] != 0) return -100;  // objects must start zeroed
    *static_cast<int*>(obj) = ++g_init_calls;
    if (context != &g_init_calls) return -101;
    g_init_seen->push_back(obj);
    return 0;
}

TYPED_TEST(ObjpoolContract, ObjinitBuildsEveryObjectOnceWithTheContext) {
    machine_scope m(cpumask(0b1101));
    E::cpu_scope cpu(2);
    std::vector<void*> seen;
    g_init_seen = &seen;
    g_init_calls = 0;
    typename TestFixture::pool_t p;
    ASSERT_EQ(p.init(10, 24, init_zeroed_and_tagged, &g_init_calls, nullptr), 0);
    EXPECT_EQ(g_init_calls, 10);
    EXPECT_EQ(std::set<void*>(seen.begin(), seen.end()).size(), 10u);
    auto objs = this->pop_all(p);
    ASSERT_EQ(objs.size(), 10u);
    std::set<int> tags;
    for (void* o : objs) {
        EXPECT_TRUE(p.is_pool_object(o));
        EXPECT_TRUE(std::find(seen.begin(), seen.end(), o) != seen.end());
        tags.insert(*static_cast<int*>(o));
    }
    EXPECT_EQ(tags.size(), 10u) << "objinit's writes are not what pop hands out";
    for (void* o : objs) p.push(o);
    p.fini();
    g_init_seen = nullptr;
}

int g_fail_at = 0;
int init_failing_at(void*, void*) { return ++g_init_calls == g_fail_at ? -42 : 0; }

TYPED_TEST(ObjpoolContract, ObjinitFailureAbortsInitAndFreesEverything) {
    machine_scope m(cpumask(0b1101));
    for (int fail_at = 1; fail_at <= 7; fail_at++) {
        g_init_calls = 0;
        g_fail_at = fail_at;
        typename TestFixture::pool_t p;
        EXPECT_EQ(
            p.init(7, 8, init_failing_at, nullptr, record_release<typename TestFixture::pool_t>),
            -42)
            << "objinit failing at call " << fail_at;
        EXPECT_EQ(g_init_calls, fail_at) << "init went on after objinit failed";
        EXPECT_EQ(E::live_allocs, 0) << "fail at " << fail_at;
        EXPECT_FALSE(p.allocated());
    }
    EXPECT_EQ(g_release.calls, 0) << "release ran for a pool that never existed";
}

TYPED_TEST(ObjpoolContract, AllocationFailureAtEachStepGivesNomemAndFreesEverything) {
    for (const std::uint64_t mask :
         {std::uint64_t{0b1101}, std::uint64_t{0b1}, std::uint64_t{0xff}}) {
        machine_scope m{cpumask(mask)};
        g_release = {};
        const long needed = 1 + cpumask(mask).weight();  // slot array + one per possible CPU
        for (long n = 0; n <= needed; n++) {
            E::reset();
            E::fail_kmalloc_after(n);
            typename TestFixture::pool_t p;
            const int rc = this->init(p, 9);
            E::fail_kmalloc_after(-1);
            if (n < needed) {
                EXPECT_EQ(rc, err_nomem) << "mask " << mask << ": kmalloc " << n << " failed";
                EXPECT_EQ(E::total_allocs, n) << "init went on after a failed kmalloc";
                EXPECT_EQ(E::live_allocs, 0) << "mask " << mask << " fail after " << n;
                EXPECT_FALSE(p.allocated());
            } else {
                ASSERT_EQ(rc, 0) << "init needs more than " << needed << " allocations";
                E::cpu_scope cpu(0);
                p.fini();
                EXPECT_EQ(E::live_allocs, 0);
            }
        }
        EXPECT_EQ(g_release.calls, 1) << "release must run only for the pool that was created";
    }
}

TYPED_TEST(ObjpoolContract, EachSlotIsFifo) {
    machine_scope m(cpumask(0b1));
    E::cpu_scope cpu(0);
    typename TestFixture::pool_t p;
    ASSERT_EQ(this->init(p, 5), 0);
    auto objs = this->pop_all(p);
    ASSERT_EQ(objs.size(), 5u);
    for (unsigned i = 0; i < 5; i++) EXPECT_EQ(objs[i], p.object_at(0, i)) << "init order";
    const std::vector<void*> order = {objs[3], objs[0], objs[4], objs[2], objs[1]};
    for (void* o : order) EXPECT_EQ(p.push(o), 0);
    EXPECT_EQ(this->pop_all(p), order);
    for (void* o : order) p.push(o);
    this->expect_slot_consistent(p, 0);
    p.fini();
}

TYPED_TEST(ObjpoolContract, PopStartsAtThisCpuAndWalksThePossibleCpusCyclically) {
    machine_scope m(cpumask(0b1101));  // CPUs 0, 2, 3
    typename TestFixture::pool_t p;
    {
        E::cpu_scope cpu(0);
        ASSERT_EQ(this->init(p, 3), 0);  // one object per possible CPU
    }
    const void* in_slot[4] = {p.object_at(0, 0), nullptr, p.object_at(2, 0), p.object_at(3, 0)};
    const unsigned expected_walk[][3] = {{0, 2, 3}, {2, 3, 0}, {3, 0, 2}};
    for (const auto& walk : expected_walk) {
        {
            E::cpu_scope cpu(walk[0]);
            std::vector<void*> got;
            for (int i = 0; i < 3; i++) got.push_back(p.pop());
            EXPECT_EQ(p.pop(), nullptr) << "pop invented an object";
            for (int i = 0; i < 3; i++)
                EXPECT_EQ(got[i], in_slot[walk[i]]) << "from CPU " << walk[0] << ", visit " << i;
        }
        // Put each object back into its own slot, pushed by a thread on that CPU.
        for (unsigned c : {0u, 2u, 3u}) {
            std::thread t([&] {
                E::cpu_scope owner(c);
                p.push(const_cast<void*>(in_slot[c]));
            });
            t.join();
        }
    }
    E::cpu_scope cpu(0);
    p.fini();
    EXPECT_EQ(g_release.calls, 1);
}

TYPED_TEST(ObjpoolContract, PushGoesIntoThisCpusSlotOnly) {
    machine_scope m(cpumask(0b1101));
    E::cpu_scope cpu(3);
    typename TestFixture::pool_t p;
    ASSERT_EQ(this->init(p, 6), 0);
    auto objs = this->pop_all(p);
    ASSERT_EQ(objs.size(), 6u);
    for (unsigned c : {0u, 2u, 3u}) EXPECT_EQ(this->published(p, c), 0u);
    for (void* o : objs) p.push(o);
    EXPECT_EQ(this->published(p, 0), 0u);
    EXPECT_EQ(this->published(p, 2), 0u);
    EXPECT_EQ(this->published(p, 3), 6u) << "every object fits into one slot";
    for (unsigned c : {0u, 2u, 3u}) this->expect_slot_consistent(p, c);
    // They come back in push order from this CPU's slot.
    EXPECT_EQ(this->pop_all(p), objs);
    for (void* o : objs) p.push(o);
    p.fini();
}

TYPED_TEST(ObjpoolContract, QuiescentPopIsNullExactlyWhenEverySlotIsEmpty) {
    machine_scope m(cpumask(0b1101));
    typename TestFixture::pool_t p;
    void* last_obj = nullptr;
    {
        E::cpu_scope cpu(0);
        ASSERT_EQ(this->init(p, 4), 0);
        for (int i = 0; i < 4; i++) ASSERT_NE(last_obj = p.pop(), nullptr) << i;
        EXPECT_EQ(p.pop(), nullptr);
    }
    // One object in a slot that is neither the popper's nor its next neighbour.
    std::thread t([&] {
        E::cpu_scope owner(2);
        p.push(last_obj);
    });
    t.join();
    E::cpu_scope cpu(3);
    EXPECT_EQ(p.pop(), last_obj) << "pop missed an object in CPU 2's slot";
    EXPECT_EQ(p.pop(), nullptr);
    // Return the three others (popped on CPU 0 above; they are the remaining pool objects).
    int returned = 0;
    for (unsigned c : {0u, 2u, 3u}) {
        for (unsigned i = 0; i < p.objects_in_slot(c); i++) {
            if (p.object_at(c, i) == last_obj) continue;
            p.push(p.object_at(c, i));
            returned++;
        }
    }
    EXPECT_EQ(returned, 3);
    p.push(last_obj);
    p.fini();
}

TYPED_TEST(ObjpoolContract, IsPoolObjectAcceptsExactlyTheObjects) {
    machine_scope m(cpumask(0b1101));
    E::cpu_scope cpu(0);
    typename TestFixture::pool_t p;
    ASSERT_EQ(this->init(p, 5, 12), 0);
    int local = 0;
    EXPECT_FALSE(p.is_pool_object(&local));
    EXPECT_FALSE(p.is_pool_object(nullptr));
    unsigned count = 0;
    for (unsigned c : {0u, 2u, 3u}) {
        const unsigned n = p.objects_in_slot(c);
        for (unsigned i = 0; i < n; i++, count++) {
            char* o = static_cast<char*>(p.object_at(c, i));
            EXPECT_TRUE(p.is_pool_object(o));
            EXPECT_FALSE(p.is_pool_object(o + 1));
            EXPECT_FALSE(p.is_pool_object(o - 1));
        }
        // One past the slot's last object is not an object.
        EXPECT_FALSE(p.is_pool_object(static_cast<char*>(p.object_at(c, n))));
    }
    EXPECT_EQ(count, 5u);
    p.fini();
    EXPECT_FALSE(p.is_pool_object(&local));
}

TYPED_TEST(ObjpoolContract, FiniReleasesOnceWhenEveryObjectIsBack) {
    E::cpu_scope cpu(1);
    typename TestFixture::pool_t p;
    ASSERT_EQ(this->init(p, 6), 0);
    EXPECT_EQ(p.refcount(), 7) << "nr_objs + 1";
    EXPECT_EQ(p.fini(), 0);
    EXPECT_EQ(g_release.calls, 1);
    EXPECT_EQ(g_release.pool, &p);
    EXPECT_EQ(g_release.context, &g_release);
    EXPECT_FALSE(p.allocated());
    EXPECT_EQ(E::live_allocs, 0);
}

TYPED_TEST(ObjpoolContract, HeldObjectsKeepThePoolUntilTheLastDrop) {
    E::cpu_scope cpu(2);
    typename TestFixture::pool_t p;
    ASSERT_EQ(this->init(p, 5), 0);
    void* a = p.pop();
    void* b = p.pop();
    ASSERT_NE(a, nullptr);
    ASSERT_NE(b, nullptr);
    EXPECT_EQ(p.fini(), 0);
    EXPECT_EQ(g_release.calls, 0) << "freed while objects were still held";
    EXPECT_TRUE(p.allocated());
    EXPECT_EQ(p.refcount(), 2);
    EXPECT_EQ(p.drop(a), err_again);
    EXPECT_EQ(g_release.calls, 0);
    EXPECT_EQ(p.drop(b), 0) << "the last drop frees";
    EXPECT_EQ(g_release.calls, 1);
    EXPECT_FALSE(p.allocated());
}

TYPED_TEST(ObjpoolContract, DroppingEveryObjectLeavesThePoolToFini) {
    E::cpu_scope cpu(0);
    typename TestFixture::pool_t p;
    ASSERT_EQ(this->init(p, 4), 0);
    for (int i = 0; i < 4; i++) {
        void* o = p.pop();
        ASSERT_NE(o, nullptr);
        EXPECT_EQ(p.drop(o), err_again) << "the pool's own reference must keep it alive";
    }
    EXPECT_EQ(p.refcount(), 1);
    EXPECT_EQ(g_release.calls, 0);
    EXPECT_EQ(p.fini(), 0);
    EXPECT_EQ(g_release.calls, 1);
}

TYPED_TEST(ObjpoolContract, DropOfNullIsInvalidAndChangesNothing) {
    E::cpu_scope cpu(0);
    typename TestFixture::pool_t p;
    ASSERT_EQ(this->init(p, 2), 0);
    EXPECT_EQ(p.drop(nullptr), err_inval);
    EXPECT_EQ(p.refcount(), 3);
    p.fini();
    EXPECT_EQ(g_release.calls, 1);
}

TYPED_TEST(ObjpoolContract, ReleaseIsOptionalAndThePoolCanBeInitialisedAgain) {
    E::cpu_scope cpu(0);
    typename TestFixture::pool_t p;
    ASSERT_EQ(p.init(3, 8, nullptr, nullptr, nullptr), 0);
    EXPECT_EQ(p.fini(), 0);
    EXPECT_FALSE(p.allocated());
    ASSERT_EQ(this->init(p, 9), 0);
    EXPECT_EQ(p.nr_objs(), 9);
    EXPECT_EQ(p.capacity(), 16u);
    EXPECT_EQ(this->pop_all(p).size(), 9u);  // fresh objects, all of them
    p.free();                                // the forced free (kernel objpool_free) also releases
    EXPECT_EQ(g_release.calls, 1);
    p.free();
    EXPECT_EQ(g_release.calls, 1) << "a second free must do nothing";
}

TYPED_TEST(ObjpoolContract, SequenceNumbersWrapAround32Bits) {
    machine_scope m(cpumask(0b101));
    E::cpu_scope cpu(0);
    typename TestFixture::pool_t p;
    ASSERT_EQ(this->init(p, 5), 0);  // CPU 0 gets 3 objects, CPU 2 gets 2; capacity 8
    const std::vector<void*> slot0 = {p.object_at(0, 0), p.object_at(0, 1), p.object_at(0, 2)};
    const std::uint32_t base = 0xffff'fffeu;
    ASSERT_EQ(p.rebase_for_test(base), 0);
    const auto s = p.slot_state(0);
    ASSERT_EQ(s.head, base);
    ASSERT_EQ(s.last, base + 3);
    ASSERT_LT(s.last, s.head) << "the test must start across the wrap";
    EXPECT_EQ(p.pop(), slot0[0]);
    EXPECT_EQ(p.pop(), slot0[1]);
    EXPECT_EQ(p.pop(), slot0[2]) << "the entry at sequence 2^32 (index 0)";
    // Cycle every object through CPU 0's slot several times across the wrap, FIFO each time.
    std::vector<void*> objs = slot0;
    objs.push_back(p.pop());
    objs.push_back(p.pop());
    ASSERT_EQ(p.pop(), nullptr);
    for (int round = 0; round < 5; round++) {
        for (void* o : objs) p.push(o);
        EXPECT_EQ(this->published(p, 0), 5u);
        EXPECT_EQ(this->pop_all(p), objs) << "round " << round;
        std::rotate(objs.begin(), objs.begin() + 2, objs.end());
    }
    const auto e = p.slot_state(0);
    EXPECT_EQ(e.head, base + 3 + 25);
    EXPECT_EQ(e.head, e.last);
    for (void* o : objs) p.push(o);
    this->expect_slot_consistent(p, 0);
    p.fini();
    EXPECT_EQ(g_release.calls, 1);
}

TYPED_TEST(ObjpoolContract, RangeCheckHoldsAtTheWrapEdges) {
    // A full slot right at the wrap: last - head == nr_objs with last < head numerically.
    machine_scope m(cpumask(0b1));
    E::cpu_scope cpu(0);
    for (const std::uint32_t base : {0xffff'fffcu, 0xffff'ffffu, 0u, 0x7fff'ffffu}) {
        typename TestFixture::pool_t p;
        ASSERT_EQ(this->init(p, 4), 0);
        ASSERT_EQ(p.rebase_for_test(base), 0);
        EXPECT_EQ(this->pop_all(p).size(), 4u) << "base " << base;
        for (unsigned i = 0; i < 4; i++) p.push(p.object_at(0, i));
        p.fini();
        EXPECT_EQ(g_release.calls, 1);
        g_release = {};
    }
}

bool under_sanitizer() {
#if defined(KVERIFY_TSAN) || defined(__SANITIZE_ADDRESS__)
    return true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
    return true;
#else
    return false;
#endif
#else
    return false;
#endif
}

// The largest legal pool, on one CPU so that it stays at ~256 MiB (2^24 entries and objects).
// Sequential and slow under sanitizers (which add nothing here), so only the plain build runs it.
TEST(ObjpoolLimits, LargestPoolHoldsTwoToThe24Objects) {
    if (under_sanitizer()) GTEST_SKIP() << "2^24 objects: plain build only";
    E::reset();
    machine_scope m(cpumask(0b1));
    E::cpu_scope cpu(0);
    objpool<E, objpool_v6_15> p;
    ASSERT_EQ(p.init(1 << 24, 1, nullptr, nullptr, nullptr), 0);
    EXPECT_EQ(p.capacity(), 1u << 24);
    EXPECT_EQ(p.nr_objs(), 1 << 24);
    EXPECT_EQ(p.slot_state(0).last, 1u << 24);
    void* first = p.pop();
    EXPECT_EQ(first, p.object_at(0, 0));
    p.push(first);  // sequence 2^24 lands in entry 0 again: the ring is exactly full
    EXPECT_EQ(p.slot_state(0).tail, (1u << 24) + 1);
    EXPECT_EQ(p.entry_at(0, 1u << 24), first);
    EXPECT_EQ(p.pop(), p.object_at(0, 1)) << "FIFO across the full ring";
    p.free();  // fini would pop 2^24 objects one by one: the lifecycle tests cover it
    EXPECT_EQ(E::live_allocs, 0);
    EXPECT_EQ(E::stats().warnings, 0u);
}

}  // namespace
}  // namespace kverify
