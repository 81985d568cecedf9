// SPDX-License-Identifier: GPL-2.0-only
// Tracked values: what model_env's marked loads return in the model build (the real build has
// the plain types, impl/real_env.hpp). A tracked value carries the reads it came from (the
// engine's dep_ids, model/dpor/engine.hpp), so the Env can declare the LKMM's dependencies: a
// store's data dependency on its value, an address dependency of an access through Env::at, a
// control dependency of the then- and else-clauses of an `if (auto c = Env::when(cond))`.
// Arithmetic, comparisons, bit operations and conversions between tracked types propagate the
// reads. A tracked value never becomes a bool or an untracked integer by itself (an `if` that
// forgets Env::when does not compile); raw() leaves the tracked world on purpose, and tells the
// engine (engine::depend_after: every later event of the thread may depend on those reads).
// Engine-neutral: the engine adapter's dependency interface does the rest (Relacy: nothing).
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "model/engines/engine.hpp"

namespace kverify::model {
inline namespace KVERIFY_ENGINE_NS {

// The reads a value came from, all of one engine thread. A value that reaches another thread
// through the scenario's own state (a check in after(), after every task joined) brings no
// dependencies there: join orders them already.
class dep_set {
public:
    using id = engine::dep_id;
    static constexpr unsigned cap = 6;

    dep_set() = default;
    // The read the calling thread's last access made (none where the engine reads no
    // dependencies: every model but the LKMM).
    static dep_set last_read() {
        dep_set d;
        if (!engine::dependencies()) return d;
        d.thread_ = static_cast<std::uint8_t>(engine::dep_thread());
        d.ids_[0] = engine::last_event();
        d.n_ = 1;
        return d;
    }
    void merge(const dep_set& o) {
        if (o.n_ == 0) return;
        if (n_ == 0) {
            *this = o;
            return;
        }
        if (o.thread_ != thread_) {  // one side came from another thread: keep this thread's
            if (thread_ != engine::dep_thread()) *this = o;
            return;
        }
        for (unsigned k = 0; k < o.n_; ++k) add(o.ids_[k]);
    }
    // The reads, if they are the calling thread's (else none).
    const id* here(std::size_t& n) const {
        n = n_ != 0 && thread_ == engine::dep_thread() ? n_ : 0;
        return ids_;
    }
    bool empty() const { return n_ == 0; }
    // The value leaves the tracked world: every later event of this thread may depend on it.
    void leave() const {
        std::size_t n = 0;
        const id* ids = here(n);
        engine::depend_after(ids, n);
    }

private:
    void add(id x) {
        for (unsigned k = 0; k < n_; ++k)
            if (ids_[k] == x) return;
        if (n_ < cap) {
            ids_[n_++] = x;
            return;
        }
        // Full: the read still counts for the exploration, which then treats every later event
        // as dependent on it (sound); the LKMM's axioms lose this one dependency (weaker).
        if (thread_ == engine::dep_thread()) engine::depend_after(&x, 1);
    }
    id ids_[cap] = {};
    std::uint8_t n_ = 0;
    std::uint8_t thread_ = 0xff;
};

template <class T>
class tracked;

template <class T>
struct is_tracked : std::false_type {};
template <class T>
struct is_tracked<tracked<T>> : std::true_type {};
template <class T>
inline constexpr bool is_tracked_v =
    is_tracked<std::remove_cv_t<std::remove_reference_t<T>>>::value;

// What may meet a tracked value in an expression: another one, or a plain scalar.
template <class T>
inline constexpr bool operand_v =
    is_tracked_v<T> || std::is_arithmetic_v<std::remove_cv_t<std::remove_reference_t<T>>> ||
    std::is_pointer_v<std::remove_cv_t<std::remove_reference_t<T>>> ||
    std::is_null_pointer_v<std::remove_cv_t<std::remove_reference_t<T>>>;

template <class T>
class tracked {
    static_assert(std::is_arithmetic_v<T> || std::is_pointer_v<T>, "tracked scalars only");

public:
    using value_type = T;
    constexpr tracked() : v_{} {}
    // An untracked value (a constant, the scenario's argument) depends on no read.
    constexpr tracked(T v) : v_(v) {}  // NOLINT: implicit on purpose
    template <class U, std::enable_if_t<!is_tracked_v<U> && !std::is_same_v<U, T> &&
                                            std::is_convertible_v<U, T>,
                                        int> = 0>
    constexpr tracked(U v) : v_(static_cast<T>(v)) {}  // NOLINT: as the plain conversion
    tracked(T v, const dep_set& d) : v_(v), d_(d) {}
    // Between tracked types as between the plain ones: the reads come along.
    template <class U,
              std::enable_if_t<!std::is_same_v<U, T> && std::is_convertible_v<U, T>, int> = 0>
    tracked(const tracked<U>& o) : v_(static_cast<T>(o.value())), d_(o.deps()) {}  // NOLINT
    template <class U, std::enable_if_t<
                           !std::is_convertible_v<U, T> && std::is_constructible_v<T, U>, int> = 0>
    explicit tracked(const tracked<U>& o) : v_(static_cast<T>(o.value())), d_(o.deps()) {}

    // Leaves the tracked world on purpose (the scenario's bookkeeping, a check): the engine is
    // told that every later event of this thread may depend on these reads.
    T raw() const {
        d_.leave();
        return v_;
    }
    // The value without telling the engine: for the Env itself, which declares what it does
    // with it (a store's data, an access's address, a control dependency).
    T value() const { return v_; }
    const dep_set& deps() const { return d_; }

    template <class U>
    tracked& operator=(const U& o) {
        *this = tracked(o);
        return *this;
    }
    tracked& operator=(const tracked&) = default;
    tracked(const tracked&) = default;

#define KVERIFY_TRACKED_ASSIGN(op)             \
    template <class U>                         \
    tracked& operator op##=(const U& o) {      \
        return *this = tracked<T>(*this op o); \
    }
    KVERIFY_TRACKED_ASSIGN(+)
    KVERIFY_TRACKED_ASSIGN(-)
    KVERIFY_TRACKED_ASSIGN(*)
    KVERIFY_TRACKED_ASSIGN(&)
    KVERIFY_TRACKED_ASSIGN(|)
    KVERIFY_TRACKED_ASSIGN(^)
#undef KVERIFY_TRACKED_ASSIGN
    tracked& operator++() {
        ++v_;
        return *this;
    }
    tracked& operator--() {
        --v_;
        return *this;
    }
    tracked operator++(int) {
        tracked old = *this;
        ++v_;
        return old;
    }
    tracked operator--(int) {
        tracked old = *this;
        --v_;
        return old;
    }

private:
    T v_;
    dep_set d_;
};

namespace tracked_detail {
template <class T>
constexpr const T& value_of(const T& v) {
    return v;
}
template <class T>
T value_of(const tracked<T>& v) {
    return v.value();
}
inline dep_set deps_of() { return {}; }
template <class T>
dep_set deps_of(const T&) {
    return {};
}
template <class T>
dep_set deps_of(const tracked<T>& v) {
    return v.deps();
}
template <class A, class B>
dep_set deps_of(const A& a, const B& b) {
    dep_set d = deps_of(a);
    d.merge(deps_of(b));
    return d;
}
}  // namespace tracked_detail

#define KVERIFY_TRACKED_BINARY(op)                                                                 \
    template <class A, class B,                                                                    \
              std::enable_if_t<(is_tracked_v<A> || is_tracked_v<B>)&&operand_v<A> && operand_v<B>, \
                               int> = 0>                                                           \
    auto operator op(const A& a, const B& b)                                                       \
        ->tracked<decltype(tracked_detail::value_of(a) op tracked_detail::value_of(b))> {          \
        using R = decltype(tracked_detail::value_of(a) op tracked_detail::value_of(b));            \
        return tracked<R>(tracked_detail::value_of(a) op tracked_detail::value_of(b),              \
                          tracked_detail::deps_of(a, b));                                          \
    }
KVERIFY_TRACKED_BINARY(+)
KVERIFY_TRACKED_BINARY(-)
KVERIFY_TRACKED_BINARY(*)
KVERIFY_TRACKED_BINARY(/)
KVERIFY_TRACKED_BINARY(%)
KVERIFY_TRACKED_BINARY(&)
KVERIFY_TRACKED_BINARY(|)
KVERIFY_TRACKED_BINARY(^)
KVERIFY_TRACKED_BINARY(<<)
KVERIFY_TRACKED_BINARY(>>)
KVERIFY_TRACKED_BINARY(==)
KVERIFY_TRACKED_BINARY(!=)
KVERIFY_TRACKED_BINARY(<)
KVERIFY_TRACKED_BINARY(<=)
KVERIFY_TRACKED_BINARY(>)
KVERIFY_TRACKED_BINARY(>=)
#undef KVERIFY_TRACKED_BINARY
// No && and ||: overloads would evaluate both sides, and a side may be an access.

#define KVERIFY_TRACKED_UNARY(op)                                            \
    template <class T>                                                       \
    auto operator op(const tracked<T>& a)->tracked<decltype(op a.value())> { \
        return tracked<decltype(op a.value())>(op a.value(), a.deps());      \
    }
KVERIFY_TRACKED_UNARY(-)
KVERIFY_TRACKED_UNARY(~)
KVERIFY_TRACKED_UNARY(!)
#undef KVERIFY_TRACKED_UNARY

// The scope of a control dependency: alive for exactly the statement it is declared in
// (`if (auto c = Env::when(cond))`, `while (auto c = Env::when(cond))`), so the then- and
// else-clauses (a loop's body) depend on the condition's reads, and the code after it does not:
// the LKMM orders nothing after the statement. Where the later events stand in the thread still
// depends on the way taken, so at its end the exploration is told (engine::depend_after, which
// orders nothing): a load-buffering revisit never keeps them in a place the branch could move.
class ctrl_scope {
public:
    explicit ctrl_scope(const tracked<bool>& cond) : taken_(cond.value()), cond_(cond.deps()) {
        std::size_t n = 0;
        const dep_set::id* ids = cond_.here(n);
        engine::ctrl_begin(ids, n);
    }
    explicit ctrl_scope(bool cond) : taken_(cond) { engine::ctrl_begin(nullptr, 0); }
    ctrl_scope(const ctrl_scope&) = delete;
    ctrl_scope& operator=(const ctrl_scope&) = delete;
    ~ctrl_scope() {
        engine::ctrl_end();
        cond_.leave();
    }
    explicit operator bool() const { return taken_; }

private:
    bool taken_;
    dep_set cond_;
};

// An element of an array reached through an index the program computed (Env::at): the access
// gets an address dependency on the index's reads.
template <class A>
struct addressed {
    A& obj;
    dep_set addr;
};

}  // namespace KVERIFY_ENGINE_NS
}  // namespace kverify::model
