// SPDX-License-Identifier: GPL-2.0-only
// Backend-neutral vocabulary shared by impl/, model/ and the tests: source locations for traces,
// CPU masks, kernel error codes and small helpers. No atomics and no Relacy here.
#pragma once

#include <cerrno>
#include <cstddef>
#include <cstdint>

namespace kverify {

// Where an Env operation was called from. Env operations take `src_loc loc = {}` as their last
// parameter so the default arguments capture the *caller's* line: traces then name the
// algorithm's own source line without any macro inside impl/.
struct src_loc {
    const char* file;
    unsigned line;
    const char* func;
    constexpr src_loc(const char* f = __builtin_FILE(), unsigned l = __builtin_LINE(),
                      const char* fn = __builtin_FUNCTION()) noexcept
        : file(f), line(l), func(fn) {}
};

// A value as the Env has it: the plain T in the real build; in the model a T that carries the
// reads it came from (model/kernel/tracked.hpp), for the LKMM's dependencies.
template <class Env, class T>
using val_t = typename Env::template val<T>;

// A set of CPU ids below max_cpus. Holes are legal (the possible mask {0,2,3}).
class cpumask {
public:
    static constexpr unsigned max_cpus = 64;

    constexpr cpumask() noexcept = default;
    constexpr explicit cpumask(std::uint64_t bits) noexcept : bits_(bits) {}
    static constexpr cpumask first_n(unsigned n) noexcept {
        return cpumask(n >= max_cpus ? ~std::uint64_t{0} : (std::uint64_t{1} << n) - 1);
    }

    constexpr bool test(unsigned cpu) const noexcept {
        return cpu < max_cpus && ((bits_ >> cpu) & 1u) != 0;
    }
    constexpr void set(unsigned cpu) noexcept { bits_ |= std::uint64_t{1} << cpu; }
    constexpr void clear(unsigned cpu) noexcept { bits_ &= ~(std::uint64_t{1} << cpu); }
    constexpr unsigned weight() const noexcept {
        return static_cast<unsigned>(__builtin_popcountll(bits_));
    }
    constexpr bool empty() const noexcept { return bits_ == 0; }
    constexpr std::uint64_t bits() const noexcept { return bits_; }
    // One past the highest set bit: the kernel's nr_cpu_ids for a possible mask.
    constexpr unsigned span() const noexcept {
        return bits_ == 0 ? 0u : 64u - static_cast<unsigned>(__builtin_clzll(bits_));
    }
    // Smallest member > prev (prev = -1 starts the walk); max_cpus when none is left.
    constexpr unsigned next(int prev) const noexcept {
        const unsigned from = static_cast<unsigned>(prev + 1);
        if (from >= max_cpus) return max_cpus;
        const std::uint64_t rest = bits_ >> from;
        return rest == 0 ? max_cpus : from + static_cast<unsigned>(__builtin_ctzll(rest));
    }
    friend constexpr bool operator==(cpumask a, cpumask b) noexcept { return a.bits_ == b.bits_; }
    friend constexpr bool operator!=(cpumask a, cpumask b) noexcept { return a.bits_ != b.bits_; }

private:
    std::uint64_t bits_ = 0;
};

// Kernel error codes, returned negated as the kernel does.
inline constexpr int err_inval = -EINVAL;
inline constexpr int err_nomem = -ENOMEM;
inline constexpr int err_again = -EAGAIN;

constexpr std::uint32_t roundup_pow_of_two(std::uint32_t v) noexcept {
    std::uint32_t p = 1;
    while (p < v) p <<= 1;
    return p;
}

}  // namespace kverify
