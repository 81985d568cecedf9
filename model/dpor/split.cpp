// SPDX-License-Identifier: GPL-2.0-only
// One search in parts (options::split_parts): every run of the program but the first comes from
// one alternative of one earlier run, so the runs form a tree, explored depth first. The tree is
// cut at a depth where it has enough subtrees: part i of N explores the subtrees whose number in
// exploration order is i - 1 modulo N, and every run above that depth (it needs them to reach its
// subtrees) but counts only the runs that come after one of its own subtrees and before the next
// subtree. So every run is counted by exactly one part, the parts' counts add up to the whole
// search's, and the runs a part counts are, chunk by chunk, those of the whole search in its own
// order: the first violation of the whole search is the one of the lowest chunk any part reports.
//
// Under the LKMM (no maximality: a graph can be reached along two paths) the search explores each
// start of a run once and counts each execution once, by fingerprint, and what it counts is the
// set of executions of the starts reachable from the first run, each counted where the tree
// (every start explored again where met, apart from the starts above the cut met again above
// it, which the census skips too) meets it first. A part cannot know which starts other parts
// explored: it explores again what its own subtrees reach, and lists every execution it counts,
// by fingerprint, with its chunk (result::counted_ends). The parts overlap, and between them
// count every execution of the whole search; the owner of the chunk where the tree meets an
// execution first counts it in that chunk, any other part in a later one. So the whole search's
// counts are those of the union, and its first violation is the one the owner of the lowest chunk
// any part reports, at the index the union of the executions counted before gives: those of the
// chunks before it, of every part, and those of its own chunk that the owner counted before it
// (model/check/split.hpp, join_counted).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <stdexcept>

#include "model/dpor/explorer.hpp"

namespace kverify::dpor::detail {

namespace {

// Subtrees per part the cut aims at: enough for their sizes to even out, few enough that the
// runs above the cut (every part makes them, and the census before) stay a small share of a
// part. The trees are skewed: on percpu_counter/local-cas-preempt-off/mig2-irq in 4 parts, 32
// per part cut at depth 2 and left the largest part 49% of the runs, 256 cut at depth 3 and
// leave it 41% (one subtree holds 14%), 1024 cut at depth 5 and leave it 29% but the census
// costs each part about an eighth of the whole search.
constexpr std::uint64_t roots_per_part = 256;
// The census stops deepening when the runs above the cut exceed this (a narrow, deep tree).
constexpr std::uint64_t max_census_runs = 5000;

}  // namespace

// The run of item `it` is about to start: is it this part's? (false: it is not run at all.)
bool explorer::split_enter(const item& it) {
    depth_ = it.depth;
    parallel_search* const ps = split_.shared;
    if (it.depth == split_.depth) {
        ++roots_;
        chunk_starts_.clear();  // (the LKMM's starts of the chunk above the second cut)
        if (split_.census) return false;
        sub_ = 0;
        if (ps && split_.help != UINT64_MAX) {
            // Helping the owner of chunk `help`: its runs before the second cut are the owner's;
            // past the chunk, the help is over.
            owned_ = false;
            if (roots_ > split_.help) {
                stop_all_ = true;
                return false;
            }
        } else if (ps) {
            // On several threads (parallel.cpp): the subtree is this thread's if it is this
            // part's and no other thread took it first; the runs after it up to the next one go
            // with it.
            owned_ = roots_ % split_.parts == split_.part && ps->take(roots_);
            ps->active[split_.thread].store(owned_ ? roots_ : UINT64_MAX,
                                            std::memory_order_relaxed);
        }
    } else if (ps && it.depth == split_.depth + opt_.help_levels) {
        // The second cut, in a chunk this thread owns or helps with (the only ones it enters):
        // the subtree is the first taker's, and the runs after it up to the next one.
        owned_ = ps->take_sub(roots_, ++sub_);
    }
    if (ps) {
        if (ps->stop.load(std::memory_order_relaxed)) {  // another thread ran out of a budget
            stop_all_ = true;
            cut_ = true;
            return false;
        }
        if (roots_ > ps->stop_after.load(std::memory_order_relaxed)) {  // past a violation
            stop_all_ = true;
            return false;
        }
    } else {
        owned_ = roots_ % split_.parts == split_.part;
    }
    if (it.depth < split_.depth) return true;  // above the cut: every part makes the runs
    if (it.depth == split_.depth)              // a chunk's root (a helper enters one)
        return ps && split_.help != UINT64_MAX ? roots_ == split_.help : owned_;
    // On several threads, between the two cuts, every thread in the chunk makes the runs (they
    // lead to the subtrees at the second), counted by the owner of the piece they are in.
    if (ps && it.depth < split_.depth + opt_.help_levels) return true;
    if (ps && it.depth == split_.depth + opt_.help_levels) return owned_;
    if (!owned_)
        internal_error("a run below the cut of a split search in a subtree of another part");
    return true;
}

// The alternatives the run at depth_ left (those added since the stack held `contexts`
// contexts and the top one `items` items) are its children. Above the cut, an only child keeps
// its parent's depth: a chain of runs with one alternative each is no branching, and counting
// it would put the cut above a subtree that holds most of the tree.
void explorer::split_mark_children(std::size_t ci, std::size_t contexts, std::size_t items) {
    std::size_t children = 0;
    for (std::size_t k = ci; k < stack_.size(); ++k)
        children += stack_[k].work.size() - (k + 1 == contexts ? items : 0);
    const std::uint32_t depth = children == 1 && depth_ < split_.depth ? depth_ : depth_ + 1;
    for (std::size_t k = ci; k < stack_.size(); ++k) {
        std::vector<item>& work = stack_[k].work;
        for (std::size_t n = k + 1 == contexts ? items : 0; n < work.size(); ++n)
            work[n].depth = depth;
    }
}

void explorer::split_count(std::uint64_t executions, std::uint64_t blocked) {
    if (executions == 0 && blocked == 0) return;
    auto& chunks = res_.split_chunks;
    if (chunks.empty() || chunks.back().index != roots_ || chunks.back().sub != sub_)
        chunks.push_back({roots_, 0, 0, sub_});
    chunks.back().executions += executions;
    chunks.back().blocked += blocked;
}

bool take_census(const program& prog, const options& opt, std::uint64_t roots, split_plan& plan,
                 result& failed) {
    if (opt.split_parts > 0 && (opt.split_part < 1 || opt.split_part > opt.split_parts))
        throw std::invalid_argument("dpor: split part " + std::to_string(opt.split_part) + " of " +
                                    std::to_string(opt.split_parts));
    if (!opt.replay.empty())
        throw std::invalid_argument("dpor: a replay is one execution, not a search to split");
    // The shallowest depth with enough subtrees (else the one with the most), the same in every
    // part since it depends only on the program, the model and the number of subtrees wanted.
    options census = opt;
    census.trace = false;
    census.max_executions = 0;
    census.progress = nullptr;
    census.on_complete = nullptr;
    census.collect_graphs = false;
    split_plan probe = plan;
    probe.parts = std::max(plan.parts, 1u);
    probe.census = true;
    probe.shared = nullptr;
    unsigned best_depth = 1;
    std::uint64_t best_roots = 0;
    for (unsigned d = 1; d < 1000; ++d) {
        probe.depth = d;
        explorer x(prog, census, probe);
        const result r = x.run();
        failed.replays += r.replays;
        if (!r.violations.empty()) {  // (only under the LKMM, explore.cpp: finish_execution)
            // In a run above this depth, not above the ones before: cut at the best of those,
            // if any had subtrees (the violation lies in one), else no cut (explore_part).
            plan.violated = true;
            plan.depth = best_depth;
            plan.roots = best_roots;
            return true;
        }
        if (!r.complete) {
            failed.complete = false;
            failed.incomplete_reason = r.incomplete_reason + " (in the census of the split)";
            return false;
        }
        if (r.split_roots > best_roots) {
            best_roots = r.split_roots;
            best_depth = d;
        }
        if (r.split_roots == 0 || r.split_roots >= roots || r.replays > max_census_runs) break;
    }
    plan.census = false;
    plan.depth = best_depth;
    plan.roots = best_roots;
    return true;
}

std::uint64_t split_roots(unsigned parts) { return roots_per_part * parts; }

result explore_part(const program& prog, const options& opt) {
    if (opt.split_parts == 0)
        throw std::invalid_argument("dpor: split part " + std::to_string(opt.split_part) + " of 0");
    const auto start = clock_type::now();
    const auto spent = [&] {
        return std::chrono::duration<double>(clock_type::now() - start).count();
    };
    split_plan plan;
    plan.part = opt.split_part - 1;
    plan.parts = opt.split_parts;
    result census;
    if (!take_census(prog, opt, split_roots(opt.split_parts), plan, census)) {
        census.seconds = spent();
        return census;
    }
    if (plan.violated && plan.roots == 0) {
        // Under the LKMM the census met a violation before any depth had subtrees: part 1
        // explores the whole search as its chunk 0 (the first violation's), the others nothing.
        if (plan.part != 0) {
            result none;
            none.replays = census.replays;
            none.seconds = spent();
            return none;
        }
        plan.depth = 0;
    }
    options main = opt;
    if (opt.budget_s > 0) main.budget_s = std::max(opt.budget_s - spent(), 1e-3);
    explorer x(prog, main, plan);
    result r = x.run();
    r.seconds = spent();
    return r;
}

}  // namespace kverify::dpor::detail
