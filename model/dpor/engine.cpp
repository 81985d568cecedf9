// SPDX-License-Identifier: GPL-2.0-only
// The dpor engine: exploration (TruSt-style optimal DPOR with forward and backward revisits),
// replay of the program on fibers, incremental RC11 / SC consistency, race and memory checks,
// deadlock and livelock detection, and traces. Design and arguments: model/dpor/README.md.
#include "model/dpor/engine.hpp"

#include <ucontext.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <sstream>
#include <stdexcept>

#include "model/dpor/graph.hpp"

namespace kverify::dpor {

const char* to_string(mo o) {
    switch (o) {
        case mo::plain:
            return "plain";
        case mo::relaxed:
            return "relaxed";
        case mo::acquire:
            return "acquire";
        case mo::release:
            return "release";
        case mo::acq_rel:
            return "acq_rel";
        case mo::seq_cst:
            return "seq_cst";
    }
    return "?";
}

const char* to_string(memory_model m) { return m == memory_model::rc11 ? "rc11" : "sc"; }

bool parse_memory_model(const std::string& s, memory_model& out) {
    if (s == "rc11")
        out = memory_model::rc11;
    else if (s == "sc")
        out = memory_model::sc;
    else
        return false;
    return true;
}

namespace detail {
namespace {

using clock_type = std::chrono::steady_clock;

// A prefix of every thread: c[t] graph events of thread t (porf prefixes).
struct vclock {
    std::array<std::uint32_t, max_threads> c{};
    void join(const vclock& o) {
        for (unsigned k = 0; k < max_threads; ++k) c[k] = std::max(c[k], o.c[k]);
    }
    bool covers(eid e) const { return c[e.t] > e.i; }
};

// A happens-before clock at twice the resolution, so that it can also cover the plain accesses
// a thread makes between two graph events (they are not graph events): c[t] = 2k covers the
// first k graph events of t; 2k + 1 also the plain accesses after the k-th (what a spawn or join
// passes on). A graph event with index i sets its own component to 2i + 2.
struct hclock : vclock {
    bool covers(eid e) const { return c[e.t] > 2 * e.i + 1; }
    // Position `pos` of thread t: 2i + 2 for its graph event i, 2k + 1 for a plain access made
    // after k graph events.
    bool covers_pos(unsigned t, std::int64_t pos) const { return std::int64_t(c[t]) >= pos; }
    void stamp(eid e) { c[e.t] = 2 * e.i + 2; }
};

// Per-event data of one execution, recomputed by every run of the program.
struct ev_rt {
    hclock hb;    // happens-before prefix, the event itself included
    vclock porf;  // (po | rf | spawn | join)* prefix, the event itself included
    hclock msg;   // writes: what an acquire reading this write synchronises with
    bool done = false;
};

enum class ts : std::uint8_t {
    idle,       // not spawned yet
    ready,      // may run
    wait_rf,    // replay: its next read's write has not run yet
    frontier,   // replay: its next operation is new; waits for the live phase
    join_wait,  // harness: waits for every task to end
    blocked,    // assume(false): stopped for good
    finished,
};

// An alternative left to explore, kept at the stamp of the event it changes.
struct item {
    enum kind_t : std::uint8_t { fwd_read, fwd_co, fwd_choice, bwd } kind = fwd_read;
    std::uint32_t stamp = 0;
    eid e;  // the read / write / choice it changes (bwd: the revisited read)
    eid w;  // fwd_read: the new write read; fwd_co: the new co predecessor; bwd: the write
    std::uint32_t choice = 0;
    std::vector<std::uint32_t> keep;     // bwd: per-thread prefix kept
    std::vector<std::uint32_t> wprefix;  // bwd: per-thread length of the write's porf prefix
};

struct context {
    graph g;
    std::vector<item> work;
};

struct alloc_rec {
    std::uintptr_t base;
    std::size_t size;
    bool freed;
    src_loc where;
    unsigned thread;
};

struct access_rec {
    std::int64_t pos = -1;  // the access's clock position (hclock::covers_pos); -1: none
    src_loc where{"", 0, ""};
};

struct loc_rt {
    bool atomic = false;
    std::uint8_t width = 8;
    int alloc = -1;     // the allocation holding it (-1: not engine memory)
    unsigned name = 0;  // for traces: locations numbered in order of construction
    value_t plain_val = 0;
    // Race bookkeeping: per kind of access, the latest one of each thread.
    bool has_plain_write = false;
    unsigned pw_thread = 0;
    access_rec pw;
    std::array<access_rec, max_threads> plain_read{}, atomic_access{}, atomic_write{};
    std::vector<eid> readers;  // atomic reads run so far (revisit candidates)
};

constexpr std::size_t stack_size = 512 * 1024;
constexpr std::size_t arena_size = 8 * 1024 * 1024;

struct thread_rt {
    ts state = ts::idle;
    bool started = false;
    std::uint32_t next = 0;  // graph events run so far
    hclock hb, start_hb, acq_pending, rel_fence;
    vclock porf;
    std::vector<std::pair<std::uintptr_t, hclock>> rel_write;  // last release write per location
    eid waiting;                                               // wait_rf: the write awaited
    std::vector<eid> awaited;  // reads since the last write: what a blocked thread waits on
    // Spin loops: the values read (and choices taken) in the current and the previous iteration
    // (iterations end at spin_iteration; a write starts afresh).
    std::vector<std::pair<std::uintptr_t, value_t>> seg_cur, seg_prev;
    bool spun = false;  // a spin_iteration happened since the last write
    const char* block_reason = "";
    src_loc block_where{"", 0, ""};
    ucontext_t ctx{};
    char* stack = nullptr;
    char* arena = nullptr;
    std::size_t arena_used = 0;
};

class explorer;
explorer* current = nullptr;

class explorer {
public:
    explorer(const program& p, const options& o) : prog_(p), opt_(o) {
        if (p.tasks == 0 || p.tasks + 1 > max_threads)
            throw std::invalid_argument("dpor: a program has 1 to " +
                                        std::to_string(max_threads - 1) + " tasks");
        nthreads_ = p.tasks + 1;
        for (unsigned t = 0; t < nthreads_; ++t) {
            stacks_.emplace_back(new char[stack_size]);
            arenas_.emplace_back(new char[arena_size]);
        }
    }

    result run();

    // ----- program-side operations (on the program's fibers) -----
    unsigned thread() const { return cur_; }
    bool tracing() const { return tracing_; }
    void init_atomic(void* loc, unsigned width, value_t v, src_loc where);
    value_t load(const void* loc, mo order, src_loc where);
    void store(void* loc, value_t v, mo order, src_loc where);
    value_t rmw(void* loc, rmw_op op, value_t a, value_t b, mo order, mo fail_order, src_loc where,
                bool& ok, bool full = false);
    void fence(mo order, src_loc where);
    void init_plain(void* loc, unsigned width, value_t v, src_loc where);
    value_t plain_load(const void* loc, src_loc where);
    void plain_store(void* loc, value_t v, src_loc where);
    value_t peek(const void* loc);
    unsigned choose(unsigned n, src_loc where);
    [[noreturn]] void block(const char* reason, src_loc where);
    void spin_iteration(src_loc where);
    [[noreturn]] void fail(const char* cls, const std::string& msg, src_loc where);
    void note(const std::string& text, src_loc where);
    void* alloc(std::size_t bytes, src_loc where);
    void dealloc(void* p, src_loc where);

    static void fiber_entry();

private:
    // ----- exploration -----
    void apply(std::size_t ci, item it);
    void run_execution(std::size_t ci);
    bool consistent_before_run(const graph& gr) const;
    void compute_views();
    void end_of_replay();
    void finish_execution();
    void calc_revisits(eid w);
    bool maximal_extension(eid r, eid w, const std::vector<std::uint32_t>& keep) const;
    std::size_t frontier(std::uintptr_t loc, const hclock& pre, const std::vector<char>* reach,
                         const std::vector<std::uint32_t>* keep) const;
    void complete_rmw(graph& gr, eid r);
    bool psc_acyclic() const;
    hclock acquired_before(eid e) const;
    static bool sc_acyclic(const graph& gr);
    std::vector<char> sc_reaching(eid e) const;

    // ----- one run of the program -----
    void reset_execution();
    void schedule();
    void thread_body(unsigned t);
    void suspend() { swapcontext(&th_[cur_].ctx, &sched_ctx_); }
    [[noreturn]] void leave_fiber();
    void spawn_tasks();
    eid next_event(ek kind, std::uintptr_t loc, src_loc where, bool& replay);
    std::size_t coherence_frontier(eid id, std::uintptr_t loc, const hclock& pre) const;
    template <class Branch>
    void add_read(event& e, eid id, std::size_t lo, Branch branch);
    void await_rf(eid w);
    void exec_read(eid r);
    void exec_write(eid w);
    void exec_other(eid e);
    void replayed_one() {
        if (replaying_ && --replay_left_ == 0) end_of_replay();
        if (opt_.after_event) opt_.after_event();
    }
    eid add_event(unsigned t, event e);
    void partial_co_insert(std::uintptr_t a, eid w);
    loc_rt& loc_of(const void* p, src_loc where);
    void race_check(loc_rt& l, const hclock& vc, std::int64_t pos, bool write, bool plain,
                    src_loc where);
    void tick(src_loc where);
    [[noreturn]] void internal_error(const std::string& msg);
    std::string thread_dump(unsigned t) const;

    // ----- traces and replay strings -----
    void trace_event(eid e);
    void trace_text(const std::string& s, src_loc where);
    std::string ctx_label(unsigned t) const;
    std::string loc_name(std::uintptr_t a) const;
    std::string encode_replay(const graph& gr) const;
    bool decode_replay(const std::string& s, graph& gr) const;
    void report(const std::string& cls, const std::string& msg, src_loc where);

    graph& g() { return stack_[ci_].g; }
    const graph& g() const { return stack_[ci_].g; }
    event& ev(eid e) { return g().at(e); }
    const event& ev(eid e) const { return g().at(e); }
    ev_rt& rt(eid e) { return rt_[e.t][e.i]; }
    const ev_rt& rt(eid e) const { return rt_[e.t][e.i]; }
    bool hb(eid a, eid b) const { return a != b && rt(b).hb.covers(a); }
    bool is_done(eid e) const { return e.i < rt_[e.t].size() && rt_[e.t][e.i].done; }

    const program& prog_;
    const options& opt_;
    unsigned nthreads_ = 0;
    std::vector<std::unique_ptr<char[]>> stacks_, arenas_;

    std::vector<context> stack_;
    std::size_t ci_ = 0;
    result res_;
    clock_type::time_point start_;
    bool stop_all_ = false;
    std::string internal_msg_;

    // per run of the program
    std::vector<thread_rt> th_;
    std::vector<std::vector<ev_rt>> rt_;
    std::unordered_map<std::uintptr_t, loc_rt> locs_;
    std::vector<alloc_rec> allocs_;
    ucontext_t sched_ctx_{};
    unsigned cur_ = 0;
    bool in_fiber_ = false;
    bool replaying_ = false;
    bool violated_ = false;
    bool discard_ = false;  // the graph turned out inconsistent, or the run was cut
    std::uint32_t events_ = 0;
    std::size_t replay_left_ = 0;  // graph events not yet run in this run
    std::uint32_t tick_ = 0;
    unsigned next_loc_name_ = 0;
    std::vector<eid> post_replay_writes_;  // their revisits are computed when the replay is done
    std::string viol_cls_, viol_msg_;
    src_loc viol_where_{"", 0, ""};
    std::map<std::string, bool> seen_classes_;

    bool tracing_ = false;
    std::string trace_;
    unsigned trace_n_ = 0;
    std::map<std::pair<unsigned, std::uint32_t>, unsigned> trace_no_;
};

// ---------------------------------------------------------------------------------------------
// Fibers and the harness

void explorer::fiber_entry() {
    explorer* x = current;
    const unsigned t = x->cur_;
    x->thread_body(t);
    x->th_[t].state = ts::finished;
    x->leave_fiber();
}

void explorer::leave_fiber() {
    in_fiber_ = false;
    setcontext(&sched_ctx_);
    std::abort();  // not reached
}

void explorer::thread_body(unsigned t) {
    if (t != 0) {
        if (prog_.task) prog_.task(t - 1);
        return;
    }
    if (prog_.setup) prog_.setup();
    if (g().spawn_at == UINT32_MAX)
        g().spawn_at = th_[0].next;
    else if (g().spawn_at != th_[0].next)
        internal_error("the harness spawned its tasks at another point of the replayed graph");
    spawn_tasks();
    th_[0].state = ts::join_wait;
    suspend();
    for (unsigned u = 1; u < nthreads_; ++u) {  // join: everything the tasks did happens before
        th_[0].hb.join(th_[u].hb);
        th_[0].hb.c[u] = std::max(th_[0].hb.c[u], 2 * th_[u].next + 1);
        th_[0].porf.join(th_[u].porf);
    }
    if (prog_.teardown) prog_.teardown();
}

void explorer::spawn_tasks() {
    for (unsigned t = 1; t < nthreads_; ++t) {
        th_[t].state = ts::ready;
        th_[t].hb = th_[0].hb;  // spawn: the harness's prefix happens before each task
        th_[t].hb.c[0] = 2 * th_[0].next + 1;
        th_[t].porf = th_[0].porf;
        th_[t].start_hb = th_[t].hb;
    }
}

// ---------------------------------------------------------------------------------------------
// Exploration

result explorer::run() {
    start_ = clock_type::now();
    current = this;
    stack_.assign(1, context{});
    stack_[0].g.th.resize(nthreads_);
    if (!opt_.replay.empty()) {
        if (!decode_replay(opt_.replay, stack_[0].g))
            throw std::invalid_argument("dpor: malformed replay string");
        run_execution(0);
    } else {
        run_execution(0);
        while (!stack_.empty() && !stop_all_) {
            const std::size_t ci = stack_.size() - 1;
            if (stack_[ci].work.empty()) {
                stack_.pop_back();
                continue;
            }
            item it = std::move(stack_[ci].work.back());
            stack_[ci].work.pop_back();
            apply(ci, std::move(it));
        }
    }
    current = nullptr;
    if (!internal_msg_.empty()) throw std::logic_error("dpor: " + internal_msg_);
    res_.seconds = std::chrono::duration<double>(clock_type::now() - start_).count();
    return res_;
}

// The write half of an RMW whose read half now reads a value that makes it succeed goes right
// after that write in coherence order. If another RMW already reads that write, the graph breaks
// atomicity: apply() then only computes the revisits of the new write half (one of them makes the
// other RMW read it, which is how that consistent graph is reached) and drops the graph.
void explorer::complete_rmw(graph& gr, eid r) {
    event& re = gr.at(r);
    if (!re.rmw_succeeds()) return;
    auto& list = gr.co.at(re.loc);
    const auto nxt = std::find(list.begin(), list.end(), re.rf) + 1;
    event w;
    w.kind = ek::write;
    w.order = re.order;
    w.rmw = re.rmw;
    w.full = re.full;
    w.width = re.width;
    w.loc = re.loc;
    w.val = re.rmw_result(re.val);
    w.stamp = gr.next_stamp++;
    w.where = re.where;
    const eid we{r.t, r.i + 1};
    gr.th[r.t].push_back(w);
    list.insert(nxt, we);
    post_replay_writes_.push_back(we);
}

void explorer::apply(std::size_t ci, item it) {
    post_replay_writes_.clear();
    graph& gr = stack_[ci].g;
    switch (it.kind) {
        case item::fwd_read: {
            gr.cut_to_stamp(it.stamp);
            event& r = gr.at(it.e);
            r.rf = it.w;
            r.val = gr.at(it.w).val;
            r.added_max = false;
            r.ipr = false;
            complete_rmw(gr, it.e);
            break;
        }
        case item::fwd_choice: {
            gr.cut_to_stamp(it.stamp);
            event& c = gr.at(it.e);
            c.val = it.choice;
            c.added_max = false;
            break;
        }
        case item::fwd_co: {
            gr.cut_to_stamp(it.stamp);
            auto& list = gr.co.at(gr.at(it.e).loc);
            list.erase(std::find(list.begin(), list.end(), it.e));
            list.insert(std::find(list.begin(), list.end(), it.w) + 1, it.e);
            gr.at(it.e).added_max = false;
            post_replay_writes_.push_back(it.e);
            break;
        }
        case item::bwd: {
            gr.cut_to_stamp(it.stamp);
            context nc;
            nc.g = gr;
            graph& ng = nc.g;
            ng.cut_to_prefix(it.keep);
            event& r = ng.at(it.e);
            r.rf = it.w;
            r.val = ng.at(it.w).val;
            r.added_max = ng.co_max(r.loc) == it.w;
            r.ipr = false;
            // The write's prefix is frozen from here on: its reads are never revisited again in
            // this branch (the graphs that would give are explored from the parent).
            for (unsigned t = 0; t < ng.th.size(); ++t)
                for (std::uint32_t i = 0; i < it.wprefix[t] && i < ng.th[t].size(); ++i)
                    ng.th[t][i].revisitable = false;
            // A kept read whose write was deleted can only be the last event of its thread
            // (what follows it was added later): it reads the newest write, as if added now.
            for (unsigned t = 0; t < ng.th.size(); ++t)
                for (std::uint32_t i = 0; i < ng.th[t].size(); ++i) {
                    event& e = ng.th[t][i];
                    if (!e.is_read() || e.rf.i < ng.th[e.rf.t].size()) continue;
                    if (i + 1 != ng.th[t].size())
                        internal_error("a kept read lost its write in the middle of a thread");
                    e.rf = ng.co_max(e.loc);
                    e.val = ng.at(e.rf).val;
                    e.added_max = true;
                    e.ipr = ng.at(e.rf).stamp > e.stamp;
                    complete_rmw(ng, eid{std::uint16_t(t), i});
                }
            complete_rmw(ng, it.e);
            stack_.push_back(std::move(nc));
            ci = stack_.size() - 1;
            break;
        }
    }
    if (consistent_before_run(stack_[ci].g)) {
        run_execution(ci);
        return;
    }
    // An RMW completed after a revisit breaks atomicity: this graph is inconsistent and is not
    // explored, but the revisits of its new write half are (one of them makes the other RMW read
    // the new write: that is how the consistent graph is reached). The program is not run on an
    // inconsistent graph (its own invariants, e.g. a CPU token, would not hold): the views the
    // revisits need are computed from the graph alone.
    ci_ = ci;
    reset_execution();
    compute_views();
    const std::vector<eid> writes = std::move(post_replay_writes_);
    post_replay_writes_.clear();
    for (eid w : writes) calc_revisits(w);
}

// The happens-before and porf views of every event of the current graph, and the readers of each
// location, from the graph alone (what running the program computes in exec_read/write/other),
// in an order that respects po | rf | spawn | join.
void explorer::compute_views() {
    const graph& gr = g();
    std::vector<std::uint32_t> done(nthreads_, 0);
    bool spawned = gr.spawn_at == 0;
    bool joined = false;
    for (bool progress = true; progress;) {
        progress = false;
        for (unsigned t = 0; t < nthreads_; ++t) {
            thread_rt& x = th_[t];
            while (done[t] < gr.th[t].size()) {
                const eid id{std::uint16_t(t), done[t]};
                if (t != 0 && !spawned) break;
                if (t == 0 && gr.spawn_at != UINT32_MAX && id.i == gr.spawn_at && !joined) {
                    bool all = true;
                    for (unsigned u = 1; u < nthreads_; ++u)
                        all = all && done[u] == gr.th[u].size();
                    if (!all) break;
                    for (unsigned u = 1; u < nthreads_; ++u) {
                        x.hb.join(th_[u].hb);
                        x.hb.c[u] = std::max(x.hb.c[u], 2 * done[u] + 1);
                        x.porf.join(th_[u].porf);
                    }
                    joined = true;
                }
                const event& e = gr.at(id);
                if (e.is_read() && !is_done(e.rf)) break;
                if (e.fenced() && e.is_read()) {
                    x.hb.join(x.acq_pending);
                    x.rel_fence = x.hb;
                }
                ev_rt& d = rt(id);
                d.hb = x.hb;
                d.hb.stamp(id);
                d.porf = x.porf;
                d.porf.c[t] = id.i + 1;
                if (e.is_read()) {
                    const ev_rt& w = rt(e.rf);
                    if (is_acquire(e.read_order()))
                        d.hb.join(w.msg);
                    else
                        x.acq_pending.join(w.msg);
                    d.porf.join(w.porf);
                    locs_[e.loc].readers.push_back(id);
                } else if (e.is_write() && !e.init) {
                    d.msg = is_release(e.order) ? d.hb : x.rel_fence;
                    for (auto& p : x.rel_write)
                        if (p.first == e.loc) d.msg.join(p.second);
                    if (e.rmw != rmw_op::none) d.msg.join(rt(gr.at(eid{id.t, id.i - 1}).rf).msg);
                    if (is_release(e.order)) {
                        bool found = false;
                        for (auto& p : x.rel_write)
                            if (p.first == e.loc) {
                                p.second = d.hb;
                                found = true;
                            }
                        if (!found) x.rel_write.emplace_back(e.loc, d.hb);
                    }
                } else if (e.kind == ek::fence) {
                    if (is_acquire(e.order)) d.hb.join(x.acq_pending);
                    if (is_release(e.order)) x.rel_fence = d.hb;
                }
                if (e.is_write()) locs_[e.loc];  // the location is known
                d.done = true;
                x.hb = d.hb;
                x.porf = d.porf;
                x.next = id.i + 1;
                if (e.fenced() && e.is_write()) {
                    x.hb.join(x.acq_pending);
                    x.rel_fence = x.hb;
                }
                ++done[t];
                progress = true;
                if (t == 0 && !spawned && gr.spawn_at != UINT32_MAX && done[0] == gr.spawn_at) {
                    spawned = true;
                    for (unsigned u = 1; u < nthreads_; ++u) {
                        th_[u].hb = x.hb;
                        th_[u].hb.c[0] = 2 * done[0] + 1;
                        th_[u].porf = x.porf;
                        th_[u].start_hb = th_[u].hb;
                    }
                }
            }
        }
    }
    for (unsigned t = 0; t < nthreads_; ++t)
        if (done[t] != gr.th[t].size())
            internal_error("the views of a graph could not be computed (a cycle in po | rf)");
}

// What an alternative's graph can break that the candidate checks did not cover: the atomicity of
// an RMW completed after its read changed (and, under SC, the acyclicity that comes with it).
bool explorer::consistent_before_run(const graph& gr) const {
    for (const auto& kv : gr.co)
        for (std::size_t k = 1; k < kv.second.size(); ++k) {
            const eid w = kv.second[k];
            const event& e = gr.at(w);
            if (e.rmw != rmw_op::none && gr.at(eid{w.t, w.i - 1}).rf != kv.second[k - 1])
                return false;
        }
    return opt_.model != memory_model::sc || sc_acyclic(gr);
}

void explorer::run_execution(std::size_t ci) {
    ci_ = ci;
    reset_execution();
    ++res_.replays;
    schedule();
    if (!internal_msg_.empty()) {
        stop_all_ = true;
        return;
    }
    finish_execution();
}

void explorer::reset_execution() {
    th_.assign(nthreads_, thread_rt{});
    for (unsigned t = 0; t < nthreads_; ++t) {
        th_[t].stack = stacks_[t].get();
        th_[t].arena = arenas_[t].get();
    }
    th_[0].state = ts::ready;
    rt_.assign(nthreads_, {});
    for (unsigned t = 0; t < nthreads_; ++t) rt_[t].assign(g().th[t].size(), ev_rt{});
    locs_.clear();
    allocs_.clear();
    replay_left_ = g().size();
    replaying_ = replay_left_ > 0;
    violated_ = false;
    discard_ = false;
    events_ = 0;
    next_loc_name_ = 0;
    trace_.clear();
    trace_n_ = 0;
    trace_no_.clear();
}

void explorer::schedule() {
    for (;;) {
        if (violated_ || discard_ || !internal_msg_.empty()) return;
        int pick = -1;
        for (unsigned t = 0; t < nthreads_ && pick < 0; ++t) {
            const thread_rt& x = th_[t];
            switch (x.state) {
                case ts::ready:
                    pick = int(t);
                    break;
                case ts::wait_rf:
                    if (is_done(x.waiting)) pick = int(t);
                    break;
                case ts::frontier:
                    if (!replaying_) pick = int(t);
                    break;
                case ts::join_wait: {
                    bool all = true;
                    for (unsigned u = 1; u < nthreads_; ++u) all &= th_[u].state == ts::finished;
                    if (all) pick = int(t);
                    break;
                }
                default:
                    break;
            }
        }
        if (pick < 0) {
            if (replaying_)
                internal_error(
                    "the run stopped before the end of the graph (the program does not "
                    "behave the same for the same graph: does it read shared state "
                    "outside the engine?)");
            return;
        }
        const unsigned t = unsigned(pick);
        thread_rt& x = th_[t];
        x.state = ts::ready;
        cur_ = t;
        if (!x.started) {
            x.started = true;
            getcontext(&x.ctx);
            x.ctx.uc_stack.ss_sp = x.stack;
            x.ctx.uc_stack.ss_size = stack_size;
            x.ctx.uc_link = &sched_ctx_;
            makecontext(&x.ctx, fiber_entry, 0);
        }
        in_fiber_ = true;
        swapcontext(&sched_ctx_, &x.ctx);
        in_fiber_ = false;
    }
}

// Every event of the graph has run. Check what an alternative may have broken and the candidate
// checks could not see (RC11's psc), compute the revisits of a write whose place changed, and let
// the live phase begin.
// Runs on the fiber that ran the graph's last event, before any more of the program runs.
void explorer::end_of_replay() {
    replaying_ = false;
    g().partial = false;
    if ((opt_.model == memory_model::sc && !sc_acyclic(g())) ||
        (opt_.model == memory_model::rc11 && !psc_acyclic())) {
        discard_ = true;
        leave_fiber();
    }
    const std::vector<eid> writes = std::move(post_replay_writes_);
    post_replay_writes_.clear();
    for (eid w : writes) calc_revisits(w);
}

void explorer::finish_execution() {
    if (discard_) return;
    if (violated_) {
        report(viol_cls_, viol_msg_, viol_where_);
        return;
    }
    bool all_done = true;
    for (unsigned t = 0; t < nthreads_; ++t) all_done &= th_[t].state == ts::finished;
    if (all_done) {
        for (const alloc_rec& a : allocs_)
            if (!a.freed) {
                char buf[160];
                std::snprintf(buf, sizeof buf, "%zu bytes allocated by thread %u never freed",
                              a.size, a.thread);
                report("leak", buf, a.where);
                return;
            }
        ++res_.executions;
        if (opt_.collect_graphs) res_.graphs.push_back(g().canonical());
    } else {
        // A thread blocked on reads of the newest values can never be woken, since every other
        // thread is done or blocked: a deadlock (lock, wait) or a livelock (spin). Only when
        // every blocked thread is such a waiter: a thread cut by an assume (or a waiter on a
        // value that is not the newest) marks an execution that another one covers.
        int stuck_thread = -1;
        bool all_stuck = true;
        for (unsigned t = 0; t < nthreads_; ++t) {
            const thread_rt& x = th_[t];
            if (x.state != ts::blocked && x.state != ts::finished && x.state != ts::join_wait &&
                x.state != ts::idle)
                internal_error("an execution ended with thread " + std::to_string(t) +
                               " neither finished nor blocked");
            if (x.state != ts::blocked) continue;
            const bool waits = std::strcmp(x.block_reason, "spin") == 0 ||
                               std::strcmp(x.block_reason, "lock") == 0 ||
                               std::strcmp(x.block_reason, "wait") == 0;
            bool stuck = waits && !x.awaited.empty();
            for (eid r : x.awaited) stuck = stuck && ev(r).rf == g().co_max(ev(r).loc);
            all_stuck = all_stuck && stuck;
            if (stuck && stuck_thread < 0) stuck_thread = int(t);
        }
        if (all_stuck && stuck_thread >= 0) {
            const thread_rt& x = th_[unsigned(stuck_thread)];
            const bool spin = std::strcmp(x.block_reason, "spin") == 0;
            report(spin ? "livelock" : "deadlock",
                   "[" + ctx_label(unsigned(stuck_thread)) + "] waits (" + x.block_reason +
                       ") on values no other thread will change",
                   x.block_where);
            return;
        }
        ++res_.blocked;
        if (opt_.collect_graphs) res_.blocked_graphs.push_back(g().canonical());
    }
    const std::uint64_t n = res_.executions + res_.blocked;
    if (opt_.progress && (n & 1023u) == 0) opt_.progress(res_.executions, res_.blocked);
    if (opt_.max_executions && n >= opt_.max_executions) {
        res_.complete = false;
        res_.incomplete_reason = "execution limit of " + std::to_string(opt_.max_executions);
        stop_all_ = true;
    }
}

// A trace of thousands of events (an event limit) keeps its start and its end.
std::string shorten(const std::string& trace) {
    constexpr std::size_t head = 100, tail = 300;
    std::vector<std::size_t> starts{0};
    for (std::size_t k = 0; k + 1 < trace.size(); ++k)
        if (trace[k] == '\n') starts.push_back(k + 1);
    if (starts.size() <= head + tail + 1) return trace;
    return trace.substr(0, starts[head]) + "... (" + std::to_string(starts.size() - head - tail) +
           " lines omitted)\n" + trace.substr(starts[starts.size() - tail]);
}

void explorer::report(const std::string& cls, const std::string& msg, src_loc where) {
    if (!opt_.stop_class.empty()) {
        if (cls != opt_.stop_class) return;  // looking for one class only
        stop_all_ = true;
    } else if (!opt_.all_violations) {
        stop_all_ = true;
    }
    if (seen_classes_.count(cls)) return;
    seen_classes_[cls] = true;
    violation v;
    v.cls = cls;
    v.message = msg;
    v.where = where;
    v.at_execution = res_.executions + res_.blocked + 1;
    v.replay = encode_replay(g());
    if (opt_.trace && !tracing_) {
        // Run the same graph once more with the trace on: the same events, in the same order.
        const std::size_t saved_ci = ci_;
        stack_.push_back(context{g(), {}});
        ci_ = stack_.size() - 1;
        tracing_ = true;
        const bool cut = viol_cls_ == cls && violated_;
        reset_execution();
        schedule();
        tracing_ = false;
        if (cut && !violated_)
            trace_ +=
                "(the trace run did not reproduce the violation: the program depends on "
                "state the graph does not record)\n";
        v.trace = shorten(trace_);
        stack_.pop_back();
        ci_ = saved_ci;
    }
    res_.violations.push_back(std::move(v));
}

// Writes `w` may be read by reads already in the graph: each such read that is not in w's
// causal prefix, reads w consistently, and whose deletions are maximal extensions gives a
// backward revisit (see README: TruSt's condition that makes every graph come from one place).
void explorer::calc_revisits(eid w) {
    const event& we = ev(w);
    if (we.init) return;
    const loc_rt& l = locs_.at(we.loc);
    const vclock& pw = rt(w).porf;
    std::vector<eid> readers = l.readers;
    for (eid r : readers) {
        if (pw.covers(r)) continue;  // in w's prefix (w's own RMW read half included)
        const event& re = ev(r);
        if (!re.revisitable) continue;
        std::vector<std::uint32_t> keep(nthreads_);
        for (unsigned t = 0; t < nthreads_; ++t)
            keep[t] = std::max(g().prefix_len(t, re.stamp), pw.c[t]);
        // Consistency of r reading w in the revisited graph.
        if (opt_.model == memory_model::rc11) {
            hclock pre = r.i > 0 ? rt(eid{r.t, r.i - 1}).hb : th_[r.t].start_hb;
            event probe = re;
            probe.val = we.val;
            if (probe.fenced()) pre.join(acquired_before(r));  // its leading seq_cst fence
            if (g().co_index(w) < frontier(we.loc, pre, nullptr, &keep)) continue;
        }
        // Atomicity: w itself may be an RMW write half placed after a write another RMW reads
        // (see complete_rmw); a revisit is consistent only if it deletes one of the two.
        if (we.rmw != rmw_op::none) {
            const eid wr = ev(eid{w.t, w.i - 1}).rf;
            bool clash = false;
            for (const auto& t : g().th)
                for (std::uint32_t i = 1; i < t.size(); ++i) {
                    const event& x = t[i];
                    const eid xe{std::uint16_t(&t - g().th.data()), i};
                    if (xe == w || !x.is_write() || x.rmw == rmw_op::none || xe.i >= keep[xe.t])
                        continue;
                    if (t[i - 1].rf == wr && !(xe.t == r.t && xe.i - 1 == r.i)) clash = true;
                }
            if (clash) continue;
        }
        if (!maximal_extension(r, w, keep)) continue;
        if (opt_.model == memory_model::sc) {
            graph ng = g();
            ng.cut_to_prefix(keep);
            ng.at(r).rf = w;
            ng.at(r).val = we.val;
            if (!sc_acyclic(ng)) continue;
        }
        item it;
        it.kind = item::bwd;
        it.stamp = we.stamp;
        it.e = r;
        it.w = w;
        it.keep = std::move(keep);
        it.wprefix.assign(pw.c.begin(), pw.c.begin() + nthreads_);
        stack_[ci_].work.push_back(std::move(it));
    }
}

bool explorer::maximal_extension(eid r, eid w, const std::vector<std::uint32_t>& keep) const {
    auto kept = [&](eid e) { return e.i < keep[e.t]; };
    const event& we = ev(w);
    if (we.rmw == rmw_op::none) {
        const eid s = g().co_next(w);
        if (s.valid() && !kept(s)) return false;  // w's place must survive the deletion
    }
    auto check = [&](eid x) {
        const event& e = ev(x);
        if (!e.added_max) return false;
        if (e.is_access()) {
            const eid wr = e.is_read() ? e.rf : x;
            const auto& list = g().co.at(e.loc);
            for (std::size_t k = g().co_index(wr) + 1; k < list.size(); ++k)
                if (list[k] != w && kept(list[k])) return false;
        }
        if (e.is_read() && !e.ipr && !kept(e.rf) && ev(e.rf).stamp > e.stamp) return false;
        return true;
    };
    if (!check(r)) return false;
    for (unsigned t = 0; t < nthreads_; ++t)
        for (std::uint32_t i = keep[t]; i < g().th[t].size(); ++i)
            if (!check(eid{std::uint16_t(t), i})) return false;
    return true;
}

// The coherence frontier of a new access on `loc`: the latest co position among the writes it
// must not precede (RC11: in its happens-before prefix `pre`, or read by a read there; SC:
// reaching it). Restricted to `keep` when given.
std::size_t explorer::frontier(std::uintptr_t loc, const hclock& pre,
                               const std::vector<char>* reach,
                               const std::vector<std::uint32_t>* keep) const {
    const auto& list = g().co.at(loc);
    auto in = [&](eid e) { return !keep || e.i < (*keep)[e.t]; };
    std::size_t lo = 0;
    if (!reach) {
        for (std::size_t k = 0; k < list.size(); ++k)
            if (in(list[k]) && pre.covers(list[k])) lo = std::max(lo, k);
        for (eid q : locs_.at(loc).readers)
            if (in(q) && pre.covers(q)) lo = std::max(lo, g().co_index(ev(q).rf));
    } else {
        std::size_t idx = 0;
        for (unsigned t = 0; t < nthreads_; ++t)
            for (std::uint32_t i = 0; i < g().th[t].size(); ++i, ++idx) {
                const event& x = g().th[t][i];
                if (!(*reach)[idx] || !x.is_access() || x.loc != loc) continue;
                lo = std::max(lo, g().co_index(x.is_write() ? eid{std::uint16_t(t), i} : x.rf));
            }
    }
    return lo;
}

// SC: the events from which a new event of thread e.t at index e.i is reachable through
// po | rf | co | fr | spawn | join, one flag per event in thread-major order.
std::vector<char> explorer::sc_reaching(eid e) const {
    const graph& gr = g();
    std::vector<std::size_t> base(nthreads_ + 1, 0);
    for (unsigned t = 0; t < nthreads_; ++t) base[t + 1] = base[t] + gr.th[t].size();
    std::vector<char> seen(base[nthreads_], 0);
    std::vector<eid> work;
    auto push = [&](eid x) {
        if (!x.valid() || x.i >= gr.th[x.t].size()) return;
        char& s = seen[base[x.t] + x.i];
        if (!s) {
            s = 1;
            work.push_back(x);
        }
    };
    // Predecessors of position (t, i) by program order, spawn and join.
    auto push_po_preds = [&](unsigned t, std::uint32_t i) {
        if (i > 0)
            push(eid{std::uint16_t(t), i - 1});
        else if (t != 0 && gr.spawn_at != UINT32_MAX && gr.spawn_at > 0)
            push(eid{0, gr.spawn_at - 1});
        if (t == 0 && gr.spawn_at != UINT32_MAX && i == gr.spawn_at)
            for (unsigned u = 1; u < nthreads_; ++u)
                if (!gr.th[u].empty())
                    push(eid{std::uint16_t(u), std::uint32_t(gr.th[u].size() - 1)});
    };
    push_po_preds(e.t, e.i);
    while (!work.empty()) {
        const eid x = work.back();
        work.pop_back();
        const event& ex = gr.at(x);
        push_po_preds(x.t, x.i);
        if (ex.is_read()) push(ex.rf);
        if (ex.is_write()) {
            const auto& list = gr.co.at(ex.loc);
            const std::size_t k = gr.co_index(x);
            if (k > 0) {
                push(list[k - 1]);
                for (eid q : locs_.at(ex.loc).readers)  // fr: readers of the co-predecessor
                    if (gr.at(q).rf == list[k - 1]) push(q);
            }
        }
    }
    return seen;
}

// What the relaxed reads of e's thread before e acquire when an acquire fence follows them: the
// views of the writes they read (the thread's pending acquire at e).
hclock explorer::acquired_before(eid e) const {
    hclock v;
    for (std::uint32_t i = 0; i < e.i; ++i) {
        const event& x = g().th[e.t][i];
        if (x.is_read() && !is_acquire(x.read_order()) && is_done(x.rf)) v.join(rt(x.rf).msg);
    }
    return v;
}

// SC consistency of a whole graph: po | rf | co | fr | spawn | join is acyclic.
bool explorer::sc_acyclic(const graph& gr) {
    const unsigned n = unsigned(gr.th.size());
    std::vector<std::size_t> base(n + 1, 0);
    for (unsigned t = 0; t < n; ++t) base[t + 1] = base[t] + gr.th[t].size();
    const std::size_t total = base[n];
    std::vector<std::vector<std::size_t>> succ(total);
    auto id = [&](eid x) { return base[x.t] + x.i; };
    for (unsigned t = 0; t < n; ++t)
        for (std::uint32_t i = 0; i + 1 < gr.th[t].size(); ++i)
            succ[base[t] + i].push_back(base[t] + i + 1);
    if (gr.spawn_at != UINT32_MAX) {
        for (unsigned u = 1; u < n; ++u) {
            if (gr.th[u].empty()) continue;
            if (gr.spawn_at > 0) succ[base[0] + gr.spawn_at - 1].push_back(base[u]);
            if (gr.spawn_at < gr.th[0].size())
                succ[base[u] + gr.th[u].size() - 1].push_back(base[0] + gr.spawn_at);
        }
    }
    for (const auto& kv : gr.co)
        for (std::size_t k = 0; k + 1 < kv.second.size(); ++k)
            succ[id(kv.second[k])].push_back(id(kv.second[k + 1]));
    for (unsigned t = 0; t < n; ++t)
        for (std::uint32_t i = 0; i < gr.th[t].size(); ++i) {
            const event& e = gr.th[t][i];
            if (!e.is_read()) continue;
            succ[id(e.rf)].push_back(base[t] + i);
            const eid nx = gr.co_next(e.rf);
            if (nx.valid()) succ[base[t] + i].push_back(id(nx));
        }
    std::vector<unsigned> indeg(total, 0);
    for (const auto& s : succ)
        for (std::size_t v : s) ++indeg[v];
    std::vector<std::size_t> work;
    for (std::size_t v = 0; v < total; ++v)
        if (indeg[v] == 0) work.push_back(v);
    std::size_t seen = 0;
    while (!work.empty()) {
        const std::size_t v = work.back();
        work.pop_back();
        ++seen;
        for (std::size_t u : succ[v])
            if (--indeg[u] == 0) work.push_back(u);
    }
    return seen == total;
}

// RC11's SC axiom on the run so far: psc (Lahav et al. 2017) is acyclic over the seq_cst events,
//   psc = ([Esc] | [Fsc]; hb?); scb; ([Esc] | hb?; [Fsc])  |  [Fsc]; (hb | hb; eco; hb); [Fsc]
//   scb = po | po|!=loc; hb; po|!=loc | hb|loc | co | fr
// computed from its definition over the events run so far. SC events confined to one thread
// cannot form a cycle (a cycle needs an edge back against program order), so the usual case of
// the kernel rows (fully ordered cmpxchg in the harness only) costs nothing.
bool explorer::psc_acyclic() const {
    // The nodes: every event run so far (but choices and blocks), and the two seq_cst fences of
    // each successful fully ordered cas (kernel try_cmpxchg: fence; cas; fence), which exist only
    // when it succeeds and are not graph events. A node has a thread, a place in program order
    // (pos: 2i for event i, 2i - 1 for a fence right before it, 2i + 1 for one right after it),
    // the happens-before position others must cover to have it before them (cover), and its own
    // happens-before clock.
    struct node {
        eid e;    // the event, or the event the virtual fence is attached to
        int pos;  // program order within the thread
        std::int64_t cover;
        hclock vc;  // what happens before it (itself included for events)
        bool fence, sc;
    };
    std::vector<node> nodes;
    unsigned sc_threads = 0;
    for (unsigned t = 0; t < nthreads_; ++t) {
        bool any = false;
        for (std::uint32_t i = 0; i < g().th[t].size(); ++i) {
            const eid x{std::uint16_t(t), i};
            if (!is_done(x)) break;
            const event& e = ev(x);
            if (e.kind == ek::choice || e.kind == ek::block) continue;
            if (e.fenced() && e.is_read()) {  // the fence before the read half
                hclock v = i > 0 ? rt(eid{x.t, i - 1}).hb : th_[t].start_hb;
                v.join(acquired_before(x));
                nodes.push_back(node{x, 2 * int(i) - 1, 2 * std::int64_t(i) + 1, v, true, true});
            }
            nodes.push_back(node{x, 2 * int(i), 2 * std::int64_t(i) + 2, rt(x).hb,
                                 e.kind == ek::fence, e.is_sc()});
            if (e.fenced() && e.is_write()) {  // the fence after the write half
                hclock v = rt(x).hb;
                v.join(acquired_before(x));
                nodes.push_back(node{x, 2 * int(i) + 1, 2 * std::int64_t(i) + 3, v, true, true});
            }
            any = any || e.is_sc() || e.fenced();
        }
        sc_threads += any;
    }
    if (sc_threads < 2) return true;
    const std::size_t n = nodes.size();
    auto is_access = [&](std::size_t k) { return !nodes[k].fence && ev(nodes[k].e).is_access(); };
    auto is_fence = [&](std::size_t k) { return nodes[k].fence; };
    // rank: a write at co position p is 2p, a read of it 2p + 1; for accesses to one location,
    // eco(x, y) <=> rank(x) < rank(y).
    std::vector<std::size_t> rank(n, 0);
    for (std::size_t k = 0; k < n; ++k) {
        if (!is_access(k)) continue;
        const event& e = ev(nodes[k].e);
        rank[k] = e.is_write() ? 2 * g().co_index(nodes[k].e) : 2 * g().co_index(e.rf) + 1;
    }
    auto same_loc = [&](std::size_t x, std::size_t y) {
        return is_access(x) && is_access(y) && ev(nodes[x].e).loc == ev(nodes[y].e).loc;
    };
    auto hbk = [&](std::size_t x, std::size_t y) {
        return x != y && std::int64_t(nodes[y].vc.c[nodes[x].e.t]) >= nodes[x].cover;
    };
    auto pok = [&](std::size_t x, std::size_t y) {
        return nodes[x].e.t == nodes[y].e.t && nodes[x].pos < nodes[y].pos;
    };
    // first po-successor at another location, last po-predecessor at another location
    std::vector<long> first_other(n, -1), last_other(n, -1);
    for (std::size_t x = 0; x < n; ++x)
        for (std::size_t c = 0; c < n; ++c) {
            if (pok(x, c) && !same_loc(x, c) &&
                (first_other[x] < 0 || pok(c, std::size_t(first_other[x]))))
                first_other[x] = long(c);
            if (pok(c, x) && !same_loc(c, x) &&
                (last_other[x] < 0 || pok(std::size_t(last_other[x]), c)))
                last_other[x] = long(c);
        }
    auto scb = [&](std::size_t x, std::size_t y) {
        if (x == y) return false;
        if (pok(x, y)) return true;
        if (same_loc(x, y)) {
            if (hbk(x, y)) return true;
            if (ev(nodes[y].e).is_write() && rank[x] < rank[y]) return true;  // co | fr
            return false;
        }
        const long c = first_other[x], d = last_other[y];
        return c >= 0 && d >= 0 && (c == d || hbk(std::size_t(c), std::size_t(d)));
    };
    std::vector<std::size_t> sck;
    for (std::size_t k = 0; k < n; ++k)
        if (nodes[k].sc) sck.push_back(k);
    const std::size_t m = sck.size();
    std::vector<std::vector<char>> edge(m, std::vector<char>(m, 0));
    for (std::size_t i = 0; i < m; ++i)
        for (std::size_t j = 0; j < m; ++j) {
            if (i == j) continue;
            const std::size_t a = sck[i], b = sck[j];
            bool e = false;
            // psc_base: e1 in {a} (and hb-successors of a fence a), e2 in {b} (and hb-predecessors
            // of a fence b), scb(e1, e2).
            for (std::size_t e1 = 0; e1 < n && !e; ++e1) {
                if (!(e1 == a || (is_fence(a) && hbk(a, e1)))) continue;
                for (std::size_t e2 = 0; e2 < n && !e; ++e2)
                    if ((e2 == b || (is_fence(b) && hbk(e2, b))) && scb(e1, e2)) e = true;
            }
            // psc_F: fences, hb | hb; eco; hb
            if (!e && is_fence(a) && is_fence(b)) {
                e = hbk(a, b);
                for (std::size_t x = 0; x < n && !e; ++x) {
                    if (!is_access(x) || !hbk(a, x)) continue;
                    for (std::size_t y = 0; y < n && !e; ++y)
                        if (same_loc(x, y) && rank[x] < rank[y] && hbk(y, b)) e = true;
                }
            }
            edge[i][j] = e;
        }
    std::vector<int> colour(m, 0);
    std::function<bool(std::size_t)> dfs = [&](std::size_t v) {
        colour[v] = 1;
        for (std::size_t u = 0; u < m; ++u) {
            if (!edge[v][u]) continue;
            if (colour[u] == 1) return false;
            if (colour[u] == 0 && !dfs(u)) return false;
        }
        colour[v] = 2;
        return true;
    };
    for (std::size_t v = 0; v < m; ++v)
        if (colour[v] == 0 && !dfs(v)) return false;
    return true;
}

// ---------------------------------------------------------------------------------------------
// One run of the program: events

// The events of thread t as the graph has them (for internal error messages).
std::string explorer::thread_dump(unsigned t) const {
    static const char* const kinds[] = {"read", "write", "fence", "choice", "block"};
    std::string s = "\nthread " + std::to_string(t) + " in the graph:";
    for (std::uint32_t i = 0; i < g().th[t].size(); ++i) {
        const event& e = g().th[t][i];
        s += "\n  " + std::to_string(i) + ": " + kinds[int(e.kind)] + " " + e.where.file + ":" +
             std::to_string(e.where.line) + " " + e.where.func + " val=" + std::to_string(e.val) +
             (e.is_read() ? " rf=" + std::to_string(e.rf.t) + "." + std::to_string(e.rf.i) : "") +
             " stamp=" + std::to_string(e.stamp) +
             (e.kind == ek::block ? std::string(" ") + e.reason : "");
    }
    return s;
}

void explorer::internal_error(const std::string& msg) {
    if (internal_msg_.empty()) internal_msg_ = msg;
    stop_all_ = true;
    discard_ = true;
    if (in_fiber_) leave_fiber();
    throw std::logic_error("dpor: " + msg);
}

void explorer::tick(src_loc where) {
    if (++events_ > opt_.max_events)
        fail("event-limit",
             "an execution ran more than " + std::to_string(opt_.max_events) +
                 " operations (an unbounded loop without cpu_relax?)",
             where);
    if (opt_.budget_s > 0 && (++tick_ & 255u) == 0) {
        const double spent = std::chrono::duration<double>(clock_type::now() - start_).count();
        if (spent > opt_.budget_s) {
            res_.complete = false;
            res_.incomplete_reason = "time budget of " + std::to_string(opt_.budget_s) + " s";
            stop_all_ = true;
            discard_ = true;
            leave_fiber();
        }
    }
}

// The next graph event of the running thread: replayed from the graph, or (after the replay, in
// the order the exploration adds events: the leftmost thread first) a new one.
eid explorer::next_event(ek kind, std::uintptr_t loc, src_loc where, bool& replay) {
    thread_rt& x = th_[cur_];
    tick(where);
    const eid id{std::uint16_t(cur_), x.next};
    if (id.i < g().th[cur_].size()) {
        event& e = ev(id);
        if (g().partial) {
            if (e.kind != kind) internal_error("the replay string does not match the program");
            e.loc = loc;
            e.where = where;
        } else if (e.kind != kind || (e.is_access() && e.loc != loc)) {
            static const char* const kinds[] = {"read", "write", "fence", "choice", "block"};
            internal_error(
                "the program did something else at event " + std::to_string(id.t) + "." +
                std::to_string(id.i) + " than in the graph: a " + kinds[int(kind)] + " at " +
                where.file + ":" + std::to_string(where.line) + " (" + where.func +
                "), where the graph " + "has a " + kinds[int(e.kind)] + " at " + e.where.file +
                ":" + std::to_string(e.where.line) + " (" + e.where.func +
                "): does the program depend on state outside the engine?" + thread_dump(id.t));
        }
        replay = true;
        return id;
    }
    if (replaying_) {
        x.state = ts::frontier;
        suspend();
    }
    replay = false;
    return id;
}

void explorer::await_rf(eid w) {
    if (is_done(w)) return;
    th_[cur_].state = ts::wait_rf;
    th_[cur_].waiting = w;
    suspend();
}

// Replaying a decoded string: a write joins its location's coherence order at the place the
// string gave it (its `arg`), so that peek() sees the right newest write during the run.
void explorer::partial_co_insert(std::uintptr_t a, eid w) {
    auto& list = g().co[a];
    const value_t rank = ev(w).arg;
    auto pos = std::find_if(list.begin(), list.end(), [&](eid x) { return ev(x).arg > rank; });
    list.insert(pos, w);
}

eid explorer::add_event(unsigned t, event e) {
    g().th[t].push_back(e);
    rt_[t].push_back(ev_rt{});
    return eid{std::uint16_t(t), std::uint32_t(g().th[t].size() - 1)};
}

loc_rt& explorer::loc_of(const void* p, src_loc where) {
    const auto a = reinterpret_cast<std::uintptr_t>(p);
    auto it = locs_.find(a);
    if (it == locs_.end()) fail("uninit", "access to a location that was never constructed", where);
    loc_rt& l = it->second;
    if (l.alloc >= 0 && allocs_[std::size_t(l.alloc)].freed)
        fail("use-after-free", "access to " + loc_name(a) + " after its memory was freed", where);
    return l;
}

void explorer::race_check(loc_rt& l, const hclock& vc, std::int64_t pos, bool write, bool plain,
                          src_loc where) {
    const unsigned t = cur_;
    auto racy = [&](unsigned u, const access_rec& a) {
        return u != t && a.pos >= 0 && !vc.covers_pos(u, a.pos);
    };
    auto race = [&](unsigned u, const access_rec& a, const char* what) {
        char buf[320];
        std::snprintf(buf, sizeof buf,
                      "%s %s by thread %u races with a %s by thread %u at %s:%u (neither "
                      "happens before the other)",
                      plain ? "plain" : "atomic", write ? "write" : "read", t, what, u,
                      a.where.file, a.where.line);
        fail("data-race", buf, where);
    };
    if (l.has_plain_write && racy(l.pw_thread, l.pw)) race(l.pw_thread, l.pw, "plain write");
    for (unsigned u = 0; u < nthreads_; ++u) {
        if (write && racy(u, l.plain_read[u])) race(u, l.plain_read[u], "plain read");
        if (plain && racy(u, l.atomic_write[u])) race(u, l.atomic_write[u], "atomic write");
        if (plain && write && racy(u, l.atomic_access[u]))
            race(u, l.atomic_access[u], "atomic read");
    }
    const access_rec me{pos, where};
    if (plain && write) {
        l.has_plain_write = true;
        l.pw_thread = t;
        l.pw = me;
    } else if (plain) {
        l.plain_read[t] = me;
    } else {
        l.atomic_access[t] = me;
        if (write) l.atomic_write[t] = me;
    }
}

void explorer::exec_read(eid r) {
    event& e = ev(r);
    thread_rt& x = th_[r.t];
    ev_rt& d = rt(r);
    const ev_rt& w = rt(e.rf);
    if (g().partial) e.val = ev(e.rf).val;
    if (e.fenced()) {  // the seq_cst fence before a fully ordered cas that succeeds
        x.hb.join(x.acq_pending);
        x.rel_fence = x.hb;
    }
    d.hb = x.hb;
    d.hb.stamp(r);
    if (is_acquire(e.read_order()))
        d.hb.join(w.msg);
    else
        x.acq_pending.join(w.msg);
    d.porf = x.porf;
    d.porf.join(w.porf);
    d.porf.c[r.t] = r.i + 1;
    d.done = true;
    x.hb = d.hb;
    x.porf = d.porf;
    x.next = r.i + 1;
    loc_rt& l = locs_.at(e.loc);
    l.readers.push_back(r);
    race_check(l, d.hb, 2 * std::int64_t(r.i) + 2, false, false, e.where);
    x.awaited.push_back(r);
    x.seg_cur.emplace_back(e.loc, e.val);
    if (tracing_) trace_event(r);
    replayed_one();
}

void explorer::exec_write(eid w) {
    event& e = ev(w);
    thread_rt& x = th_[w.t];
    ev_rt& d = rt(w);
    d.hb = x.hb;
    d.hb.stamp(w);
    d.porf = x.porf;
    d.porf.c[w.t] = w.i + 1;
    if (e.init) {
        d.msg = hclock{};
    } else {
        d.msg = is_release(e.order) ? d.hb : x.rel_fence;
        for (auto& p : x.rel_write)  // the release sequence of an earlier release write here
            if (p.first == e.loc) d.msg.join(p.second);
        if (e.rmw != rmw_op::none) d.msg.join(rt(ev(eid{w.t, w.i - 1}).rf).msg);
        if (is_release(e.order)) {
            bool found = false;
            for (auto& p : x.rel_write)
                if (p.first == e.loc) {
                    p.second = d.hb;
                    found = true;
                }
            if (!found) x.rel_write.emplace_back(e.loc, d.hb);
        }
    }
    d.done = true;
    x.hb = d.hb;
    x.porf = d.porf;
    x.next = w.i + 1;
    if (e.fenced()) {  // the seq_cst fence after a fully ordered cas that succeeded
        x.hb.join(x.acq_pending);
        x.rel_fence = x.hb;
    }
    x.awaited.clear();
    x.seg_cur.clear();
    x.seg_prev.clear();
    x.spun = false;
    loc_rt& l = locs_.at(e.loc);
    race_check(l, d.hb, 2 * std::int64_t(w.i) + 2, true, e.init, e.where);
    if (tracing_) trace_event(w);
    replayed_one();
}

void explorer::exec_other(eid id) {
    event& e = ev(id);
    thread_rt& x = th_[id.t];
    ev_rt& d = rt(id);
    d.hb = x.hb;
    d.hb.stamp(id);
    if (e.kind == ek::fence) {
        if (is_acquire(e.order)) d.hb.join(x.acq_pending);
        if (is_release(e.order)) x.rel_fence = d.hb;
    }
    if (e.kind == ek::choice) x.seg_cur.emplace_back(0, e.val);  // a branch taken differently
    d.porf = x.porf;
    d.porf.c[id.t] = id.i + 1;
    d.done = true;
    x.hb = d.hb;
    x.porf = d.porf;
    x.next = id.i + 1;
    if (tracing_) trace_event(id);
    replayed_one();
}

void explorer::init_atomic(void* p, unsigned width, value_t v, src_loc where) {
    const auto a = reinterpret_cast<std::uintptr_t>(p);
    bool replay;
    const eid id = next_event(ek::write, a, where, replay);
    auto it = locs_.find(a);
    if (it == locs_.end()) {
        loc_rt l;
        l.atomic = true;
        l.width = std::uint8_t(width);
        l.name = next_loc_name_++;
        for (std::size_t k = 0; k < allocs_.size(); ++k)
            if (a >= allocs_[k].base && a < allocs_[k].base + allocs_[k].size) l.alloc = int(k);
        it = locs_.emplace(a, l).first;
    } else {
        it->second.atomic = true;
        it->second.width = std::uint8_t(width);
    }
    if (!replay) {
        event e;
        e.kind = ek::write;
        e.init = true;
        e.order = mo::plain;
        e.width = std::uint8_t(width);
        e.loc = a;
        e.val = v & width_mask(width);
        e.stamp = g().next_stamp++;
        e.where = where;
        add_event(cur_, e);
        g().co[a].push_back(id);  // a constructor's write is coherence-last (race-free programs)
    } else if (g().partial) {
        event& e = ev(id);
        e.init = true;
        e.order = mo::plain;
        e.width = std::uint8_t(width);
        e.val = v & width_mask(width);
        partial_co_insert(a, id);
    }
    exec_write(id);
}

// For a new event `id` (a read, or a write being placed in coherence) with happens-before
// prefix `pre`: the oldest write of the location, as an index in its coherence order, that the
// read may read or the write may follow; under SC also none that a later one in `id`'s
// SC-prefix hides.
std::size_t explorer::coherence_frontier(eid id, std::uintptr_t loc, const hclock& pre) const {
    if (opt_.model != memory_model::sc) return frontier(loc, pre, nullptr, nullptr);
    const std::vector<char> reach = sc_reaching(id);
    return frontier(loc, pre, &reach, nullptr);
}

// Adds the new read `e` (event `id`) reading the coherence-latest write of its location, and
// records each older write from index `lo` on that `branch(k)` accepts as an alternative to
// explore later from this context.
template <class Branch>
void explorer::add_read(event& e, eid id, std::size_t lo, Branch branch) {
    const auto& list = g().co.at(e.loc);
    for (std::size_t k = lo; k + 1 < list.size(); ++k) {
        if (!branch(k)) continue;
        item it;
        it.kind = item::fwd_read;
        it.stamp = e.stamp;
        it.e = id;
        it.w = list[k];
        stack_[ci_].work.push_back(std::move(it));
    }
    e.rf = list.back();
    e.val = ev(e.rf).val;
    add_event(cur_, e);
}

value_t explorer::load(const void* p, mo order, src_loc where) {
    loc_rt& l = loc_of(p, where);
    const auto a = reinterpret_cast<std::uintptr_t>(p);
    bool replay;
    const eid id = next_event(ek::read, a, where, replay);
    if (replay) {
        if (g().partial) {
            event& e = ev(id);
            e.order = order;
            e.width = l.width;
        }
        await_rf(ev(id).rf);
    } else {
        event e;
        e.kind = ek::read;
        e.order = order;
        e.width = l.width;
        e.loc = a;
        e.where = where;
        e.stamp = g().next_stamp++;
        hclock pre = th_[cur_].hb;
        pre.stamp(id);
        add_read(e, id, coherence_frontier(id, a, pre), [](std::size_t) { return true; });
    }
    exec_read(id);
    return ev(id).val;
}

void explorer::store(void* p, value_t v, mo order, src_loc where) {
    loc_rt& l = loc_of(p, where);
    const auto a = reinterpret_cast<std::uintptr_t>(p);
    bool replay;
    const eid id = next_event(ek::write, a, where, replay);
    if (replay) {
        if (g().partial) {
            event& e = ev(id);
            e.order = order;
            e.width = l.width;
            e.val = v & width_mask(l.width);
            partial_co_insert(a, id);
        }
        exec_write(id);
        return;
    }
    event e;
    e.kind = ek::write;
    e.order = order;
    e.width = l.width;
    e.loc = a;
    e.val = v & width_mask(l.width);
    e.where = where;
    e.stamp = g().next_stamp++;
    hclock pre = th_[cur_].hb;
    pre.stamp(id);
    auto& list = g().co.at(a);
    const std::size_t lo = coherence_frontier(id, a, pre);
    // Other places in coherence: after any write from the frontier on, except between an RMW's
    // write half and the write it read.
    for (std::size_t k = lo; k + 1 < list.size(); ++k) {
        if (ev(list[k + 1]).rmw != rmw_op::none) continue;
        item it;
        it.kind = item::fwd_co;
        it.stamp = e.stamp;
        it.e = id;
        it.w = list[k];
        stack_[ci_].work.push_back(std::move(it));
    }
    add_event(cur_, e);
    g().co.at(a).push_back(id);
    exec_write(id);
    calc_revisits(id);
}

value_t explorer::rmw(void* p, rmw_op op, value_t arg, value_t arg2, mo order, mo fail_order,
                      src_loc where, bool& ok, bool full) {
    loc_rt& l = loc_of(p, where);
    const auto a = reinterpret_cast<std::uintptr_t>(p);
    bool replay;
    const eid id = next_event(ek::read, a, where, replay);
    if (replay) {
        event& e = ev(id);
        if (g().partial) {
            e.order = order;
            e.fail_order = fail_order;
            e.rmw = op;
            e.full = full;
            e.width = l.width;
            e.arg = arg & width_mask(l.width);
            e.arg2 = arg2 & width_mask(l.width);
        } else if (e.rmw != op) {
            internal_error("an RMW replays as another operation");
        }
        await_rf(e.rf);
    } else {
        event e;
        e.kind = ek::read;
        e.order = order;
        e.fail_order = fail_order;
        e.rmw = op;
        e.full = full;
        e.width = l.width;
        e.loc = a;
        e.arg = arg & width_mask(l.width);
        e.arg2 = arg2 & width_mask(l.width);
        e.where = where;
        e.stamp = g().next_stamp++;
        hclock pre = th_[cur_].hb;
        pre.stamp(id);
        const std::size_t lo = coherence_frontier(id, a, pre);
        // A fully ordered cas that succeeds has a seq_cst fence before it: what the thread's
        // relaxed reads acquired is then in its prefix too.
        std::size_t lo_succ = lo;
        if (full && opt_.model == memory_model::rc11) {
            hclock fenced = pre;
            fenced.join(th_[cur_].acq_pending);
            lo_succ = frontier(a, fenced, nullptr, nullptr);
        }
        // Every coherent write, even one another RMW already reads: see complete_rmw. Below
        // lo_succ, only the writes with which the cas fails.
        const auto& list = g().co.at(a);
        add_read(e, id, lo, [&](std::size_t k) {
            event probe = e;
            probe.val = ev(list[k]).val;
            return !(probe.rmw_succeeds() && k < lo_succ);
        });
    }
    exec_read(id);
    const event re = ev(id);
    ok = re.rmw_succeeds();
    if (ok) {
        const eid wid{std::uint16_t(cur_), id.i + 1};
        if (wid.i < g().th[cur_].size()) {
            event& we = ev(wid);
            if (g().partial) {
                we.kind = ek::write;
                we.order = order;
                we.rmw = op;
                we.full = full;
                we.width = l.width;
                we.loc = a;
                we.val = re.rmw_result(re.val);
                we.where = where;
                partial_co_insert(a, wid);
            } else if (!we.is_write() || we.rmw != op) {
                internal_error("an RMW's write half replays as something else");
            }
            th_[cur_].next = wid.i;
            exec_write(wid);
        } else {
            if (replaying_) internal_error("an RMW's write half is missing from the graph");
            event w;
            w.kind = ek::write;
            w.order = order;
            w.rmw = op;
            w.full = full;
            w.width = l.width;
            w.loc = a;
            w.val = re.rmw_result(re.val);
            w.where = where;
            w.stamp = g().next_stamp++;
            add_event(cur_, w);
            auto& list = g().co.at(a);
            list.insert(std::find(list.begin(), list.end(), re.rf) + 1, wid);
            exec_write(wid);
            calc_revisits(wid);
        }
    }
    return re.val;
}

void explorer::fence(mo order, src_loc where) {
    bool replay;
    const eid id = next_event(ek::fence, 0, where, replay);
    if (!replay) {
        event e;
        e.kind = ek::fence;
        e.order = order;
        e.where = where;
        e.stamp = g().next_stamp++;
        add_event(cur_, e);
    } else if (g().partial) {
        ev(id).order = order;
    }
    exec_other(id);
}

unsigned explorer::choose(unsigned n, src_loc where) {
    if (n <= 1) return 0;
    bool replay;
    const eid id = next_event(ek::choice, 0, where, replay);
    if (!replay) {
        event e;
        e.kind = ek::choice;
        e.arg = n;
        e.val = 0;
        e.where = where;
        e.stamp = g().next_stamp++;
        for (unsigned k = n - 1; k >= 1; --k) {
            item it;
            it.kind = item::fwd_choice;
            it.stamp = e.stamp;
            it.e = id;
            it.choice = k;
            stack_[ci_].work.push_back(std::move(it));
        }
        add_event(cur_, e);
    } else if (g().partial) {
        ev(id).arg = n;
    }
    exec_other(id);
    return unsigned(ev(id).val);
}

void explorer::block(const char* reason, src_loc where) {
    bool replay;
    const eid id = next_event(ek::block, 0, where, replay);
    if (!replay) {
        event e;
        e.kind = ek::block;
        e.reason = reason;
        e.where = where;
        e.stamp = g().next_stamp++;
        add_event(cur_, e);
    }
    thread_rt& x = th_[cur_];
    x.block_reason = reason;
    x.block_where = where;
    exec_other(id);
    x.state = ts::blocked;
    leave_fiber();
}

void explorer::spin_iteration(src_loc where) {
    thread_rt& x = th_[cur_];
    if (x.spun && x.seg_cur == x.seg_prev) {
        // The awaited reads are this iteration's: a livelock if they are the newest writes.
        x.awaited.clear();
        const std::size_t n = x.seg_cur.size();
        std::size_t k = 0;
        for (std::uint32_t i = x.next; i-- > 0 && k < n;) {
            const eid e{std::uint16_t(cur_), i};
            if (ev(e).kind == ek::read || ev(e).kind == ek::choice) ++k;
            if (ev(e).kind == ek::read) x.awaited.push_back(e);
        }
        block("spin", where);
    }
    x.seg_prev = std::move(x.seg_cur);
    x.seg_cur.clear();
    x.spun = true;
    if (tracing_) trace_text("spin-loop iteration ends (cpu_relax)", where);
}

void explorer::fail(const char* cls, const std::string& msg, src_loc where) {
    if (!violated_) {
        violated_ = true;
        viol_cls_ = cls;
        viol_msg_ = msg;
        viol_where_ = where;
        // A violation during the replay of an alternative counts only if the part that ran is
        // consistent (the candidate checks cannot see psc).
        if (replaying_ && opt_.model == memory_model::rc11 && !psc_acyclic()) discard_ = true;
        if (tracing_) trace_text(std::string("violation: ") + cls + ": " + msg, where);
    }
    leave_fiber();
}

void explorer::init_plain(void* p, unsigned width, value_t v, src_loc where) {
    tick(where);
    const auto a = reinterpret_cast<std::uintptr_t>(p);
    auto it = locs_.find(a);
    if (it == locs_.end()) {
        loc_rt l;
        l.width = std::uint8_t(width);
        l.name = next_loc_name_++;
        for (std::size_t k = 0; k < allocs_.size(); ++k)
            if (a >= allocs_[k].base && a < allocs_[k].base + allocs_[k].size) l.alloc = int(k);
        it = locs_.emplace(a, l).first;
    }
    loc_rt& l = it->second;
    race_check(l, th_[cur_].hb, 2 * std::int64_t(th_[cur_].next) + 1, true, true, where);
    l.plain_val = v & width_mask(width);
    if (tracing_) trace_text("init " + loc_name(a) + " := " + std::to_string(l.plain_val), where);
}

value_t explorer::plain_load(const void* p, src_loc where) {
    tick(where);
    loc_rt& l = loc_of(p, where);
    race_check(l, th_[cur_].hb, 2 * std::int64_t(th_[cur_].next) + 1, false, true, where);
    if (tracing_)
        trace_text("plain read " + loc_name(reinterpret_cast<std::uintptr_t>(p)) + " -> " +
                       std::to_string(l.plain_val),
                   where);
    return l.plain_val;
}

void explorer::plain_store(void* p, value_t v, src_loc where) {
    tick(where);
    loc_rt& l = loc_of(p, where);
    race_check(l, th_[cur_].hb, 2 * std::int64_t(th_[cur_].next) + 1, true, true, where);
    l.plain_val = v & width_mask(l.width);
    if (tracing_)
        trace_text("plain write " + loc_name(reinterpret_cast<std::uintptr_t>(p)) +
                       " := " + std::to_string(l.plain_val),
                   where);
}

value_t explorer::peek(const void* p) {
    const auto a = reinterpret_cast<std::uintptr_t>(p);
    auto it = locs_.find(a);
    if (it == locs_.end()) return 0;
    if (!it->second.atomic) return it->second.plain_val;
    const auto& list = g().co.at(a);
    for (std::size_t k = list.size(); k-- > 0;)
        if (is_done(list[k])) return ev(list[k]).val;
    return 0;
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

// ---------------------------------------------------------------------------------------------
// Traces and replay strings

std::string explorer::ctx_label(unsigned t) const {
    if (opt_.context) {
        std::string s = opt_.context(t);
        if (!s.empty()) return s;
    }
    return t == 0 ? "harness" : "task " + std::to_string(t - 1);
}

std::string explorer::loc_name(std::uintptr_t a) const {
    auto it = locs_.find(a);
    if (it == locs_.end()) return "?";
    return "loc" + std::to_string(it->second.name);
}

void explorer::trace_text(const std::string& s, src_loc where) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "[%u] ", ++trace_n_);
    trace_ += buf;
    trace_ += s;
    trace_ += ", in [" + ctx_label(cur_) + "] " + where.func + ", " + where.file + "(" +
              std::to_string(where.line) + ")\n";
}

void explorer::trace_event(eid id) {
    const event& e = ev(id);
    std::ostringstream s;
    auto write_ref = [&](eid w) {
        auto it = trace_no_.find({w.t, w.i});
        std::string r = it == trace_no_.end() ? "?" : "[" + std::to_string(it->second) + "]";
        return r;
    };
    auto co_pos = [&](eid w) {
        return std::to_string(g().co_index(w) + 1) + "/" +
               std::to_string(g().co.at(ev(w).loc).size());
    };
    switch (e.kind) {
        case ek::read: {
            const bool newest = g().co_max(e.loc) == e.rf;
            s << (e.rmw == rmw_op::none  ? "load "
                  : e.rmw == rmw_op::cas ? "cas read "
                                         : "rmw read ")
              << loc_name(e.loc) << " -> " << e.val << " (reads " << write_ref(e.rf) << ", co "
              << co_pos(e.rf) << (newest ? "" : ", NOT THE NEWEST") << "), "
              << to_string(e.read_order());
            if (e.full) s << " (fully ordered)";
            if (e.rmw == rmw_op::cas)
                s << (e.rmw_succeeds() ? ", succeeds"
                                       : ", fails: expected " + std::to_string(e.arg));
            break;
        }
        case ek::write:
            s << (e.init                  ? "init "
                  : e.rmw != rmw_op::none ? "rmw write "
                                          : "store ")
              << loc_name(e.loc) << " := " << e.val << " (co " << co_pos(id) << "), "
              << to_string(e.order);
            break;
        case ek::fence:
            s << "fence " << to_string(e.order);
            break;
        case ek::choice:
            s << "choice " << e.val << " of " << e.arg;
            break;
        case ek::block:
            s << "blocked (" << e.reason << ")";
            break;
    }
    trace_no_[{id.t, id.i}] = trace_n_ + 1;
    trace_text(s.str(), e.where);
}

// A replay string: per thread, one token per event (r<t>.<i> a read and the write it reads,
// w<k> a write and its place in coherence order, f a fence, c<v> a choice, b a block).
std::string explorer::encode_replay(const graph& gr) const {
    std::string s = "dpor1";
    for (unsigned t = 0; t < gr.th.size(); ++t) {
        s += t == 0 ? ":" : "|";
        for (std::uint32_t i = 0; i < gr.th[t].size(); ++i) {
            const event& e = gr.th[t][i];
            if (i) s += ",";
            switch (e.kind) {
                case ek::read:
                    s += "r" + std::to_string(e.rf.t) + "." + std::to_string(e.rf.i);
                    break;
                case ek::write:
                    s += "w" + std::to_string(gr.co_index(eid{std::uint16_t(t), i}));
                    break;
                case ek::fence:
                    s += "f";
                    break;
                case ek::choice:
                    s += "c" + std::to_string(e.val);
                    break;
                case ek::block:
                    s += "b";
                    break;
            }
        }
    }
    return s;
}

bool explorer::decode_replay(const std::string& s, graph& gr) const {
    if (s.compare(0, 6, "dpor1:") != 0) return false;
    std::vector<std::string> threads;
    std::string cur;
    for (std::size_t k = 6; k <= s.size(); ++k) {
        if (k == s.size() || s[k] == '|') {
            threads.push_back(cur);
            cur.clear();
        } else {
            cur += s[k];
        }
    }
    if (threads.size() != gr.th.size()) return false;
    std::uint32_t stamp = 1;
    for (unsigned t = 0; t < threads.size(); ++t) {
        std::istringstream in(threads[t]);
        std::string tok;
        while (std::getline(in, tok, ',')) {
            if (tok.empty()) return false;
            event e;
            e.stamp = stamp++;
            switch (tok[0]) {
                case 'r': {
                    e.kind = ek::read;
                    unsigned a = 0, b = 0;
                    if (std::sscanf(tok.c_str() + 1, "%u.%u", &a, &b) != 2 || a >= gr.th.size())
                        return false;
                    e.rf = eid{std::uint16_t(a), b};
                    break;
                }
                case 'w':
                    e.kind = ek::write;
                    e.arg = std::strtoull(tok.c_str() + 1, nullptr, 10);
                    break;
                case 'f':
                    e.kind = ek::fence;
                    break;
                case 'c':
                    e.kind = ek::choice;
                    e.val = std::strtoull(tok.c_str() + 1, nullptr, 10);
                    break;
                case 'b':
                    e.kind = ek::block;
                    break;
                default:
                    return false;
            }
            gr.th[t].push_back(e);
        }
    }
    for (unsigned t = 0; t < gr.th.size(); ++t)
        for (const event& e : gr.th[t])
            if (e.is_read() && e.rf.i >= gr.th[e.rf.t].size()) return false;
    gr.next_stamp = stamp;
    gr.partial = true;
    return true;
}

}  // namespace
}  // namespace detail

result explore(const program& prog, const options& opt) {
    detail::explorer x(prog, opt);
    return x.run();
}

namespace rt {
using detail::current;
unsigned thread() { return current->thread(); }
bool tracing() { return current->tracing(); }
void init_atomic(void* loc, unsigned width, value_t v, src_loc where) {
    current->init_atomic(loc, width, v, where);
}
value_t load(const void* loc, mo order, src_loc where) { return current->load(loc, order, where); }
void store(void* loc, value_t v, mo order, src_loc where) { current->store(loc, v, order, where); }
bool cas(void* loc, value_t& expected, value_t desired, mo success, mo failure, src_loc where) {
    bool ok = false;
    const value_t old =
        current->rmw(loc, detail::rmw_op::cas, expected, desired, success, failure, where, ok);
    if (!ok) expected = old;
    return ok;
}
bool cas_fully_ordered(void* loc, value_t& expected, value_t desired, src_loc where) {
    bool ok = false;
    const value_t old = current->rmw(loc, detail::rmw_op::cas, expected, desired, mo::seq_cst,
                                     mo::relaxed, where, ok, true);
    if (!ok) expected = old;
    return ok;
}
value_t fetch_add(void* loc, value_t v, mo order, src_loc where) {
    bool ok = false;
    return current->rmw(loc, detail::rmw_op::add, v, 0, order, order, where, ok);
}
value_t exchange(void* loc, value_t v, mo order, src_loc where) {
    bool ok = false;
    return current->rmw(loc, detail::rmw_op::xchg, v, 0, order, order, where, ok);
}
void fence(mo order, src_loc where) { current->fence(order, where); }
void init_plain(void* loc, unsigned width, value_t v, src_loc where) {
    current->init_plain(loc, width, v, where);
}
value_t plain_load(const void* loc, src_loc where) { return current->plain_load(loc, where); }
void plain_store(void* loc, value_t v, src_loc where) { current->plain_store(loc, v, where); }
value_t peek(const void* loc) { return current->peek(loc); }
unsigned choose(unsigned n, src_loc where) { return current->choose(n, where); }
void block(const char* reason, src_loc where) { current->block(reason, where); }
void spin_iteration(src_loc where) { current->spin_iteration(where); }
void fail(const char* cls, const std::string& message, src_loc where) {
    current->fail(cls, message, where);
}
void note(const std::string& text, src_loc where) { current->note(text, where); }
void* alloc(std::size_t bytes, src_loc where) { return current->alloc(bytes, where); }
void dealloc(void* p, src_loc where) { current->dealloc(p, where); }
}  // namespace rt

}  // namespace kverify::dpor
