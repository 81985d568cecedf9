// SPDX-License-Identifier: GPL-2.0-only
// real_env: virtual CPUs, per-CPU tiers, signal-delivered interrupts and their deferral.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "impl/real_env.hpp"

namespace kverify {
namespace {

using E = real_env;

TEST(RealEnv, VirtualCpuIdComesFromTheRegisteredThread) {
    E::configure(cpumask(0b1101));
    EXPECT_EQ(E::nr_cpu_ids(), 4u);
    EXPECT_EQ(E::num_possible_cpus(), 3u);
    EXPECT_FALSE(E::cpu_possible(1));
    std::thread t([] {
        E::cpu_scope cpu(3);
        EXPECT_EQ(E::raw_smp_processor_id(), 3u);
    });
    t.join();
    E::configure(cpumask::first_n(4));
}

TEST(RealEnv, PerCpuTiersActOnTheCurrentCpuOnly) {
    E::percpu<int> p;
    E::cpu_scope cpu(2);
    E::this_cpu_add(p, 5);
    E::this_cpu_sub(p, 2);
    int old = 3;
    EXPECT_TRUE(E::this_cpu_try_cmpxchg(p, old, 10));
    old = 3;
    EXPECT_FALSE(E::this_cpu_try_cmpxchg(p, old, 11));
    EXPECT_EQ(old, 10);
    EXPECT_EQ(E::per_cpu_read(p, 2), 10);
    EXPECT_EQ(E::per_cpu_read(p, 1), 0);
}

TEST(RealEnv, LocalCasReportsItsImplementation) {
    E::atomic<unsigned> a{7};
    unsigned old = 7;
    EXPECT_TRUE(E::try_cmpxchg_local(a, old, 8u));
    EXPECT_EQ(E::peek(a), 8u);
    old = 7;
    EXPECT_FALSE(E::try_cmpxchg_local(a, old, 9u));
    EXPECT_EQ(old, 8u);
    RecordProperty("local_ops", E::local_ops_impl());
}

std::atomic<int> irq_hits{0};
void count_irq(unsigned, void*) { irq_hits.fetch_add(1); }

TEST(RealEnv, IrqIsDeferredWhileIrqsAreOffAndRunsOnRestore) {
    E::cpu_scope cpu(1);
    E::set_irq_handler(1, count_irq, nullptr);
    irq_hits = 0;
    const E::irq_flags f = E::local_irq_save();
    ASSERT_TRUE(E::raise_irq(1));  // pthread_kill to self: delivered before it returns
    EXPECT_EQ(irq_hits.load(), 0) << "an IRQ ran with irqs off";
    E::local_irq_restore(f);
    EXPECT_EQ(irq_hits.load(), 1) << "the deferred IRQ did not run on restore";
    ASSERT_TRUE(E::raise_irq(1));
    EXPECT_EQ(irq_hits.load(), 2) << "an IRQ with irqs on did not run at once";
    E::set_irq_handler(1, nullptr, nullptr);
}

TEST(RealEnv, NmiRunsEvenWithIrqsOff) {
    E::cpu_scope cpu(0);
    E::set_nmi_handler(0, count_irq, nullptr);
    irq_hits = 0;
    const E::irq_flags f = E::local_irq_save();
    ASSERT_TRUE(E::raise_nmi(0));
    EXPECT_EQ(irq_hits.load(), 1);
    E::local_irq_restore(f);
    E::set_nmi_handler(0, nullptr, nullptr);
}

TEST(RealEnv, DebugPreemptCheckFlagsNocheckOpsWhilePreemptible) {
    E::percpu<long> p;
    E::cpu_scope cpu(0);
    E::reset_stats();
    {
        preempt_guard<E> g;
        (void)E::this_cpu_read_nocheck(p);
        (void)E::smp_processor_id();
    }
    EXPECT_EQ(E::stats().preempt_violations, 0u);
    (void)E::this_cpu_read_nocheck(p);
    EXPECT_EQ(E::stats().preempt_violations, 1u);
}

TEST(RealEnv, KmallocFailureInjection) {
    E::fail_kmalloc_after(1);
    void* a = E::kmalloc(8);
    void* b = E::kmalloc(8);
    E::fail_kmalloc_after(-1);
    EXPECT_NE(a, nullptr);
    EXPECT_EQ(b, nullptr);
    E::kfree(a);
}

}  // namespace
}  // namespace kverify
