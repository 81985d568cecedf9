// SPDX-License-Identifier: GPL-2.0-only
// What a search is asked to do (search_spec) and what it found (verdict), for every engine.
// No engine headers here: the command line and the result files use these types too.
//
// What an engine's runner (scenario.hpp, engine_runners) honours of a search_spec: kind, bound
// and samples; budget_s and execution_cap (either running out gives "inconclusive"); limits
// (caps on the check's IRQ, NMI and migration budgets, for shrinking); replay (run only the
// saved execution: its violation again, or "pass" when it no longer fails); raw_trace. It fills
// outcome, detail, executions, blocked, also_sc, trace and replay, and calls progress_tick()
// once per execution.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace kverify::model {

enum class search_kind { exhaustive, bounded, sampled };

// Caps on a check's own interrupt and migration budgets (kernel_config), used to shrink a
// counterexample: -1 keeps the check's budget, n >= 0 lowers it to at most n.
struct search_limits {
    int irq = -1;         // IRQs per CPU
    int nmi = -1;         // NMIs per CPU
    int migrations = -1;  // migrations, all tasks together
    // The check's declared symmetry set aside (kernel_config::irq_rounds_interchangeable): the
    // search explores what the symmetry would not (kverify run --no-symmetry).
    bool no_symmetry = false;
    // Preemption and migration offered at a task's first and last points too (kernel_config::
    // switch_at_task_ends): the search explores what the kernel leaves out there
    // (kverify run --every-switch-point).
    bool every_switch_point = false;
    // A preemption as a branch of the preempted task (kernel_config::preempt_by_choice), where
    // the engine would make it a window: the search of before (kverify run --preempt-by-choice).
    bool preempt_by_choice = false;

    bool any() const {
        return irq >= 0 || nmi >= 0 || migrations >= 0 || no_symmetry || every_switch_point ||
               preempt_by_choice;
    }
    // "irq<=0 migrations<=1", or "" when nothing is capped
    std::string str() const {
        std::string s;
        const auto add = [&s](const char* what, int v) {
            if (v < 0) return;
            if (!s.empty()) s += ' ';
            s += what + std::string("<=") + std::to_string(v);
        };
        add("irq", irq);
        add("nmi", nmi);
        add("migrations", migrations);
        if (no_symmetry) s += s.empty() ? "no-symmetry" : " no-symmetry";
        if (every_switch_point) s += s.empty() ? "every-switch-point" : " every-switch-point";
        if (preempt_by_choice) s += s.empty() ? "preempt-by-choice" : " preempt-by-choice";
        return s;
    }
};

struct search_spec {
    search_kind kind = search_kind::exhaustive;
    unsigned bound = 0;               // context bound, for bounded
    std::uint64_t samples = 0;        // executions, for sampled
    unsigned depth_limit = 20000;     // steps per execution before Relacy calls it a livelock
    double budget_s = 0;              // wall-clock budget, 0 = none
    std::uint64_t execution_cap = 0;  // stop (inconclusive) after this many executions, 0 = none
    search_limits limits;
    // Engine-specific: when set, run only the execution it names (a saved counterexample)
    // instead of searching. Produced by the engine in verdict::replay.
    std::string replay;
    bool raw_trace = false;  // keep the engine's own trace text, uncleaned (for debugging)
    // --split i/N (the dpor engines): explore part split_part (1-based) of
    // split_parts of the search's tree; 0 of 0: the whole search.
    unsigned split_part = 0, split_parts = 0;
    // --threads N (the dpor engines): explore the one search on N threads; the verdict, the
    // counts and the counterexample are those of one thread.
    unsigned threads = 1;
    // --behaviors (the dpor engines): keep what each complete execution did apart from the
    // kernel's own words (verdict::behaviors).
    bool behaviors = false;

    // "exhaustive", "bounded:K" or "sampled:N"
    std::string str() const {
        switch (kind) {
            case search_kind::exhaustive:
                return "exhaustive";
            case search_kind::bounded:
                return "bounded:" + std::to_string(bound);
            case search_kind::sampled:
                return "sampled:" + std::to_string(samples);
        }
        return "?";
    }
    static bool parse(const std::string& s, search_spec& out, std::string& err) {
        search_spec r;
        const auto num = [&](const std::string& prefix, std::uint64_t& v) {
            if (s.compare(0, prefix.size(), prefix) != 0) return false;
            const std::string digits = s.substr(prefix.size());
            if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos ||
                digits.size() > 12)
                return false;
            v = std::stoull(digits);
            return true;
        };
        std::uint64_t v = 0;
        if (s == "exhaustive") {
            r.kind = search_kind::exhaustive;
        } else if (num("bounded:", v) && v <= 64) {
            r.kind = search_kind::bounded;
            r.bound = static_cast<unsigned>(v);
        } else if (num("sampled:", v) && v > 0) {
            r.kind = search_kind::sampled;
            r.samples = v;
        } else {
            err = "invalid search '" + s +
                  "' (expected exhaustive, bounded:K with 0<=K<=64, or "
                  "sampled:N with N>=1)";
            return false;
        }
        out = r;
        return true;
    }
};

// What one part of a split search explored, for merge to join the parts: the depth of the
// search's tree at which it was cut, the subtrees rooted there, and this part's complete and
// blocked executions per chunk it explored. Chunk 0 is what the search explores before the first
// of those subtrees, chunk k what it explores from the k-th to the next; part i of N owns the
// chunks k with k mod N = i - 1. A violation ends a part in violation_chunk, whose counts are
// then those before it.
struct split_chunk {
    std::uint64_t index = 0, executions = 0, blocked = 0;
};
// Under the LKMM the parts overlap (model/dpor/split.cpp): each lists every execution it counted,
// by its 128-bit fingerprint, with the chunk it counted it in and how it ended, and merge counts
// the union (split.hpp, join_counted).
struct counted_end {
    enum kind_t : std::uint8_t { complete = 0, blocked = 1, stale = 2 };
    std::uint64_t a = 0, b = 0;
    std::uint64_t chunk = 0;
    kind_t kind = complete;
};
struct split_info {
    unsigned depth = 0;
    std::uint64_t roots = 0;
    std::vector<split_chunk> chunks;
    std::uint64_t violation_chunk = 0;
    bool by_fingerprint = false;       // a part of a search under the LKMM: `ends` below
    bool violation_elsewhere = false;  // its violation is in a run another part counts
    std::vector<counted_end> ends;
};

struct verdict {
    std::string engine;   // the engine that ran the search (relacy, dpor-rc11, dpor-sc)
    std::string outcome;  // "pass", "inconclusive", or the class of the violation found
    std::string detail;   // the violation's message
    std::uint64_t executions = 0;
    std::uint64_t blocked = 0;  // executions the engine cut short (0 for Relacy)
    // Of the blocked ones (dpor, SC and RC11): runs ended where a thread blocks after a read no
    // revisit changes, whose alternatives (all blocked) the engine did not explore (model/dpor)
    std::uint64_t stale_cut = 0;
    // Waits the engine revisited in place (dpor, SC and RC11: model/dpor/in_place.cpp); each
    // started its run again, and left out blocked executions
    std::uint64_t in_place = 0;
    std::string also_sc;  // "", or "yes"/"no": the violation also occurs under SC
    search_spec search;
    double seconds = 0;
    std::string trace;   // counterexample, in kernel terms (empty on pass)
    std::string replay;  // what reproduces the counterexample exactly (engine-specific)
    split_info split;    // a part of a split search (search.split_parts > 0)
    // search.behaviors: each complete execution's events apart from the kernel's own words
    // (its CPU tokens, migration budget, CPU masks) and the search's choices, one line each,
    // sorted, each once (model/dpor/graph.hpp, graph::projection).
    std::vector<std::string> behaviors;

    bool found_violation() const { return outcome != "pass" && outcome != "inconclusive"; }
};

// Progress of the search running in this process. An engine calls progress_tick() once per
// execution; the command line installs the hook (a terminal line, or a message to the parent
// process). The hook runs inside the search: it must not allocate.
struct progress_hook {
    void (*fn)(void* arg, std::uint64_t executions) = nullptr;
    void* arg = nullptr;
};

inline progress_hook& progress() {
    static progress_hook h;
    return h;
}

inline void progress_tick(std::uint64_t executions) {
    // Every 256 executions: cheap next to an execution, often enough for a 4 Hz display.
    const progress_hook& h = progress();
    if (h.fn && (executions & 255u) == 0) h.fn(h.arg, executions);
}

}  // namespace kverify::model
