// SPDX-License-Identifier: GPL-2.0-only
// The percpu_counter model scenario shared by percpu_counter*.cpp in this folder (the properties of
// proofs/properties.md, percpu_counter part; the argument is proofs/percpu_counter.md).
//
// A check is one small program per task (add_batch, limited_add, sum, hotplug steps, waiting for
// another task to finish) plus what an IRQ on each CPU does, run over every interleaving the
// search allows. What is checked, and where:
// - batch bound: right after each add returns, on its CPU, before anything else can run there
//   (a probe: delivery blocked at the simulator level, so it adds no delivery point, and
//   Relacy's own scheduling held off, so it adds no interleaving either);
// - 0-or-1 counting: each sum() lies between the adds that happen before it (its own task's, its
//   IRQs', and those of tasks it waited for) and all adds started before it returned, with each
//   add counted at most once;
// - limit: right after a limited_add succeeds, the total of all successful adds so far (and,
//   where the configuration says every order fits, that no limited_add is refused);
// - at quiescence: exact sum, s32 wrap, compare() against sum(), read() error and deltas.
// The locals cannot be peeked (model_env has no peek for per-CPU values), so there is no
// per-step invariant() here; see proofs/percpu_counter.md for why the probes see every value
// that a delta takes at rest.
// Under the LKMM (model_env::load_buffering()) a sum may read an add that runs later in the
// engine's order, so "the adds started by now" and "the total so far" mean nothing. There each
// add and sum notes what its task knew to happen before it (its own earlier steps and what the
// tasks it waited for knew, carried by the completion's value), and after() judges: each sum()
// counts every add that happens before it and no add that happens after it, each at most once;
// the successful limited_adds keep their limits in some order of the applied adds that respects
// happens-before.
#pragma once

#include <algorithm>
#include <initializer_list>

#include "impl/percpu_counter.hpp"
#include "model/kernel/model_env.hpp"
#include "model/kernel/scenario.hpp"

namespace kverify::model {
inline namespace KVERIFY_ENGINE_NS {
namespace pcc {

using E = model_env;
using s32 = std::int32_t;
using s64 = std::int64_t;

enum class op_kind : std::uint8_t { add, limited_add, sum, wait, dying, offline, dead };

struct op {
    op_kind kind = op_kind::add;
    s64 amount = 0;    // add, limited_add
    s64 limit = 0;     // limited_add
    unsigned arg = 0;  // wait: the task waited for; dying/offline/dead: the CPU
};
constexpr op add(s64 amount) { return {op_kind::add, amount, 0, 0}; }
constexpr op limited_add(s64 limit, s64 amount) { return {op_kind::limited_add, amount, limit, 0}; }
constexpr op sum() { return {op_kind::sum, 0, 0, 0}; }
// Waits (harness level, no delivery point) until `task` ran its whole program; everything it
// did, and everything that happened before it, then happens before what follows.
constexpr op wait_for(unsigned task) { return {op_kind::wait, 0, 0, task}; }
// The three hotplug steps, in the kernel's order for taking `cpu` down.
constexpr op mark_dying(unsigned cpu) { return {op_kind::dying, 0, 0, cpu}; }
constexpr op go_offline(unsigned cpu) { return {op_kind::offline, 0, 0, cpu}; }
constexpr op cpu_dead(unsigned cpu) { return {op_kind::dead, 0, 0, cpu}; }

inline constexpr unsigned max_ops = 6;
inline constexpr unsigned max_recs = 16;  // adds per execution, tasks and IRQs together

struct program {
    unsigned n = 0;
    op ops[max_ops]{};
    program() = default;
    program(std::initializer_list<op> l) {
        for (const op& o : l) ops[n++] = o;  // callers stay within max_ops (checked below)
    }
};

// Which bound on |delta| the probe after each add checks (and the quiescent check on the sum of
// all deltas, times the online CPUs).
enum class bound : std::uint8_t {
    strict,     // |delta| < batch: add_batch's contract
    inclusive,  // |delta| <= batch: what limited_add keeps (its shortcut tests <=)
    triple,     // |delta| < 3 x batch: what preempt-only is said to keep with one IRQ
    none,       // not checked (to reach a later property of a variant that breaks the bound)
};

struct params {
    kernel_config kernel;
    s32 batch = 4;
    s64 initial = 0;
    program task[max_tasks];
    program irq[max_cpus];  // IRQ number k on CPU c runs irq[c].ops[k % n] (one op per IRQ)
    bound delta_bound = bound::strict;
    bool probe = true;  // check delta_bound after each add (else only at quiescence)
    bool check_compare = true;
    // Every limited_add of the configuration fits in every order, so each must succeed; a
    // refusal is reported as limit-refused (a repair must not buy the limit with false refusals).
    bool limited_all_fit = false;
};

inline const char* bound_name(bound b) {
    switch (b) {
        case bound::strict:
            return "|delta| < batch";
        case bound::inclusive:
            return "|delta| <= batch";
        case bound::triple:
            return "|delta| < 3 x batch";
        case bound::none:
            return "delta unchecked";
    }
    return "?";
}

inline s64 abs64(s64 v) { return v < 0 ? -v : v; }

template <class Variant, unsigned Tasks>
struct scenario : scenario_base {
    static constexpr const char* properties[] = {
        "s32-overflow",  "lost-update", "exact-sum",  "compare",         "read-error",
        "limit-refused", "batch-bound", "weak-bound", "limit-overshoot", "sum-miscount"};
    static constexpr unsigned tasks = Tasks;
    static constexpr bool lkmm_ready = true;  // judged in after() under load buffering, see above
    using params = pcc::params;

    // Simulator bookkeeping, not modeled memory: one record per add (task or IRQ).
    struct rec {
        s64 amount = 0;
        bool begun = false;
        bool done = false;
        bool applied = false;  // add_batch: always; limited_add: returned true
        bool limited = false;
        s64 limit = 0;
    };
    // Under load buffering: a known set names adds (bit r for recs[r]) and sums (bit
    // sum_bit0 + k for sums[k]) that happen before a step.
    static constexpr unsigned sum_bit0 = max_recs;
    static constexpr unsigned max_sums = 32 - max_recs;
    struct sum_rec {
        bool set = false;
        std::uint32_t before = 0;  // what its task knew when it began
        s64 got = 0;
    };

    const params& p;
    percpu_counter<E, Variant> counter;
    // Posted once per waiter at the end of a task's program (release), taken by wait_for
    // (acquire). The engine's completion blocks the waiter instead of spinning: a spin loop would
    // multiply the executions of an exhaustive search by every possible number of iterations.
    engine::completion finished[Tasks];
    unsigned waiters[Tasks] = {};
    // Each add and sum has a fixed slot, by where it comes from (a task's n-th add or sum, the
    // n-th IRQ on a CPU), never by the order the engine runs them in: under load buffering a
    // task may run before the task whose post it reads, and a slot taken in the engine's order
    // would make that post's value (the slots its task knew) another than the one read.
    rec recs[max_recs];
    unsigned nrecs = 0;                       // slots in use by this configuration
    std::uint32_t known[max_tasks] = {};      // per task: adds that happen before it
    std::uint32_t published[max_tasks] = {};  // `known` of a task when it finished
    const bool lb = E::load_buffering();
    std::uint32_t rec_known[max_recs] = {};  // under load buffering: known when the add began
    sum_rec sums[max_sums];
    unsigned nsums = 0;  // slots in use by this configuration
    // The first slot of each task's adds and sums and of each CPU's IRQs, and per task how many
    // of its own it has run (task state: only that task touches it).
    unsigned add_base[max_tasks + max_cpus] = {}, sum_base[max_tasks + max_cpus] = {};
    unsigned adds_run[max_tasks] = {}, sums_run[max_tasks] = {};

    explicit scenario(const params& pr) : p(pr) {
        counter.init(p.initial);
        if (E::naming()) counter.name_words();  // for traces: fbc->count, counters[cpuN]...
        for (unsigned t = 0; t < Tasks; ++t) {
            for (unsigned u = 0; u < Tasks; ++u)
                for (unsigned i = 0; i < p.task[u].n; ++i)
                    if (p.task[u].ops[i].kind == op_kind::wait && p.task[u].ops[i].arg == t)
                        ++waiters[t];
        }
        for (unsigned c = 0; c < max_cpus; ++c)
            if (p.irq[c].n > 0) E::set_irq_handler(c, on_irq, this);
        // Slots: per task one for each add (sum) of its program, per CPU one for each IRQ its
        // budget allows when its program has an add (a sum).
        const kernel_config& kc = kernel::get().config();
        for (unsigned src = 0; src < max_tasks + max_cpus; ++src) {
            const bool irq = src >= max_tasks;
            const program& prog = irq ? p.irq[src - max_tasks] : p.task[src];
            if (!irq && src >= Tasks) continue;
            unsigned adds = 0, nsum = 0;
            for (unsigned i = 0; i < prog.n; ++i) {
                const op_kind kd = prog.ops[i].kind;
                adds += kd == op_kind::add || kd == op_kind::limited_add;
                nsum += kd == op_kind::sum;
            }
            if (irq) {
                const unsigned budget = kc.irq_budget[src - max_tasks];
                adds = adds ? budget : 0;
                nsum = nsum ? budget : 0;
            }
            add_base[src] = nrecs;
            sum_base[src] = nsums;
            nrecs += adds;
            nsums += nsum;
        }
        // Beyond the tables: the add or sum that would take such a slot fails as the harness.
        nrecs = std::min(nrecs, max_recs);
        nsums = std::min(nsums, max_sums);
    }

    void task(unsigned t) {
        const program& prog = p.task[t];
        for (unsigned i = 0; i < prog.n; ++i) run(prog.ops[i]);
        if (waiters[t] > 0) {
            published[t] = known[t];
            // release: pairs with wait_for's wait; under load buffering the value says what
            // this task knew (never 0: a waiter blocks on 0)
            finished[t].post(waiters[t], src_loc(), lb ? (std::uint64_t{known[t]} << 1) | 1 : 1);
        }
    }

    static void on_irq(unsigned cpu, void* self) {
        auto* s = static_cast<scenario*>(self);
        const program& prog = s->p.irq[cpu];
        s->run(prog.ops[irq_number() % prog.n]);
    }

    void after() {
        if (lb) {  // what the tasks judge as they go under the other models
            check_limits_lb();
            for (unsigned k = 0; k < nsums; ++k)
                if (sums[k].set) check_sum_lb(sums[k], sum_bit0 + k);
        }
        // Exact sum at quiescence (property 1), and an s32 wrap of a delta shows up here as an
        // error of a multiple of 2^32 (property 4).
        const std::uint32_t applied = applied_mask();
        const s64 want = total_of(applied);
        const s64 got = counter.sum();
        if (got != want) {
            const s64 diff = got - want;
            if (diff % (s64{1} << 32) == 0)
                expect(false, "s32-overflow", "sum() %lld, expected %lld: a delta wrapped", ll(got),
                       ll(want));
            else if (subset_sum_hits(applied, got - p.initial))
                expect(false, "lost-update", "sum() %lld, expected %lld: an add was lost", ll(got),
                       ll(want));
            else
                expect(false, "exact-sum", "sum() %lld, expected %lld", ll(got), ll(want));
        }
        const s64 online = E::num_online_cpus();
        const s64 b = p.batch;
        // compare() agrees with sum() (property 3), near and beyond the read() shortcut.
        if (p.check_compare) {
            const s64 rhs[] = {got - b * online - 1, got - 1, got, got + 1, got + b * online + 1};
            for (s64 r : rhs) {
                const int c = counter.compare(r, p.batch);
                const int w = got > r ? 1 : got < r ? -1 : 0;
                expect(c == w, "compare", "compare(%lld) = %d, but sum() = %lld", ll(r), c,
                       ll(got));
            }
        }
        // |read() - sum()| <= sum of |deltas| < batch x online CPUs (property 3).
        if (p.delta_bound != bound::none) {
            s64 deltas = 0;
            const cpumask possible = E::possible_mask();
            for (unsigned cpu = possible.next(-1); cpu < cpumask::max_cpus;
                 cpu = possible.next(int(cpu)))
                deltas += abs64(counter.local(cpu));
            const s64 r = counter.read();
            expect(abs64(r - got) <= deltas, "read-error", "|read() %lld - sum() %lld| > %lld",
                   ll(r), ll(got), ll(deltas));
            const s64 cap = (p.delta_bound == bound::triple ? 3 * b : b) * online;
            const bool ok = p.delta_bound == bound::inclusive ? deltas <= cap : deltas < cap;
            expect(ok, "read-error", "sum of |deltas| %lld against %s on %lld online CPUs",
                   ll(deltas), bound_name(p.delta_bound), ll(online));
        }
    }

private:
    static long long ll(s64 v) { return static_cast<long long>(v); }

    void run(const op& o) {
        kernel& k = kernel::get();
        const unsigned me = unsigned(current_task_index());
        switch (o.kind) {
            case op_kind::add: {
                const unsigned r = begin_add(o.amount);
                k.log(src_loc(), "add_batch(%lld, batch %d) begins", ll(o.amount), p.batch);
                counter.add_batch(o.amount, p.batch);
                end_add(r, true);
                probe(o);
                break;
            }
            case op_kind::limited_add: {
                const unsigned r = begin_add(o.amount);
                k.log(src_loc(), "limited_add(limit %lld, %lld, batch %d) begins", ll(o.limit),
                      ll(o.amount), p.batch);
                const bool ok = counter.limited_add(o.limit, o.amount, p.batch);
                recs[r].limited = true;
                recs[r].limit = o.limit;
                end_add(r, ok);
                probe(o);
                if (ok && !lb) check_limit(o);
                expect(ok || !p.limited_all_fit, "limit-refused",
                       "limited_add(limit %lld, %lld) refused, although every order fits",
                       ll(o.limit), ll(o.amount));
                break;
            }
            case op_kind::sum: {
                const std::uint32_t before = known[me];  // adds that happen before this sum()
                const s64 got = counter.sum();
                if (!lb) {
                    check_sum(before, got);
                    break;
                }
                const unsigned k = slot(sum_base, sums_run);
                if (k >= max_sums) kernel::get().fail("harness", src_loc(), "too many sums");
                sums[k] = sum_rec{true, before, got};
                known[me] |= 1u << (sum_bit0 + k);
                break;
            }
            case op_kind::wait: {
                const std::uint64_t v = finished[o.arg].wait(src_loc());  // acquire: the post
                known[me] |= lb ? std::uint32_t(v >> 1) : published[o.arg];
            } break;
            case op_kind::dying:
                E::set_cpu_dying(o.arg, true);
                break;
            case op_kind::offline:
                E::set_cpu_online(o.arg, false);
                break;
            case op_kind::dead:
                k.log(src_loc(), "cpu_dead(%u) begins", o.arg);
                counter.cpu_dead(o.arg);
                break;
        }
    }

    // Which IRQ on its CPU the running handler is (0 for the first): its budget less what is
    // left, the kernel's count that travels with the CPU from holder to holder (kernel.hpp,
    // handoff_word), so it names the IRQ whatever order the engine runs the holders in.
    static unsigned irq_number() {
        kernel& k = kernel::get();
        return k.config().irq_budget[k.current_cpu()] - k.current_task()->on.irq_left - 1;
    }
    // The slot of the add (sum) about to run: the IRQ's number on this CPU (the kernel's count,
    // which travels with the CPU) or the task's own count.
    unsigned slot(const unsigned* base, unsigned* run) {
        kernel& k = kernel::get();
        const kernel::task_state* t = k.current_task();
        if (t && t->depth > 0) return base[max_tasks + k.current_cpu()] + irq_number();
        const unsigned me = unsigned(current_task_index());
        return base[me] + run[me]++;
    }
    unsigned begin_add(s64 amount) {
        const unsigned r = slot(add_base, adds_run);
        if (r >= max_recs) kernel::get().fail("harness", src_loc(), "too many adds");
        recs[r] = rec{amount, true, false, false, false, 0};
        if (lb) rec_known[r] = known[current_task_index()];
        return r;
    }
    void end_add(unsigned r, bool applied) {
        recs[r].done = true;
        recs[r].applied = applied;
        if (applied) known[current_task_index()] |= 1u << r;
    }

    // The batch bound (property 2), right after the add returned on the CPU it completed on.
    // Nothing on this CPU can run in between: the probe turns irqs off at the simulator level
    // (no delivery point of its own, so no IRQ, migration or preemption is offered), and keeps
    // Relacy from scheduling another thread at its read. Other CPUs never write this CPU's delta
    // (cpu_dead only touches a dead CPU), so the read is the value the add left.
    void probe(const op& o) {
        if (!p.probe || p.delta_bound == bound::none) return;
        kernel& k = kernel::get();
        const unsigned cpu = k.current_cpu();
        s64 local;
        {
            [[maybe_unused]] const engine::no_switch hold;
            const unsigned long flags = k.irq_save();
            local = counter.local(cpu);
            k.irq_restore(flags);
        }
        k.log(src_loc(), "probe: cpu%u delta %lld after the add of %lld", cpu, ll(local),
              ll(o.amount));
        const s64 b = p.batch;
        switch (p.delta_bound) {
            case bound::strict:
                expect(abs64(local) < b, "batch-bound",
                       "cpu%u delta %lld after an add of %lld: |delta| >= batch %lld", cpu,
                       ll(local), ll(o.amount), ll(b));
                break;
            case bound::inclusive:
                expect(abs64(local) <= b, "batch-bound",
                       "cpu%u delta %lld after an add of %lld: |delta| > batch %lld", cpu,
                       ll(local), ll(o.amount), ll(b));
                break;
            case bound::triple:
                expect(abs64(local) < 3 * b, "weak-bound",
                       "cpu%u delta %lld after an add of %lld: |delta| >= 3 x batch %lld", cpu,
                       ll(local), ll(o.amount), ll(b));
                break;
            case bound::none:
                break;
        }
    }

    // Property 6: the total of all successful adds stays within the limit of this one.
    void check_limit(const op& o) {
        const s64 total = total_of(applied_mask());
        const bool ok = o.amount > 0 ? total <= o.limit : total >= o.limit;
        expect(ok, "limit-overshoot",
               "limited_add(limit %lld, %lld) succeeded; the total is now %lld", ll(o.limit),
               ll(o.amount), ll(total));
    }

    // Property 5: got = initial + the adds of some set S, each once, with
    // (adds that happen before the sum) <= S <= (adds started by now, except failed ones).
    void check_sum(std::uint32_t before, s64 got) {
        std::uint32_t started = 0;
        for (unsigned i = 0; i < nrecs; ++i)
            if (recs[i].begun && (!recs[i].done || recs[i].applied)) started |= 1u << i;
        before &= started;
        const s64 base = total_of(before);
        if (subset_sum_hits(started & ~before, got - base)) return;
        // Not 0-or-1 counting. Name a single mistake that explains the value, if one does,
        // for the reader of the trace: an earlier add left out, or some add counted twice.
        long long skipped = 0, doubled = 0;
        bool skip = false, dup = false;
        const std::uint32_t free = started & ~before;
        for (unsigned i = 0; i < nrecs; ++i) {
            const std::uint32_t bit = 1u << i;
            const s64 a = recs[i].amount;
            if (!skip && (before & bit) && subset_sum_hits(free, got - base + a)) {
                skip = true;
                skipped = ll(a);
            }
            const bool twice =
                (before & bit)
                    ? subset_sum_hits(free, got - base - a)
                    : (started & bit) && subset_sum_hits(free & ~bit, got - base - 2 * a);
            if (!dup && twice) {
                dup = true;
                doubled = ll(a);
            }
        }
        char why[96] = "no single skipped or doubled add explains it";
        if (skip && dup)
            std::snprintf(why, sizeof why, "skips the earlier add of %lld, or counts %lld twice",
                          skipped, doubled);
        else if (skip)
            std::snprintf(why, sizeof why, "skips the earlier add of %lld", skipped);
        else if (dup)
            std::snprintf(why, sizeof why, "counts the add of %lld twice", doubled);
        expect(false, "sum-miscount", "sum() %lld (initial %lld + every earlier add = %lld): %s",
               ll(got), ll(p.initial), ll(base), why);
    }

    // Under load buffering, property 5 judged at quiescence: got = initial + the adds of some
    // set S, each once, with (applied adds that happen before the sum) <= S <= (applied adds
    // that do not happen after it).
    void check_sum_lb(const sum_rec& x, unsigned bit) {
        const std::uint32_t applied = applied_mask();
        std::uint32_t upper = 0;
        for (unsigned i = 0; i < nrecs; ++i)
            if ((applied & (1u << i)) && !(rec_known[i] & (1u << bit))) upper |= 1u << i;
        const std::uint32_t before = x.before & applied;
        const s64 base = total_of(before);
        expect(subset_sum_hits(upper & ~before, x.got - base), "sum-miscount",
               "sum() %lld: not initial %lld + every add before it (%lld) + some concurrent adds, "
               "each once",
               ll(x.got), ll(p.initial), ll(base));
    }

    // Under load buffering, property 6 judged at quiescence: some order of the applied adds
    // that respects happens-before keeps every successful limited_add within its limit at the
    // point it succeeded (depth-first over the orders: a handful of adds per configuration).
    void check_limits_lb() {
        const std::uint32_t applied = applied_mask();
        if (!fits_some_order(applied, 0, p.initial))
            expect(false, "limit-overshoot",
                   "no order of the successful adds that respects happens-before keeps every "
                   "limit (total %lld)",
                   ll(total_of(applied)));
    }
    // The adds that took effect (an add_batch always, a limited_add when it returned true).
    std::uint32_t applied_mask() const {
        std::uint32_t m = 0;
        for (unsigned i = 0; i < nrecs; ++i)
            if (recs[i].done && recs[i].applied) m |= 1u << i;
        return m;
    }
    // initial + the amounts of the adds in `mask`.
    s64 total_of(std::uint32_t mask) const {
        s64 t = p.initial;
        for (unsigned i = 0; i < nrecs; ++i)
            if (mask & (1u << i)) t += recs[i].amount;
        return t;
    }
    bool fits_some_order(std::uint32_t applied, std::uint32_t placed, s64 total) const {
        if (placed == applied) return true;
        for (unsigned i = 0; i < nrecs; ++i) {
            const std::uint32_t bit = 1u << i;
            if (!(applied & bit) || (placed & bit)) continue;
            if ((rec_known[i] & applied & ~placed) != 0) continue;  // an add before it is not
            const s64 t = total + recs[i].amount;
            if (recs[i].limited && (recs[i].amount > 0 ? t > recs[i].limit : t < recs[i].limit))
                continue;
            if (fits_some_order(applied, placed | bit, t)) return true;
        }
        return false;
    }

    // Is `target` the sum of the amounts of some subset of `mask`?
    bool subset_sum_hits(std::uint32_t mask, s64 target) const {
        unsigned idx[max_recs];
        unsigned n = 0;
        for (unsigned i = 0; i < nrecs; ++i)
            if (mask & (1u << i)) idx[n++] = i;
        for (std::uint32_t s = 0; s < (1u << n); ++s) {
            s64 v = 0;
            for (unsigned j = 0; j < n; ++j)
                if (s & (1u << j)) v += recs[idx[j]].amount;
            if (v == target) return true;
        }
        return false;
    }
};

// Registers the check percpu_counter/VARIANT/CONFIG of this scenario on Tasks tasks.
template <class V, unsigned T>
void register_variant_check(const char* config, const std::string& what, const params& p) {
    add_check<scenario<V, T>>("percpu_counter/" + std::string(V::name) + "/" + config,
                              "percpu_counter", V::name, what, p);
}

}  // namespace pcc
}  // namespace KVERIFY_ENGINE_NS
}  // namespace kverify::model
