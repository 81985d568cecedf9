// SPDX-License-Identifier: GPL-2.0-only
// Binary relations over the events of one graph, as bit matrices: the algebra the axiomatic
// memory models are written in (union, intersection, difference, sequence, inverse, closures,
// acyclicity). Events are numbered 0..n-1 by the model that builds them. Internal to model/dpor.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <new>
#include <utility>
#include <vector>

namespace kverify::dpor::detail {

// The words of sets and relations. A check of the LKMM's axioms makes and drops a hundred of them
// per graph, all of a few sizes, and malloc with free was a sixth of a dpor-lkmm search: freed
// buffers are kept per thread, by size, for the next one.
class word_pool {
public:
    static void* take(std::size_t words) {
        word_pool& p = here();
        if (words < limit && !p.free_[words].empty()) {
            void* b = p.free_[words].back();
            p.free_[words].pop_back();
            return b;
        }
        return ::operator new(words * sizeof(std::uint64_t));
    }
    static void give(void* b, std::size_t words) noexcept {
        word_pool& p = here();
        if (words < limit && p.free_[words].size() < per_size) {
            try {
                p.free_[words].push_back(b);
                return;
            } catch (...) {
            }
        }
        ::operator delete(b);
    }
    ~word_pool() {
        for (auto& list : free_)
            for (void* b : list) ::operator delete(b);
    }

private:
    static constexpr std::size_t limit = 2048, per_size = 64;
    word_pool() : free_(limit) {}
    static word_pool& here() {
        static thread_local word_pool p;
        return p;
    }
    std::vector<std::vector<void*>> free_;
};

template <class T>
struct word_alloc {
    static_assert(sizeof(T) == sizeof(std::uint64_t), "words");
    using value_type = T;
    word_alloc() noexcept = default;
    template <class U>
    word_alloc(const word_alloc<U>&) noexcept {}
    T* allocate(std::size_t n) { return static_cast<T*>(word_pool::take(n)); }
    void deallocate(T* p, std::size_t n) noexcept { word_pool::give(p, n); }
    template <class U>
    bool operator==(const word_alloc<U>&) const noexcept {
        return true;
    }
    template <class U>
    bool operator!=(const word_alloc<U>&) const noexcept {
        return false;
    }
};
using words = std::vector<std::uint64_t, word_alloc<std::uint64_t>>;

// A set of events.
class evset {
public:
    explicit evset(std::size_t n = 0) : n_(n), w_((n + 63) / 64, 0) {}
    std::size_t size() const { return n_; }
    bool has(std::size_t i) const { return (w_[i >> 6] >> (i & 63)) & 1; }
    void add(std::size_t i) { w_[i >> 6] |= std::uint64_t{1} << (i & 63); }
    evset operator|(const evset& o) const {
        evset r = *this;
        for (std::size_t k = 0; k < w_.size(); ++k) r.w_[k] |= o.w_[k];
        return r;
    }
    evset operator&(const evset& o) const {
        evset r = *this;
        for (std::size_t k = 0; k < w_.size(); ++k) r.w_[k] &= o.w_[k];
        return r;
    }
    evset operator-(const evset& o) const {
        evset r = *this;
        for (std::size_t k = 0; k < w_.size(); ++k) r.w_[k] &= ~o.w_[k];
        return r;
    }
    bool empty() const {
        for (std::uint64_t x : w_)
            if (x) return false;
        return true;
    }
    evset& operator|=(const evset& o) {
        for (std::size_t k = 0; k < w_.size(); ++k) w_[k] |= o.w_[k];
        return *this;
    }
    // f(i) for every element i, ascending.
    template <class F>
    void for_each(F f) const {
        for (std::size_t kw = 0; kw < w_.size(); ++kw)
            for (std::uint64_t bits = w_[kw]; bits; bits &= bits - 1)
                f(kw * 64 + std::size_t(__builtin_ctzll(bits)));
    }
    const detail::words& words() const { return w_; }
    detail::words& words() { return w_; }

private:
    std::size_t n_;
    detail::words w_;
};

class relation {
public:
    explicit relation(std::size_t n = 0) : n_(n), wpr_((n + 63) / 64), m_(n * wpr_, 0) {}
    std::size_t size() const { return n_; }

    bool has(std::size_t i, std::size_t j) const {
        return (m_[i * wpr_ + (j >> 6)] >> (j & 63)) & 1;
    }
    void add(std::size_t i, std::size_t j) {
        m_[i * wpr_ + (j >> 6)] |= std::uint64_t{1} << (j & 63);
    }
    bool empty() const {
        for (std::uint64_t x : m_)
            if (x) return false;
        return true;
    }
    // Adds (i, j) for every j in [lo, hi): a row by words, where one pair at a time would cost
    // a loop over every pair of events.
    void add_range(std::size_t i, std::size_t lo, std::size_t hi) {
        std::uint64_t* row = &m_[i * wpr_];
        while (lo < hi) {
            const std::size_t w = lo >> 6, b = lo & 63;
            const std::size_t span = std::min<std::size_t>(64 - b, hi - lo);
            const std::uint64_t mask =
                span == 64 ? ~std::uint64_t{0} : ((std::uint64_t{1} << span) - 1) << b;
            row[w] |= mask;
            lo += span;
        }
    }
    // Adds (i, j) for every j in s.
    void add_row(std::size_t i, const evset& s) {
        for (std::size_t k = 0; k < wpr_; ++k) m_[i * wpr_ + k] |= s.words()[k];
    }
    // The events j with (i, j): row i.
    evset row(std::size_t i) const {
        evset s(n_);
        for (std::size_t k = 0; k < wpr_; ++k) s.words()[k] = m_[i * wpr_ + k];
        return s;
    }
    // The image of a set: the events j with (i, j) for some i in s (the row of s ; r).
    evset image(const evset& s) const {
        evset out(n_);
        std::uint64_t* o = out.words().data();
        s.for_each([&](std::size_t i) {
            for (std::size_t k = 0; k < wpr_; ++k) o[k] |= m_[i * wpr_ + k];
        });
        return out;
    }

    static relation identity(std::size_t n) {
        relation r(n);
        for (std::size_t i = 0; i < n; ++i) r.add(i, i);
        return r;
    }
    // [S]: the identity on a set.
    static relation id(const evset& s) {
        relation r(s.size());
        for (std::size_t i = 0; i < s.size(); ++i)
            if (s.has(i)) r.add(i, i);
        return r;
    }
    // S * T: every pair of an element of s and one of t.
    static relation cross(const evset& s, const evset& t) {
        relation r(s.size());
        for (std::size_t i = 0; i < s.size(); ++i)
            if (s.has(i))
                for (std::size_t k = 0; k < r.wpr_; ++k) r.m_[i * r.wpr_ + k] = t.words()[k];
        return r;
    }

    // The operations below come twice: on a relation kept (a copy), and on a temporary, which
    // is changed in place (an expression of the models' makes a chain of them, and a copy each
    // was most of their cost).
    relation operator|(const relation& o) const& { return relation(*this) | o; }
    relation operator|(const relation& o) && { return std::move(*this |= o); }
    relation& operator|=(const relation& o) {
        for (std::size_t k = 0; k < m_.size(); ++k) m_[k] |= o.m_[k];
        return *this;
    }
    relation operator&(const relation& o) const& { return relation(*this) & o; }
    relation operator&(const relation& o) && {
        for (std::size_t k = 0; k < m_.size(); ++k) m_[k] &= o.m_[k];
        return std::move(*this);
    }
    relation operator-(const relation& o) const& { return relation(*this) - o; }
    relation operator-(const relation& o) && {
        for (std::size_t k = 0; k < m_.size(); ++k) m_[k] &= ~o.m_[k];
        return std::move(*this);
    }
    // Sequence: (a, c) when (a, b) in this and (b, c) in o for some b.
    relation seq(const relation& o) const {
        relation r(n_);
        for (std::size_t i = 0; i < n_; ++i) {
            std::uint64_t* out = &r.m_[i * wpr_];
            for (std::size_t kw = 0; kw < wpr_; ++kw) {
                std::uint64_t bits = m_[i * wpr_ + kw];
                while (bits) {
                    const std::size_t b = kw * 64 + std::size_t(__builtin_ctzll(bits));
                    bits &= bits - 1;
                    const std::uint64_t* row = &o.m_[b * wpr_];
                    for (std::size_t k = 0; k < wpr_; ++k) out[k] |= row[k];
                }
            }
        }
        return r;
    }
    relation inverse() const {
        relation r(n_);
        for (std::size_t i = 0; i < n_; ++i)
            for_each_in_row(i, [&](std::size_t j) { r.add(j, i); });
        return r;
    }
    // f(j) for every (i, j) in the relation, j ascending.
    template <class F>
    void for_each_in_row(std::size_t i, F f) const {
        for (std::size_t kw = 0; kw < wpr_; ++kw)
            for (std::uint64_t bits = m_[i * wpr_ + kw]; bits; bits &= bits - 1)
                f(kw * 64 + std::size_t(__builtin_ctzll(bits)));
    }
    // Restrictions [S]; r and r; [S].
    relation from(const evset& s) const& { return relation(*this).from(s); }
    relation from(const evset& s) && {
        for (std::size_t i = 0; i < n_; ++i)
            if (!s.has(i))
                for (std::size_t k = 0; k < wpr_; ++k) m_[i * wpr_ + k] = 0;
        return std::move(*this);
    }
    relation to(const evset& s) const& { return relation(*this).to(s); }
    relation to(const evset& s) && {
        for (std::size_t i = 0; i < n_; ++i)
            for (std::size_t k = 0; k < wpr_; ++k) m_[i * wpr_ + k] &= s.words()[k];
        return std::move(*this);
    }
    // r+ (Warshall on bit rows), r* and r?.
    relation plus() const& { return relation(*this).plus(); }
    relation plus() && {
        for (std::size_t k = 0; k < n_; ++k) {
            const std::uint64_t* rowk = &m_[k * wpr_];
            bool any = false;  // an empty row k adds nothing to the rows that reach k
            for (std::size_t w = 0; w < wpr_; ++w) any = any || rowk[w];
            if (!any) continue;
            for (std::size_t i = 0; i < n_; ++i)
                if (has(i, k)) {
                    std::uint64_t* rowi = &m_[i * wpr_];
                    for (std::size_t w = 0; w < wpr_; ++w) rowi[w] |= rowk[w];
                }
        }
        return std::move(*this);
    }
    relation star() const& { return relation(*this).star(); }
    relation star() && { return std::move(*this).plus().opt(); }
    relation opt() const& { return relation(*this).opt(); }
    relation opt() && {
        for (std::size_t i = 0; i < n_; ++i) add(i, i);
        return std::move(*this);
    }
    bool irreflexive() const {
        for (std::size_t i = 0; i < n_; ++i)
            if (has(i, i)) return false;
        return true;
    }
    // Acyclic: no cycle, by depth-first search on the edges (cheaper than a closure).
    bool acyclic() const;
    evset domain() const {
        evset s(n_);
        for (std::size_t i = 0; i < n_; ++i)
            for (std::size_t k = 0; k < wpr_; ++k)
                if (m_[i * wpr_ + k]) {
                    s.add(i);
                    break;
                }
        return s;
    }
    evset range() const {
        evset s(n_);
        for (std::size_t i = 0; i < n_; ++i) for_each_in_row(i, [&](std::size_t j) { s.add(j); });
        return s;
    }

private:
    std::size_t n_, wpr_;
    detail::words m_;
};

inline bool relation::acyclic() const {
    // Depth-first search on whole words: at node v, its successors not done yet are
    // row(v) & ~done; one of them on the stack closes a cycle, and the lowest is visited next.
    // So a node costs its row's words (a word cursor per stack entry: below it every successor
    // was done when the cursor passed, and done only grows), not one step per edge.
    thread_local std::vector<std::uint64_t> done, on_stack;
    thread_local std::vector<std::pair<std::size_t, std::size_t>> stack;  // node, word cursor
    done.assign(wpr_, 0);
    on_stack.assign(wpr_, 0);
    auto bit = [](std::size_t j) { return std::uint64_t{1} << (j & 63); };
    for (std::size_t s = 0; s < n_; ++s) {
        if (done[s >> 6] & bit(s)) continue;
        stack.assign(1, {s, 0});
        on_stack[s >> 6] |= bit(s);
        while (!stack.empty()) {
            auto& [v, k] = stack.back();
            const std::uint64_t* row = &m_[v * wpr_];
            std::size_t next = n_;
            for (; k < wpr_; ++k) {
                const std::uint64_t open = row[k] & ~done[k];
                if (open & on_stack[k]) return false;
                if (open) {
                    next = k * 64 + std::size_t(__builtin_ctzll(open));
                    break;
                }
            }
            if (next == n_) {
                done[v >> 6] |= bit(v);
                on_stack[v >> 6] &= ~bit(v);
                stack.pop_back();
                continue;
            }
            on_stack[next >> 6] |= bit(next);
            stack.emplace_back(next, 0);
        }
    }
    return true;
}

}  // namespace kverify::dpor::detail
