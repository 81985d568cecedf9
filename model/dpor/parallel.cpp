// SPDX-License-Identifier: GPL-2.0-only
// One search on several threads (options::threads). The tree of runs is cut where a census finds
// enough subtrees (split.cpp), and every thread explores it with an explorer of its own (its own
// fibers, arenas and, through options::on_thread, the program's state): each makes every run
// above the cut, since it needs them to reach the subtrees, but explores only the subtrees it
// takes, the first thread to reach a subtree's root taking it. A run above the cut is counted by
// the thread that took the subtree before it, so every run is counted once and the counts add up
// to one thread's; the runs of one chunk (a subtree and what follows it up to the next) are
// counted by one thread in the whole search's order, so the whole search's first violation is the
// first of the lowest chunk a violation was found in. The threads go on only in the chunks below
// it, which are explored whole: the verdict, the counts and the counterexample do not depend on
// the number of threads or on timing. The same holds for one part of a split search.
//
// Chunks differ in size, and the last ones taken can leave a thread alone for long. So a
// second cut, options::help_levels below each chunk's root, splits every chunk in the same way: its
// owner takes the subtrees rooted there one by one, as they come, and a thread whose own work is
// done helps: it runs the search again up to that chunk (the runs above the cut, and those of the
// chunk above the second cut: it needs them to reach the subtrees) and takes the subtrees that
// nobody took yet. The piece of a chunk (result::chunk::sub): 0 before its first subtree at the
// second cut, k from its k-th one up to the next, counted by whoever took that subtree, the
// chunk's owner or a helper. The tree is the same on every thread (the search is deterministic,
// and a run's alternatives, and the alternatives a stale wait drops, lie in its own subtree), so
// every thread meets the same subtrees in the same order, every run is counted once, and the
// whole search's order is by chunk, then by piece.
//
// Under the LKMM a search keeps the fingerprints of the starts of runs it explored and of the
// executions it counted, and explores a start or counts an execution only once (lb.cpp): what a
// start's subtree explores depends on the start alone, so the executions counted are those of
// the starts reachable from the first run, each once, in whatever order they are reached. On
// several threads the sets are shared (shared_fingerprints), so the counts of a search that ends
// are one thread's. But then which thread meets a start first depends on timing, and so would
// the tree above and between the cuts, which every thread of a chunk must make alike to number
// its subtrees alike: there a thread skips only what it met there itself, in runs made by every
// thread (the starts above the cut, and those of the chunk's runs above the second cut, whose
// set is emptied at each chunk's root), and below the second cut what any thread met. A start
// is put in the shared set only by a thread about to explore it, so every start reachable is
// explored by some thread. Which chunk a violation is found in, and the runs before it, depend
// on timing too: the first violation stops every thread, and the search runs again on one
// thread, for the counterexample and the counts before it that one thread gives.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>

#include "model/dpor/explorer.hpp"

namespace kverify::dpor::detail {

bool shared_fingerprints::insert(const fingerprint& f) {
    shard& s = shards_[f.b >> (64 - shard_bits)];
    const std::lock_guard<std::mutex> hold(s.lock);
    return s.set.insert(f).second;
}

bool explorer::new_start(const fingerprint& key) {
    parallel_search* const ps = split_.shared;
    if (!ps) {
        // A part of a split search: above the cut the starts are those the census meets, which
        // runs no subtree; at and below it, the part's own (split.cpp, under the LKMM).
        if (opt_.split_parts > 0 && depth_ >= split_.depth) return part_starts_.insert(key).second;
        return seen_starts_.insert(key).second;
    }
    if (depth_ < split_.depth) {  // above the cut: made by every thread
        if (!seen_starts_.insert(key).second) return false;
    } else if (depth_ < split_.depth + opt_.help_levels) {  // a chunk above its second cut
        if (seen_starts_.count(key) || !chunk_starts_.insert(key).second) return false;
    } else {
        return ps->starts.insert(key);
    }
    ps->starts.insert(key);  // (this thread explores it now)
    return true;
}

bool explorer::new_graph(const fingerprint& key) {
    return split_.shared ? split_.shared->graphs.insert(key) : seen_graphs_.insert(key).second;
}

bool parallel_search::take_sub(std::uint64_t chunk, std::uint64_t sub) {
    const std::lock_guard<std::mutex> hold(sub_lock);
    return sub_taken.insert({chunk, sub}).second;
}

bool parallel_search::take(std::uint64_t chunk) {
    // A chunk the census did not see: nobody takes it, and the explorer reports the mismatch.
    if (chunk >= chunks) return false;
    return !taken[chunk].exchange(true, std::memory_order_relaxed);
}

void parallel_search::violation_in(std::uint64_t chunk) {
    std::uint64_t now = stop_after.load(std::memory_order_relaxed);
    while (chunk < now &&
           !stop_after.compare_exchange_weak(now, chunk, std::memory_order_relaxed)) {
    }
}

std::uint64_t parallel_search::count(std::uint64_t e, std::uint64_t b) {
    return executions.fetch_add(e, std::memory_order_relaxed) + e +
           blocked.fetch_add(b, std::memory_order_relaxed) + b;
}

namespace {

// Subtrees per thread the cut aims at. Fewer than a split's (256 per part): threads take subtrees
// as they come free, so a few per thread even out, and the census and the runs above the cut
// (made once more by every thread) grow with them. On objpool/v6.7/c3-o2-r2-np under SC (18,981
// executions) on 2 threads: 8 per thread cut 28 subtrees and left one thread 75% of the runs, 32
// cut 90 and leave it 54% (the census 1% of the search's time), 128 cut 365, leave it 53% and
// the census takes 8%.
constexpr std::uint64_t roots_per_thread = 32;

// The whole search's order of pieces: by chunk, then by piece.
bool before(std::uint64_t i, std::uint64_t s, std::uint64_t j, std::uint64_t t) {
    return i != j ? i < j : s < t;
}

// Executions and blocked ones of the pieces before piece `sub` of chunk `chunk`.
std::uint64_t runs_before(const std::vector<result::chunk>& chunks, std::uint64_t chunk,
                          std::uint64_t sub) {
    std::uint64_t n = 0;
    for (const result::chunk& c : chunks)
        if (before(c.index, c.sub, chunk, sub)) n += c.executions + c.blocked;
    return n;
}

// What one explorer's result adds to another's besides executions, blocked ones, chunks and
// violations (the merge takes those per piece).
void add_side(result& into, const result& r) {
    into.replays += r.replays;
    into.unproducible += r.unproducible;
    into.stale_cut += r.stale_cut;
    into.in_place += r.in_place;
    into.flagged_data_race += r.flagged_data_race;
    into.flagged_mixed += r.flagged_mixed;
    if (!r.complete && into.complete) {
        into.complete = false;
        into.incomplete_reason = r.incomplete_reason;
    }
    into.graphs.insert(into.graphs.end(), r.graphs.begin(), r.graphs.end());
    into.blocked_graphs.insert(into.blocked_graphs.end(), r.blocked_graphs.begin(),
                               r.blocked_graphs.end());
}

// What one more explorer of a thread found (a help), added to what its others found.
void absorb(result& into, result&& r) {
    into.helped_runs += r.executions + r.blocked;
    into.executions += r.executions;
    into.blocked += r.blocked;
    add_side(into, r);
    into.split_chunks.insert(into.split_chunks.end(), r.split_chunks.begin(), r.split_chunks.end());
    for (violation& v : r.violations) into.violations.push_back(std::move(v));
}

}  // namespace

result explore_parallel(const program& prog, const options& opt) {
    const auto start = clock_type::now();
    const auto spent = [&] {
        return std::chrono::duration<double>(clock_type::now() - start).count();
    };
    const unsigned n = opt.threads;
    split_plan plan;
    plan.parts = std::max(opt.split_parts, 1u);
    plan.part = opt.split_parts ? opt.split_part - 1 : 0;
    result census;
    // A part of a split search keeps the split's own cut (every part must make the same one);
    // a whole search is cut for its threads.
    const std::uint64_t roots =
        opt.split_parts ? split_roots(opt.split_parts) : roots_per_thread * n;
    if (!take_census(prog, opt, roots, plan, census)) {
        census.seconds = spent();
        return census;
    }
    const double census_seconds = spent();
    // (Under the LKMM, after a violation: see the top. The runs made before count as runs.)
    const auto on_one_thread = [&](double parallel_seconds, std::uint64_t runs_before) {
        options one = opt;
        one.threads = 1;
        if (opt.budget_s > 0) one.budget_s = std::max(opt.budget_s - spent(), 1e-3);
        explorer x(prog, one);
        result r = x.run();
        r.rerun_on_one = true;
        r.replays += census.replays + runs_before;
        r.parallel_seconds = parallel_seconds;
        r.census_seconds = census_seconds;
        r.seconds = spent();
        return r;
    };
    if (plan.violated) return on_one_thread(0, 0);

    parallel_search ps;
    ps.active.reset(new std::atomic<std::uint64_t>[n]);
    for (unsigned t = 0; t < n; ++t) ps.active[t].store(UINT64_MAX);
    ps.chunks = plan.roots + 1;
    ps.taken.reset(new std::atomic<bool>[ps.chunks]);
    for (std::uint64_t k = 0; k < ps.chunks; ++k) ps.taken[k].store(false);
    ps.cut_at.assign(n, UINT64_MAX);
    plan.shared = &ps;

    options w = opt;
    w.on_thread = nullptr;
    if (opt.budget_s > 0) w.budget_s = std::max(opt.budget_s - spent(), 1e-3);
    if (opt.progress)  // the search's counts, one thread at a time
        w.progress = [&ps, &opt](std::uint64_t, std::uint64_t) {
            const std::lock_guard<std::mutex> hold(ps.progress_lock);
            opt.progress(ps.executions.load(std::memory_order_relaxed),
                         ps.blocked.load(std::memory_order_relaxed));
        };
    std::vector<result> results(n);
    std::vector<std::exception_ptr> errors(n);
    const auto work = [&](unsigned t) {
        try {
            split_plan mine = plan;
            mine.thread = t;
            {
                explorer x(prog, w, mine);
                results[t] = x.run();
            }
            ps.active[t].store(UINT64_MAX);
            // Then help: each chunk another thread explores now, once (see the top).
            std::set<std::uint64_t> helped;
            for (;;) {
                if (ps.stop.load(std::memory_order_relaxed) || !results[t].complete) break;
                std::uint64_t chunk = UINT64_MAX;
                bool busy = false;
                for (unsigned u = 0; u < n; ++u) {
                    const std::uint64_t a = ps.active[u].load(std::memory_order_relaxed);
                    busy = busy || a != UINT64_MAX;
                    if (a != UINT64_MAX && !helped.count(a) &&
                        a <= ps.stop_after.load(std::memory_order_relaxed))
                        chunk = std::min(chunk, a);
                }
                if (!busy) break;
                if (chunk == UINT64_MAX) {
                    std::this_thread::sleep_for(std::chrono::milliseconds(2));
                    continue;
                }
                helped.insert(chunk);
                split_plan h = mine;
                h.help = chunk;
                options wh = w;  // (a budget counts from the search's start)
                if (opt.budget_s > 0) wh.budget_s = std::max(opt.budget_s - spent(), 1e-3);
                explorer x(prog, wh, h);
                absorb(results[t], x.run());
            }
        } catch (...) {
            errors[t] = std::current_exception();
            ps.stop.store(true);
        }
    };
    std::vector<std::thread> pool;
    for (unsigned t = 1; t < n; ++t)
        pool.emplace_back([&, t] {
            bool set_up = false;
            try {
                if (opt.on_thread) opt.on_thread(true);
                set_up = true;
            } catch (...) {
                errors[t] = std::current_exception();
                ps.stop.store(true);
            }
            if (set_up) work(t);
            try {
                if (set_up && opt.on_thread) opt.on_thread(false);
            } catch (...) {
                if (!errors[t]) errors[t] = std::current_exception();
            }
        });
    work(0);  // the calling thread is one of them
    for (std::thread& th : pool) th.join();
    for (const std::exception_ptr& e : errors)
        if (e) std::rethrow_exception(e);

    if (opt.model == memory_model::lkmm) {
        // A violation: the counts before it and the counterexample are one thread's (see the
        // top). (A budget that ran out: inconclusive, with the counts so far.)
        bool violated = ps.violated.load();
        std::uint64_t runs = 0;
        for (const result& r : results) {
            violated = violated || !r.violations.empty();
            runs += r.replays;
        }
        if (violated) return on_one_thread(spent() - census_seconds, runs);
    }

    result out;
    std::vector<result::chunk> chunks;
    for (const result& r : results) {
        out.thread_share.push_back(r.executions + r.blocked);
        chunks.insert(chunks.end(), r.split_chunks.begin(), r.split_chunks.end());
        out.helped_runs += r.helped_runs;
        add_side(out, r);
    }
    std::sort(chunks.begin(), chunks.end(), [](const result::chunk& a, const result::chunk& b) {
        return before(a.index, a.sub, b.index, b.sub);
    });
    // A chunk from the first one a budget cut on is maybe not explored whole: a violation there
    // or after it may not be the search's first of its class.
    const std::uint64_t cut = *std::min_element(ps.cut_at.begin(), ps.cut_at.end());

    // Every violation, at its place in the whole search's order: the runs of the pieces before
    // its own, and its place among the runs of its piece.
    struct found {
        std::uint64_t at;
        const violation* v;
    };
    std::vector<found> all;
    for (const result& r : results)
        for (const violation& v : r.violations)
            all.push_back({runs_before(chunks, v.split_chunk, v.split_sub) + v.piece_at, &v});
    // By piece first: the index of a violation after a piece that another one ended is not one
    // of the whole search (that piece's runs after the violation were not counted).
    std::sort(all.begin(), all.end(), [](const found& a, const found& b) {
        const violation &x = *a.v, &y = *b.v;
        if (x.split_chunk != y.split_chunk || x.split_sub != y.split_sub)
            return before(x.split_chunk, x.split_sub, y.split_chunk, y.split_sub);
        return a.at < b.at;
    });
    // The piece of the violation that ended the search (none: UINT64_MAX).
    std::uint64_t last = UINT64_MAX, last_sub = 0;
    for (const found& f : all) {
        // Past a chunk a budget cut, or past the execution limit: one thread stopped before.
        if (f.v->split_chunk >= cut || (opt.max_executions && f.at > opt.max_executions)) break;
        bool seen = false;
        for (const violation& v : out.violations) seen = seen || v.cls == f.v->cls;
        if (seen) continue;
        out.violations.push_back(*f.v);
        out.violations.back().at_execution = f.at;
        if (opt.split_parts == 0) out.violations.back().split_chunk = 0;
        if (!opt.all_violations) {  // one thread would have stopped at the first
            last = f.v->split_chunk;
            last_sub = f.v->split_sub;
            break;
        }
    }
    // The counts: those before the violation that ended the search, as on one thread (its own
    // piece up to it: its thread stopped there). A split part's chunks, their pieces together.
    for (const result::chunk& c : chunks) {
        if (last != UINT64_MAX && before(last, last_sub, c.index, c.sub)) continue;
        out.executions += c.executions;
        out.blocked += c.blocked;
        if (!opt.split_parts) continue;
        if (out.split_chunks.empty() || out.split_chunks.back().index != c.index)
            out.split_chunks.push_back({c.index, 0, 0, 0});
        out.split_chunks.back().executions += c.executions;
        out.split_chunks.back().blocked += c.blocked;
    }
    if (last != UINT64_MAX) {  // the violation is the verdict, whatever a budget cut after it
        out.complete = true;
        out.incomplete_reason.clear();
    }
    if (opt.split_parts) {
        out.split_depth = plan.depth;
        out.split_roots = plan.roots;
    }
    out.replays += census.replays;
    out.threads = n;
    out.census_seconds = census_seconds;
    out.seconds = spent();
    return out;
}

}  // namespace kverify::dpor::detail
