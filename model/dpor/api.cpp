// SPDX-License-Identifier: GPL-2.0-only
// The engine's public entry points: explore() and the operations of namespace rt, each
// forwarded to the explorer whose program is running.
#include <stdexcept>
#include <string>

#include "model/dpor/explorer.hpp"

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

const char* to_string(memory_model m) {
    switch (m) {
        case memory_model::rc11:
            return "rc11";
        case memory_model::sc:
            return "sc";
        case memory_model::lkmm:
            return "lkmm";
    }
    return "?";
}

const char* to_string(lk k) {
    static const char* const names[] = {
        "automatic",         "once",    "acquire",       "release",      "mb",
        "noreturn",          "lock",    "unlock",        "lock_fail",    "smp_mb",
        "smp_rmb",           "smp_wmb", "before_atomic", "after_atomic", "after_spinlock",
        "after_unlock_lock", "barrier"};
    const unsigned i = unsigned(k);
    return i < sizeof names / sizeof names[0] ? names[i] : "?";
}

bool parse_memory_model(const std::string& s, memory_model& out) {
    if (s == "rc11")
        out = memory_model::rc11;
    else if (s == "sc")
        out = memory_model::sc;
    else if (s == "lkmm")
        out = memory_model::lkmm;
    else
        return false;
    return true;
}

namespace detail {

thread_local explorer* current = nullptr;

explorer::explorer(const program& p, const options& o, const split_plan& split)
    : prog_(p), opt_(o), model_(make_consistency(o.model)), split_(split) {
    if (p.tasks == 0 || p.tasks + 1 > max_threads)
        throw std::invalid_argument("dpor: a program has 1 to " + std::to_string(max_threads - 1) +
                                    " tasks");
    nthreads_ = p.tasks + 1;
    fibers_.reset(new fiber[nthreads_]);
    for (unsigned t = 0; t < nthreads_; ++t) {
        stacks_.emplace_back(new char[stack_size]);
        arenas_.emplace_back(new char[arena_size]);
        pointer_names_.add_arena(arenas_.back().get());
    }
}

}  // namespace detail

result explore(const program& prog, const options& opt) {
    if (opt.threads == 0) throw std::invalid_argument("dpor: a search on 0 threads");
    if (opt.help_levels == 0) throw std::invalid_argument("dpor: help_levels 0 (at least 1)");
    struct on_this_thread {  // the program's per-thread state, on the calling thread
        const options& o;
        explicit on_this_thread(const options& opt) : o(opt) {
            if (o.on_thread) o.on_thread(true);
        }
        ~on_this_thread() {
            if (o.on_thread) o.on_thread(false);
        }
    } here(opt);
    // A replay is one run. Under the LKMM an execution limit is one thread's (which executions
    // come first depends on timing on several, parallel.cpp), as is a split part.
    const bool lkmm_one =
        opt.model == memory_model::lkmm && (opt.max_executions > 0 || opt.split_parts > 0);
    if (opt.threads > 1 && !lkmm_one && opt.replay.empty())
        return detail::explore_parallel(prog, opt);
    if (opt.split_parts > 0) return detail::explore_part(prog, opt);
    detail::explorer x(prog, opt);
    return x.run();
}

namespace rt {
using detail::current;
unsigned thread() { return current->thread(); }
dep_id last_event() { return current->last_event(); }
void annotate_next(lk kind, const dep_id* addr, std::size_t n_addr, const dep_id* data,
                   std::size_t n_data, bool atomic_op) {
    current->annotate_next(kind, addr, n_addr, data, n_data, atomic_op);
}
void ctrl_begin(const dep_id* cond, std::size_t n) { current->ctrl_begin(cond, n); }
void ctrl_end() { current->ctrl_end(); }
void depend_after(const dep_id* reads, std::size_t n) { current->depend_after(reads, n); }
void await_next(await_kind kind, value_t a, value_t b) { current->await_next(kind, a, b); }
void handler_begin() { current->handler_begin(); }
void handler_end() { current->handler_end(); }
bool tracing() { return current->tracing(); }
bool load_buffering() { return current->load_buffering(); }
bool reads_dependencies() { return current->reads_dependencies(); }
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
bool claim(void* loc, value_t set, value_t mask, value_t& old, mo success, mo failure,
           src_loc where) {
    bool ok = false;
    old = current->rmw(loc, detail::rmw_op::claim, set, mask, success, failure, where, ok);
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
void name_memory(const void* p, std::size_t bytes, const std::string& name) {
    current->name_memory(p, bytes, name);
}
void pointer_values(const void* loc) { current->pointer_values(loc); }
void* alloc(std::size_t bytes, src_loc where) { return current->alloc(bytes, where); }
void dealloc(void* p, src_loc where) { current->dealloc(p, where); }
}  // namespace rt

}  // namespace kverify::dpor
