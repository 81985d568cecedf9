// SPDX-License-Identifier: GPL-2.0-only
// The Relacy runner (relacy.hpp), compiled once in the Relacy build: one harness per task count
// runs any program, so rl::simulate is instantiated max_tasks times per build, not once per
// scenario. A failing search's replay string is Relacy's scheduler state at the failing
// execution (rl::test_params::final_state), which, given back as initial_state, runs exactly
// that execution again.
#include "model/runners/relacy.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "model/kernel/kernel.hpp"
#include "model/runners/trace_text.hpp"

#ifndef KVERIFY_SOURCE_DIR
#define KVERIFY_SOURCE_DIR ""
#endif

namespace kverify::model {
inline namespace eng_relacy {

namespace {

// The program now being searched, and its scenario's storage (set by run_relacy).
const program* current = nullptr;
void* current_storage = nullptr;

// A program as a Relacy test suite, one per task count (not per scenario): one Relacy thread per
// task. Per execution (the members' construction order): the kernel is reset, the run-queue
// words are built, then the scenario; each thread runs its task between task_start and
// task_finish; invariant() runs at every scheduling point, after() at the end; the scenario is
// destroyed first, then the run-queue words.
template <unsigned Tasks>
struct harness : rl::test_suite<harness<Tasks>, Tasks> {
    static_assert(Tasks >= 1 && Tasks <= max_tasks, "task count");

    struct reset {
        reset() { kernel::get().begin_iteration(); }
    } reset_;
    // The name is the trace's: clean_relacy_trace recognises these words by it (trace_text.hpp).
    struct runqueues {
        rl::atomic<unsigned> rq[max_cpus];
        runqueues() {
            for (unsigned c = 0; c < max_cpus; ++c) {
                rq[c].store(0, rl::mo_relaxed, RL_INFO);
                engine::runqueue(c) = &rq[c];
            }
        }
    } runqueues_;
    struct scenario {
        scenario() { current->construct(current_storage, current->params); }
        ~scenario() { current->destroy(current_storage); }
    } s_;

    void thread(unsigned t) {
        kernel::get().task_start(t);
        current->task(current_storage, t);
        kernel::get().task_finish(t);
    }
    void invariant() {
        const auto scope = kernel::get().checking_invariant();
        current->invariant(current_storage);
    }
    void after() { current->after(current_storage); }
};

const char* relacy_outcome(rl::test_result_e r) {
    switch (r) {
        case rl::test_result_data_race:
            return "data-race";
        case rl::test_result_access_to_freed_memory:
            return "use-after-free";
        case rl::test_result_double_free:
            return "double-free";
        case rl::test_result_memory_leak:
        case rl::test_result_resource_leak:
            return "leak";
        case rl::test_result_unitialized_access:
            return "uninit";
        case rl::test_result_deadlock:
            return "deadlock";
        case rl::test_result_livelock:
            return "livelock";
        case rl::test_result_recursion_on_nonrecursive_mutex:
            return "self-deadlock";
        case rl::test_result_user_invariant_failed:
            return "invariant";
        default:
            return "assert";
    }
}

}  // namespace

std::vector<std::string> relacy_classes() {
    // Every failing test result Relacy has, as relacy_outcome names it.
    std::vector<std::string> c;
    for (int r = rl::test_result_inconsistent_test_suite; r <= rl::test_result_thread_signal; ++r) {
        const std::string cls = relacy_outcome(static_cast<rl::test_result_e>(r));
        if (std::find(c.begin(), c.end(), cls) == c.end()) c.push_back(cls);
    }
    return c;
}

namespace {

// Executions of the search running now (counted in counted<Harness>::before) and the cap on them.
struct search_counter {
    std::uint64_t executions = 0;
    std::uint64_t cap = 0;  // 0: none
    bool cap_hit = false;
};

search_counter& current_search() {
    static search_counter c;
    return c;
}

// A harness counting executions: Relacy calls before() once at the start of each.
template <class Harness>
struct counted : Harness {
    void before() {
        search_counter& c = current_search();
        ++c.executions;
        // Sticky once hit: Relacy then replays the stopping execution to print its history, and
        // that replay must stop at once as well.
        if (c.cap != 0 && c.executions > c.cap) {
            c.cap_hit = true;
            rl::ctx().rl_until("execution cap reached", RL_INFO);
        }
        progress_tick(c.executions);
        Harness::before();
    }
};

// rl::simulate, instantiated once per task count: simulate_tasks[n - 1] runs n tasks.
template <unsigned Tasks>
void simulate(rl::test_params& p) {
    rl::simulate<counted<harness<Tasks>>>(p);
}
using simulate_fn = void (*)(rl::test_params&);
template <std::size_t... I>
constexpr std::array<simulate_fn, sizeof...(I)> simulators(std::index_sequence<I...>) {
    return {{&simulate<unsigned(I + 1)>...}};
}
constexpr std::array<simulate_fn, max_tasks> simulate_tasks =
    simulators(std::make_index_sequence<max_tasks>{});

// A replay string as Relacy writes it: the execution's index, then (tree searches) the number
// of decision nodes and three numbers per node (choices, the one taken, its kind); a random
// search's state is its index alone. Relacy reads it without any check, so one that is not of
// this form would run some other execution, or none: refused here. Returns the index.
std::uint64_t checked_replay(const std::string& s, search_kind kind) {
    const auto bad = [&s](const char* why) {
        return std::invalid_argument(std::string("not a Relacy replay string (") + why + "): '" +
                                     s.substr(0, 60) + (s.size() > 60 ? "...'" : "'"));
    };
    std::vector<std::uint64_t> n;
    for (std::size_t i = 0; i < s.size();) {
        if (s[i] == ' ') {
            ++i;
            continue;
        }
        if (s[i] < '0' || s[i] > '9') throw bad("a character that is no digit or space");
        std::uint64_t v = 0;
        for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i) {
            if (v > (std::uint64_t{1} << 40)) throw bad("a number out of range");
            v = v * 10 + unsigned(s[i] - '0');
        }
        n.push_back(v);
    }
    if (n.empty()) throw bad("empty");
    if (kind == search_kind::sampled) {
        if (n.size() != 1) throw bad("a sampled search's state is one execution index");
        return n[0];
    }
    if (n.size() < 2 || n.size() != 2 + 3 * n[1]) throw bad("the decision count does not fit");
    for (std::size_t i = 2; i < n.size(); i += 3)
        if (n[i] == 0 || n[i + 1] >= n[i] || n[i + 2] > rl::sched_type_user)
            throw bad("a decision out of range");
    return n[0];
}

}  // namespace

verdict run_relacy(const program& prog, const search_spec& spec) {
    if (prog.tasks < 1 || prog.tasks > max_tasks)
        throw std::invalid_argument("a program of " + std::to_string(prog.tasks) + " tasks (1 to " +
                                    std::to_string(max_tasks) + ")");
    scenario_storage storage(prog);
    current = &prog;
    current_storage = storage.get();
    kernel& k = kernel::get();
    k.configure(apply_limits(prog.kernel, spec.limits));
    k.reset_run();
    const auto start = std::chrono::steady_clock::now();
    if (spec.budget_s > 0)
        engine::deadline() = engine::deadline_state{
            start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                        std::chrono::duration<double>(spec.budget_s)),
            true, false, 0};
    else
        engine::deadline() = engine::deadline_state{};
    const bool replay = !spec.replay.empty();
    const std::uint64_t named = replay ? checked_replay(spec.replay, spec.kind) : 0;
    search_counter& counter = current_search();
    counter = search_counter{};
    counter.cap = replay ? 1 : spec.execution_cap;  // a replay runs one execution, never more

    // Relacy replaces operator new while a search runs: its output goes through buffers that
    // allocate with malloc directly (rl::ostringstream), never through operator new.
    rl::ostringstream out, progress;
    rl::test_params p;
    p.output_stream = &out;
    p.progress_stream = &progress;
    p.execution_depth_limit = spec.depth_limit;
    switch (spec.kind) {
        case search_kind::exhaustive:
            p.search_type = rl::sched_full;
            break;
        case search_kind::bounded:
            p.search_type = rl::sched_bound;
            p.context_bound = spec.bound;
            break;
        case search_kind::sampled:
            p.search_type = rl::sched_random;
            p.iteration_count = static_cast<rl::iteration_t>(spec.samples);
            break;
    }
    if (replay) {
        // "<execution> <scheduler state>": Relacy starts at that execution with that state and,
        // collecting history from the start, prints it when the execution fails.
        p.initial_state = spec.replay.c_str();
        p.collect_history = true;
    }
    simulate_tasks[prog.tasks - 1](p);
    current = nullptr;
    current_storage = nullptr;
    const bool budget_exhausted = engine::deadline().exhausted;
    engine::deadline() = engine::deadline_state{};

    // A replay has run the execution it names only if it started (and, for a violation, is that
    // execution): anything else must not be reported as a pass.
    if (replay &&
        (counter.executions == 0 || (!counter.cap_hit && p.test_result != rl::test_result_success &&
                                     p.stop_iteration != named)))
        throw std::invalid_argument("the replay did not run the execution it names (" +
                                    std::to_string(named) + ")");

    verdict v;
    v.search = spec;
    v.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    v.executions = p.stop_iteration;
    char buf[160];
    if (budget_exhausted) {
        v.outcome = "inconclusive";
        std::snprintf(buf, sizeof buf, "time budget of %g s exhausted after %llu executions",
                      spec.budget_s, static_cast<unsigned long long>(p.stop_iteration));
        v.detail = buf;
    } else if (counter.cap_hit && replay) {
        v.outcome = "pass";
        v.detail = "the saved execution runs to the end without a violation";
        v.replay = spec.replay;
    } else if (counter.cap_hit) {
        v.outcome = "inconclusive";
        v.executions = spec.execution_cap;  // the next one was stopped before it began
        std::snprintf(buf, sizeof buf, "execution cap of %llu reached",
                      static_cast<unsigned long long>(spec.execution_cap));
        v.detail = buf;
    } else if (p.test_result == rl::test_result_success) {
        v.outcome = "pass";
        if (replay) v.detail = "the saved execution runs to the end without a violation";
    } else {
        const violation_record& r = k.violation();
        v.outcome = r.set ? r.cls : relacy_outcome(p.test_result);
        v.detail = r.set ? std::string(r.msg) : std::string(rl::test_result_str(p.test_result));
        std::map<std::string, int> names;  // as the trace names them: its header names them first
        v.detail = model::detail::name_addresses(v.detail, names);
        v.trace = model::detail::clean_relacy_trace(std::string(out.str().c_str()),
                                                    KVERIFY_SOURCE_DIR, spec.raw_trace);
        v.replay = replay ? spec.replay : std::string(p.final_state.c_str());
    }
    return v;
}

}  // namespace eng_relacy
}  // namespace kverify::model
