// SPDX-License-Identifier: GPL-2.0-only
// Memory of one run: locations and their checks (uninitialised, use after free), plain accesses
// race-checked as C11 data races against the happens-before clocks, the newest value for checks,
// and allocation from per-thread arenas at the same addresses in every run, never reused.
#include <cstdio>

#include "model/dpor/explorer.hpp"

namespace kverify::dpor::detail {

loc_rt& explorer::loc_of(const void* p, src_loc where) {
    const auto a = reinterpret_cast<std::uintptr_t>(p);
    loc_rt* found = locs_.find(a);
    if (!found) fail("uninit", "access to a location that was never constructed", where);
    loc_rt& l = *found;
    if (l.alloc >= 0 && allocs_[std::size_t(l.alloc)].freed)
        fail("use-after-free", "access to " + loc_name(a) + " after its memory was freed", where);
    return l;
}

void explorer::race(unsigned u, const access_rec& a, const char* what, bool write, bool plain,
                    src_loc where) {
    char buf[320];
    std::snprintf(buf, sizeof buf,
                  "%s %s by thread %u races with a %s by thread %u at %s:%u (neither "
                  "happens before the other)",
                  plain ? "plain" : "atomic", write ? "write" : "read", cur_, what, u, a.where.file,
                  a.where.line);
    fail("data-race", buf, where);
}

loc_rt& explorer::construct_loc(std::uintptr_t a) {
    loc_rt& l = locs_.add(a);
    l.name = next_loc_name_++;
    for (std::size_t k = 0; k < allocs_.size(); ++k)
        if (a >= allocs_[k].base && a < allocs_[k].base + allocs_[k].size) l.alloc = int(k);
    return l;
}

// Under the LKMM a plain access is an event of the graph like a marked one (its reads have
// reads-from choices): the LKMM's plain-coherence and its data-race flag are about them.
void explorer::init_plain(void* p, unsigned width, value_t v, src_loc where) {
    if (opt_.model == memory_model::lkmm) {
        init_atomic(p, width, v, where);
        return;
    }
    tick(where);
    const auto a = reinterpret_cast<std::uintptr_t>(p);
    loc_rt* found = locs_.find(a);
    if (!found) {
        found = &construct_loc(a);
        found->width = std::uint8_t(width);
    }
    loc_rt& l = *found;
    race_check(l, th_[cur_].hb, 2 * std::int64_t(th_[cur_].next) + 1, true, true, where);
    l.plain_val = v & width_mask(width);
    ++peek_epoch_;
    if (tracing_) trace_text("init " + loc_name(a) + " := " + value_text(a, l.plain_val), where);
}

value_t explorer::plain_load(const void* p, src_loc where) {
    if (opt_.model == memory_model::lkmm) return load(p, mo::plain, where);
    tick(where);
    loc_rt& l = loc_of(p, where);
    race_check(l, th_[cur_].hb, 2 * std::int64_t(th_[cur_].next) + 1, false, true, where);
    if (tracing_)
        trace_text("plain read " + loc_name(reinterpret_cast<std::uintptr_t>(p)) + " -> " +
                       value_text(reinterpret_cast<std::uintptr_t>(p), l.plain_val),
                   where);
    return l.plain_val;
}

void explorer::plain_store(void* p, value_t v, src_loc where) {
    if (opt_.model == memory_model::lkmm) {
        store(p, v, mo::plain, where);
        return;
    }
    tick(where);
    loc_rt& l = loc_of(p, where);
    race_check(l, th_[cur_].hb, 2 * std::int64_t(th_[cur_].next) + 1, true, true, where);
    l.plain_val = v & width_mask(l.width);
    ++peek_epoch_;
    if (tracing_)
        trace_text("plain write " + loc_name(reinterpret_cast<std::uintptr_t>(p)) +
                       " := " + value_text(reinterpret_cast<std::uintptr_t>(p), l.plain_val),
                   where);
}

void explorer::note(const std::string& text, src_loc where) {
    if (tracing_) trace_text(text, where);
}

void* explorer::alloc(std::size_t bytes, src_loc where) {
    thread_rt& x = th_[cur_];
    const std::size_t sz = (bytes + 15) & ~std::size_t{15};
    if (x.arena_used + sz > arena_size)
        fail("out-of-memory", "the engine's arena of thread " + std::to_string(cur_) + " is full",
             where);
    char* p = x.arena + x.arena_used;
    x.arena_used += sz == 0 ? 16 : sz;
    allocs_.push_back(alloc_rec{reinterpret_cast<std::uintptr_t>(p), bytes, false, where, cur_});
    if (tracing_) trace_text("alloc " + std::to_string(bytes) + " bytes", where);
    return p;
}

void explorer::dealloc(void* p, src_loc where) {
    const auto a = reinterpret_cast<std::uintptr_t>(p);
    for (std::size_t k = allocs_.size(); k-- > 0;) {
        alloc_rec& r = allocs_[k];
        if (r.base != a) continue;
        if (r.freed) fail("double-free", "memory freed twice", where);
        r.freed = true;
        if (tracing_) trace_text("free " + std::to_string(r.size) + " bytes", where);
        return;
    }
    fail("invalid-free", "free of memory the engine did not allocate", where);
}

}  // namespace kverify::dpor::detail
