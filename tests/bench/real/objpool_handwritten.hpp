// SPDX-License-Identifier: GPL-2.0-only
// The v6.15 objpool protocol written by hand on std::atomic, without the Env layer: the yardstick
// for what real_env costs (issue 9: at most 10% over this); also with the first seed's CPU-local
// reservation, the yardstick for local-cas. Same accesses in the same order with
// the same orderings as impl/objpool.hpp with objpool_v6_15: flags save / restore (pushf, popf:
// what real_env does for cost realism), the CPU id from a thread-local, the ring arrays, the
// range check, the walk over the possible CPUs. What it leaves out is exactly the Env's own
// work: the irqs-off flag and pending-interrupt replay, the machine's masks read as atomics,
// the CPU id check, the warn_once bookkeeping. Benchmark only; not a variant of the algorithm.
#pragma once

#include <atomic>
#include <cstdint>
#include <cstdlib>

#include "impl/common.hpp"
#include "impl/real_env.hpp"  // detail::read_cpu_flags, write_cpu_flags

namespace kverify::bench {

// LocalCas: the first seed's reservation (local-cas), a cmpxchg without LOCK written as the
// kernel's cmpxchg_local is (a compiler barrier included); otherwise v6.15's acquire cas.
template <bool LocalCas>
class handwritten_objpool {
public:
    static inline thread_local unsigned this_cpu = 0;

    handwritten_objpool(cpumask possible, unsigned nr_objs) : possible_(possible) {
        nr_objs_ = nr_objs;
        const std::uint32_t capacity = roundup_pow_of_two(nr_objs);
        objects_ = static_cast<long*>(std::calloc(nr_objs, 64));
        unsigned k = 0;
        const unsigned n = possible.weight();
        for (unsigned cpu = possible.next(-1); cpu < cpumask::max_cpus;
             cpu = possible.next(static_cast<int>(cpu))) {
            slot& s = slots_[cpu];
            s.mask = capacity - 1;
            s.entries = new std::atomic<void*>[capacity];
            const unsigned share = nr_objs / n + (k < nr_objs % n ? 1u : 0u);
            for (unsigned i = 0; i < share; ++i, ++used_) {
                s.entries[i].store(objects_ + 8 * used_, std::memory_order_relaxed);
            }
            s.tail.store(share, std::memory_order_relaxed);
            s.last.store(share, std::memory_order_relaxed);
            ++k;
        }
    }
    ~handwritten_objpool() {
        for (slot& s : slots_) delete[] s.entries;
        std::free(objects_);
    }
    handwritten_objpool(const handwritten_objpool&) = delete;
    handwritten_objpool& operator=(const handwritten_objpool&) = delete;

    void push(void* obj) {
        const unsigned long flags = save_flags();
        slot& s = slots_[this_cpu];
        std::uint32_t tail = s.tail.load(std::memory_order_relaxed);  // only this CPU writes it
        do {
            const std::uint32_t head = s.head.load(std::memory_order_relaxed);  // diagnostic only
            if (__builtin_expect(tail - head > nr_objs_, 0)) warned_ = true;
            // acquire: the entry store below stays after the reservation (as in the kernel).
        } while (!reserve(s.tail, tail));
        s.entries[tail & s.mask].store(obj, std::memory_order_relaxed);  // published by `last`
        s.last.store(tail + 1, std::memory_order_release);  // pairs with nothing in v6.15's pop
        restore_flags(flags);
    }

    void* pop() {
        const unsigned long flags = save_flags();
        const unsigned start = this_cpu;
        void* obj = nullptr;
        for (unsigned cpu = possible_.next(static_cast<int>(start) - 1);
             obj == nullptr && cpu < cpumask::max_cpus; cpu = possible_.next(static_cast<int>(cpu)))
            obj = try_get(slots_[cpu]);
        for (unsigned cpu = possible_.next(-1); obj == nullptr && cpu < start;
             cpu = possible_.next(static_cast<int>(cpu)))
            obj = try_get(slots_[cpu]);
        restore_flags(flags);
        return obj;
    }

private:
    struct alignas(64) slot {
        std::atomic<std::uint32_t> head{0}, tail{0}, last{0};
        std::uint32_t mask = 0;
        std::atomic<void*>* entries = nullptr;
    };

    // The flags save and restore (pushf, popf), the same helpers real_env's irq save uses.
    static unsigned long save_flags() noexcept { return detail::read_cpu_flags(); }
    static void restore_flags(unsigned long f) noexcept { detail::write_cpu_flags(f); }

    static bool reserve(std::atomic<std::uint32_t>& tail_seq, std::uint32_t& tail) {
#if defined(__x86_64__)
        if constexpr (LocalCas) {
            bool ok;
            auto* p = reinterpret_cast<std::uint32_t*>(&tail_seq);
            asm volatile("cmpxchg %3, %1"
                         : "=@ccz"(ok), "+m"(*p), "+a"(tail)
                         : "r"(tail + 1)
                         : "memory");
            return ok;
        }
#endif
        return tail_seq.compare_exchange_strong(tail, tail + 1, std::memory_order_acquire,
                                                std::memory_order_relaxed);
    }

    void* try_get(slot& s) {
        // acquire: pairs with the release cas of head by the popper that moved it.
        std::uint32_t head = s.head.load(std::memory_order_acquire);
        while (head != s.last.load(std::memory_order_relaxed)) {
            if (s.last.load(std::memory_order_relaxed) - head - 1 >= nr_objs_) {
                head = s.head.load(std::memory_order_relaxed);  // the cas validates it
#if defined(__x86_64__)
                __builtin_ia32_pause();  // impl/objpool.hpp marks this spin with cpu_relax
#endif
                continue;
            }
            void* obj = s.entries[head & s.mask].load(std::memory_order_relaxed);
            // release: the entry read is done before the position is given back.
            if (s.head.compare_exchange_strong(head, head + 1, std::memory_order_release,
                                               std::memory_order_relaxed))
                return obj;
        }
        return nullptr;
    }

    cpumask possible_;
    std::uint32_t nr_objs_ = 0;
    unsigned used_ = 0;
    long* objects_ = nullptr;
    bool warned_ = false;
    slot slots_[cpumask::max_cpus];
};

}  // namespace kverify::bench
