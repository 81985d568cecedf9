// SPDX-License-Identifier: GPL-2.0-only
// The program's threads as fibers and the scheduler of one run: threads are resumed in an order
// that respects po | rf (a thread waits for the write its next read reads), new events are added
// from the leftmost thread that can run; the event limit, the time budget, and internal errors
// (the program did something else than the graph says).
// A fiber is made once per thread of the explorer with ucontext (make_fiber), and waits at the
// base of its stack for each run that starts its thread; the switches are _setjmp/_longjmp,
// which leave the signal mask alone (swapcontext and setcontext make a system call for it at
// every switch: a tenth of a search's time on the kernel rows). glibc's fortified longjmp
// refuses a jump that looks like one to a deeper frame of the same stack, which a jump to
// another stack may: this file is built without it.
#undef _FORTIFY_SOURCE

#include <setjmp.h>
#include <ucontext.h>

#include <cstdlib>

#include "model/dpor/explorer.hpp"

namespace kverify::dpor::detail {

// The base of the fiber of thread cur_ (make_fiber): waits here for each run that starts the
// thread. The frame stays where it is for the explorer's life; a run's frames go below it and
// are abandoned when the run ends.
void explorer::fiber_main() {
    explorer* const x = current;
    if (_setjmp(x->fibers_[x->cur_].start) == 0) _longjmp(x->sched_jmp_, 1);  // made
    const unsigned t = current->cur_;
    current->thread_body(t);
    if (current->th_[t].await_due >= 0) current->check_await_due(false);
    current->th_[t].state = ts::finished;
    current->leave_fiber();
}

void explorer::make_fiber(unsigned t) {
    ucontext_t uc;
    getcontext(&uc);
    uc.uc_stack.ss_sp = stacks_[t].get();
    uc.uc_stack.ss_size = stack_size;
    uc.uc_link = nullptr;  // (fiber_main never returns)
    makecontext(&uc, fiber_main, 0);
    cur_ = t;
    if (_setjmp(sched_jmp_) == 0) setcontext(&uc);
    fibers_[t].made = true;
}

void explorer::suspend() {
    if (_setjmp(th_[cur_].resume) == 0) _longjmp(sched_jmp_, 1);
}

void explorer::leave_fiber() {
    in_fiber_ = false;
    _longjmp(sched_jmp_, 1);
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
    if (tracing_) trace_ += "(setup done: the tasks start)\n";  // the runner folds the setup
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

void explorer::schedule() {
    for (;;) {
        if (violated_ || discard_ || stale_cut_ || restart_ || !internal_msg_.empty()) return;
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
            // A decoded string's reads wait for their writes (events.cpp, await_rf): waiting in
            // a cycle is load buffering, which a string, carrying no values, cannot run.
            if (replaying_ && decoded_)
                for (unsigned t = 0; t < nthreads_; ++t)
                    if (th_[t].state == ts::wait_rf)
                        internal_error(
                            "a replay string cannot run this execution: its reads wait for "
                            "writes that cannot run before them (in a cycle: load buffering, "
                            "which a string cannot run as it carries no values; or a program "
                            "changed since the string was written)");
            if (replaying_ && opt_.model == memory_model::lkmm) {
                // A load-buffering revisit's graph that the program does not produce: a thread
                // ended or blocked before the events the graph keeps for it (events.cpp,
                // diverged): dropped if those events depended on the revisited read.
                bool speculative = true;
                eid missed{};  // the first kept event no thread reached, for the message
                for (unsigned t = 0; t < nthreads_; ++t)
                    for (std::uint32_t i = th_[t].next; i < g().th[t].size(); ++i)
                        if (g().th[t][i].kind != ek::hole && !g().th[t][i].speculative) {
                            if (speculative) missed = eid{std::uint16_t(t), i};
                            speculative = false;
                        }
                if (speculative) {
                    ++res_.unproducible;
                } else {
                    res_.complete = false;
                    if (res_.incomplete_reason.empty()) {
                        const event& m = g().at(missed);
                        const thread_rt& mt = th_[missed.t];
                        const std::string state =
                            mt.state == ts::blocked
                                ? std::string("blocked (") + mt.block_reason + ")"
                            : mt.state == ts::idle ? std::string("never started")
                                                   : std::string("stopped");
                        res_.incomplete_reason =
                            "load buffering: the replay of a revisited graph ended before its "
                            "kept events (thread " +
                            std::to_string(missed.t) + " " + state + " before its event " +
                            std::to_string(missed.i) + " at " + m.where.file + ":" +
                            std::to_string(m.where.line) +
                            "): a branch taken otherwise before them (the engine does not move "
                            "kept events), or a dependency the program did not declare";
                    }
                }
                discard_ = true;
                return;
            }
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
        if (!fibers_[t].made) make_fiber(t);
        cur_ = t;
        in_fiber_ = true;
        // The fiber comes back here (suspend, leave_fiber): the thread's start the first time
        // in a run, where it suspended after that.
        if (_setjmp(sched_jmp_) == 0) {
            if (!x.started) {
                x.started = true;
                _longjmp(fibers_[t].start, 1);
            }
            _longjmp(x.resume, 1);
        }
        in_fiber_ = false;
    }
}

// The events of thread t as the graph has them (for internal error messages).
std::string explorer::thread_dump(unsigned t) const {
    static const char* const kinds[] = {"read", "write", "fence", "choice", "block", "hole"};
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
    stop_threads();
    discard_ = true;
    if (in_fiber_) leave_fiber();
    throw std::logic_error("dpor: " + msg);
}

void explorer::tick_slow(src_loc where) {
    if (events_ > opt_.max_events)
        fail("event-limit",
             "an execution ran more than " + std::to_string(opt_.max_events) +
                 " operations (an unbounded loop without cpu_relax?)",
             where);
    if (opt_.budget_s > 0 && (tick_ & 255u) == 0) {
        const double spent = std::chrono::duration<double>(clock_type::now() - start_).count();
        if (spent > opt_.budget_s) {
            res_.complete = false;
            res_.incomplete_reason = "time budget of " + std::to_string(opt_.budget_s) + " s";
            stop_all_ = true;
            stop_threads();
            discard_ = true;
            leave_fiber();
        }
    }
}

}  // namespace kverify::dpor::detail
