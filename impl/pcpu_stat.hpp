// SPDX-License-Identifier: GPL-2.0-only
// pcpu_stat: the smallest per-CPU algorithm, a statistics counter (one word per CPU, incremented
// with a CPU-local add, summed by reading every possible CPU). One source on both backends
// (tests/stress/pcpu_stat_stress_test.cpp, tests/model/pcpu_stat/pcpu_stat.cpp), and the
// foundation kept honest: the read-then-write variant must lose an update.
#pragma once

#include "impl/common.hpp"

namespace kverify {

// The increment: one this_cpu_add, irq-safe on this CPU.
struct pcpu_stat_add {
    static constexpr const char* name = "this_cpu_add";
    static constexpr bool known_bad = false;
    template <class Env, class T>
    static void inc(typename Env::template percpu<T>& v) {
        Env::this_cpu_add(v, T{1});
    }
};

// Kept to prove the checker finds a lost update: read, then write back, so an interrupt on the
// same CPU between the two loses its own increment. Never for use.
struct pcpu_stat_mut_read_write {
    static constexpr const char* name = "mut-read-write";
    static constexpr bool known_bad = true;
    template <class Env, class T>
    static void inc(typename Env::template percpu<T>& v) {
        const auto cur = Env::this_cpu_read(v);
        Env::this_cpu_write(v, static_cast<typename Env::template val<T>>(cur + 1));
    }
};

template <class Env, class Variant = pcpu_stat_add>
class pcpu_stat {
public:
    void inc() { Variant::template inc<Env, long>(v_); }

    // Sum over every possible CPU. Each remote word is read untorn (per_cpu_read); concurrent
    // increments may or may not be counted, as for the kernel's per-CPU statistics.
    long sum() const {
        typename Env::template val<long> s = 0;
        const cpumask possible = Env::possible_mask();
        for (unsigned c = possible.next(-1); c < cpumask::max_cpus; c = possible.next(int(c)))
            s += Env::per_cpu_read(v_, c);
        return Env::raw(s);  // the caller's own value
    }

    // Names the per-CPU words stat[cpuN] for a checker's traces (Env::name_as, model Envs only).
    void name_words() const { Env::name_as(v_, "stat"); }

private:
    typename Env::template percpu<long> v_;
};

}  // namespace kverify
