// SPDX-License-Identifier: GPL-2.0-only
// A small relation algebra over the events of one candidate execution, for the LKMM oracle
// (oracle.hpp): sets are bit vectors and relations bit matrices over events 0..n-1. The
// operators are the cat language's: union |, intersection &, difference \, sequence ;,
// inverse ^-1, the closures + * ?, [S] and S*T; the checks acyclic, irreflexive and empty.
// Programs are tiny, so plain O(n^3) algorithms on rows of bits are enough.
#pragma once

#include <bitset>
#include <cstddef>
#include <vector>

namespace kverify::lkmm_oracle {

inline constexpr unsigned max_events = 128;  // per execution, the initial writes included

using bits = std::bitset<max_events>;

// A set of events.
class event_set {
public:
    event_set() = default;
    explicit event_set(unsigned n) : n_(n) {}
    static event_set all(unsigned n) {
        event_set s(n);
        for (unsigned k = 0; k < n; ++k) s.b_.set(k);
        return s;
    }
    unsigned size() const { return n_; }
    bool has(unsigned e) const { return b_.test(e); }
    void add(unsigned e) { b_.set(e); }
    bool empty() const { return b_.none(); }
    const bits& raw() const { return b_; }

    friend event_set operator|(event_set a, const event_set& b) {
        a.b_ |= b.b_;
        return a;
    }
    friend event_set operator&(event_set a, const event_set& b) {
        a.b_ &= b.b_;
        return a;
    }
    friend event_set operator-(event_set a, const event_set& b) {  // the cat's S \ T
        a.b_ &= ~b.b_;
        return a;
    }
    // The cat's ~S: the events not in S.
    event_set complement() const { return all(n_) - *this; }

private:
    unsigned n_ = 0;
    bits b_;
};

// A binary relation on events.
class relation {
public:
    relation() = default;
    explicit relation(unsigned n) : rows_(n) {}
    unsigned size() const { return unsigned(rows_.size()); }
    bool has(unsigned a, unsigned b) const { return rows_[a].test(b); }
    void add(unsigned a, unsigned b) { rows_[a].set(b); }
    const bits& row(unsigned a) const { return rows_[a]; }
    bool empty() const {
        for (const bits& r : rows_)
            if (r.any()) return false;
        return true;
    }

    static relation identity(unsigned n) {
        relation r(n);
        for (unsigned k = 0; k < n; ++k) r.add(k, k);
        return r;
    }
    // [S]: the identity on S.
    static relation on(const event_set& s) {
        relation r(s.size());
        for (unsigned k = 0; k < s.size(); ++k)
            if (s.has(k)) r.add(k, k);
        return r;
    }
    // S * T: every pair of an event of S and one of T.
    static relation product(const event_set& s, const event_set& t) {
        relation r(s.size());
        for (unsigned k = 0; k < s.size(); ++k)
            if (s.has(k)) r.rows_[k] = t.raw();
        return r;
    }

    friend relation operator|(relation a, const relation& b) {
        for (unsigned k = 0; k < a.size(); ++k) a.rows_[k] |= b.rows_[k];
        return a;
    }
    friend relation operator&(relation a, const relation& b) {
        for (unsigned k = 0; k < a.size(); ++k) a.rows_[k] &= b.rows_[k];
        return a;
    }
    friend relation operator-(relation a, const relation& b) {  // the cat's r \ s
        for (unsigned k = 0; k < a.size(); ++k) a.rows_[k] &= ~b.rows_[k];
        return a;
    }
    // r ; s
    friend relation seq(const relation& a, const relation& b) {
        relation c(a.size());
        for (unsigned i = 0; i < a.size(); ++i)
            for (unsigned j = 0; j < a.size(); ++j)
                if (a.rows_[i].test(j)) c.rows_[i] |= b.rows_[j];
        return c;
    }
    relation inverse() const {
        relation r(size());
        for (unsigned i = 0; i < size(); ++i)
            for (unsigned j = 0; j < size(); ++j)
                if (rows_[i].test(j)) r.add(j, i);
        return r;
    }
    // r+ (Warshall's algorithm on rows).
    relation plus() const {
        relation r = *this;
        for (unsigned k = 0; k < size(); ++k)
            for (unsigned i = 0; i < size(); ++i)
                if (r.rows_[i].test(k)) r.rows_[i] |= r.rows_[k];
        return r;
    }
    relation star() const { return plus() | identity(size()); }  // r*
    relation opt() const { return *this | identity(size()); }    // r?
    event_set domain() const {
        event_set s(size());
        for (unsigned k = 0; k < size(); ++k)
            if (rows_[k].any()) s.add(k);
        return s;
    }
    event_set range() const {
        bits all;
        for (const bits& r : rows_) all |= r;
        event_set s(size());
        for (unsigned k = 0; k < size(); ++k)
            if (all.test(k)) s.add(k);
        return s;
    }
    bool irreflexive() const {
        for (unsigned k = 0; k < size(); ++k)
            if (rows_[k].test(k)) return false;
        return true;
    }
    bool acyclic() const { return plus().irreflexive(); }
    friend bool operator==(const relation& a, const relation& b) { return a.rows_ == b.rows_; }

private:
    std::vector<bits> rows_;
};

// The cat's fencerel(S) = (po & (_ * S)) ; po: pairs of events with an event of S between them.
inline relation fencerel(const relation& po, const event_set& s) {
    return seq(po & relation::product(event_set::all(s.size()), s), po);
}

}  // namespace kverify::lkmm_oracle
