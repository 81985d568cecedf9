// SPDX-License-Identifier: GPL-2.0-only
// The objpool model scenario and its configuration ladder, shared by objpool.cpp (every variant
// of impl/objpool.hpp) and by checks of a variant defined elsewhere, e.g. a patch under review
// (objpool_review_example.cpp in this folder, proofs/reviewing.md). One call,
// objpool_model::add_variant<V>(), registers V on the whole ladder.
//
// The scenario checks properties 1-8 of proofs/properties.md (objpool part):
//   duplicate        an object popped while the checker has it as held by someone else (1)
//   loss             at quiescence some object is neither in a slot nor held (2)
//   slot-invariant   0 <= last - head <= tail - head <= nr_objs fails at some step (3)
//   foreign-object   pop returned something that is not one of the pool's objects (4)
//   false-empty      a pop with nothing concurrent returned null while objects were pooled (5)
//   release          release did not run exactly once at the end (6)
//   single-owner     a CPU-local RMW on another CPU's tail (7, reported by the model)
//   data-race        a payload write by the pusher not ordered before the popper's read (8)
//   warn             push's tail - head > nr_objs warning fired (3)
// Under the LKMM (model_env::load_buffering()) a pop may return an object whose push runs later
// in the engine's order, so the checker's shared view (`state`, `expected_payload`) is no
// timeline. There each holder logs what it took and read on its own task, and after() judges the
// logs: every object drained exactly once (duplicate, loss), and per object the payloads read
// and written form one chain of handovers from the initial value to the final one
// (stale-payload: a value read twice, one never written, or a cycle). slot-invariant is a
// between-steps property and is not judged there (proofs/properties.md).
// Expected verdicts: proofs/expected/verdicts.tsv, section objpool.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "impl/objpool.hpp"
#include "model/kernel/model_env.hpp"
#include "model/kernel/scenario.hpp"

namespace kverify {
// The names of a pool's words in dpor traces (model_env::name_as): pool->ref and, per slot,
// slot[cpuN].head, .tail, .last and .entries[i]. A friend of objpool, which has no word for it.
struct objpool_words {
    template <class Env, class Variant>
    static void name(const objpool<Env, Variant>& pool) {
        using E = Env;
        E::name_as(pool.ref_, "pool->ref");
        for (unsigned cpu = 0; cpu < pool.nr_cpu_ids_; cpu++) {
            if (!pool.has_slot(cpu)) continue;
            const auto& s = *pool.cpu_slots_[cpu];
            const std::string p = "slot[cpu" + std::to_string(cpu) + "].";
            E::name_as(s.head, p + "head");
            E::name_as(s.tail, p + "tail");
            E::name_as(s.last, p + "last");
            for (std::uint32_t i = 0; i < pool.capacity_; i++)
                E::name_as(pool.entries(s)[i], p + "entries[" + std::to_string(i) + "]");
        }
    }
};
}  // namespace kverify

// Everything below has internal linkage (an unnamed namespace), as a scenario written in a .cpp
// file has: each translation unit that includes this header gets its own copy and registers its
// own checks, so nothing here can clash between translation units, however the checker is built.
namespace kverify::model {
namespace {
namespace objpool_model {

using E = model_env;

inline constexpr unsigned max_objs = 4;

struct objpool_params {
    kernel_config kernel;
    int nr_objs = 2;
    unsigned rounds = 1;           // pop-then-push rounds per task
    unsigned task_rounds[3] = {};  // task t's rounds where nonzero (else `rounds`)
    bool irq_round = false;        // the IRQ handler does one pop-then-push round
    bool nmi_round = false;        // the NMI handler does one pop-then-push round
    // Hand a payload over through the pool (property 8). Off, the structural properties
    // (1-7) are still checked: the kernel variants fail property 8 in the C11 model (see
    // proofs/objpool.md), and a data race ends an execution before anything else is seen.
    bool payload = true;
    // A task's round pushes back the object of its previous round and keeps the one it popped
    // (its last is pushed when the task ends): push then writes an object that does not depend
    // on the pop just before it (IRQ and NMI rounds push back what they popped).
    bool swap = false;
};

// What an object holds: a payload that is written by each holder before it pushes and read by
// the next holder after it pops. A plain (race-checked) cell: the pool must order the handover.
struct object {
    E::cell<unsigned> payload{0};
};

template <class Variant, unsigned Tasks>
struct objpool_scenario : scenario_base {
    static constexpr const char* properties[] = {"init",          "foreign-object", "duplicate",
                                                 "stale-payload", "slot-invariant", "loss",
                                                 "false-empty",   "release"};
    static constexpr unsigned tasks = Tasks;
    static constexpr bool lkmm_ready = true;  // per-task logs under load buffering, see above
    using params = objpool_params;
    using pool_t = objpool<E, Variant>;

    enum class where : unsigned char { pooled, held };

    pool_t pool;
    const params& p;
    object* objs[max_objs] = {};
    where state[max_objs] = {};
    unsigned expected_payload[max_objs] = {};
    unsigned next_token = 0;
    unsigned n = 0;
    unsigned released = 0;

    // Under load buffering: per task (its IRQ and NMI rounds run on its engine thread), the
    // objects it took, the payload each held and the one it left. Tokens are unique per task.
    struct holding {
        int obj;
        unsigned seen, wrote;
    };
    static constexpr unsigned max_holdings = 8;
    holding held_log[Tasks][max_holdings] = {};
    unsigned held_count[Tasks] = {};
    // params::swap: per task, the object it keeps from its previous round (i < 0: none).
    struct kept {
        E::val<void*> obj = nullptr;
        int i = -1;
    };
    kept spare[Tasks] = {};
    const bool lb = E::load_buffering();

    explicit objpool_scenario(const params& pr) : p(pr) {
        // A task round that pushes another object than it popped is not the IRQ's round.
        expect(!(p.swap && p.kernel.irq_rounds_interchangeable), "harness",
               "IRQ rounds declared interchangeable with task rounds that swap objects");
        const int rc = pool.init(p.nr_objs, sizeof(object), objinit, this, on_release);
        expect(rc == 0, "init", "objpool init failed: %d", rc);
        const cpumask possible = E::possible_mask();
        for (unsigned c = possible.next(-1); c < cpumask::max_cpus; c = possible.next(int(c)))
            for (unsigned i = 0; i < pool.objects_in_slot(c); ++i)
                objs[n++] = static_cast<object*>(pool.object_at(c, i));
        expect(n == unsigned(p.nr_objs), "init", "%u objects laid out, %d asked", n, p.nr_objs);
        if (E::naming()) {  // traces name the pool's words and the objects by role
            objpool_words::name(pool);
            for (unsigned i = 0; i < n; ++i) {
                E::name_as(objs[i], sizeof(object), "obj" + std::to_string(i));
                E::name_as(objs[i]->payload, "obj" + std::to_string(i) + ".payload");
            }
        }
        for (unsigned c = 0; c < max_cpus; ++c) {
            if (p.irq_round) E::set_irq_handler(c, on_interrupt, this);
            if (p.nmi_round) E::set_nmi_handler(c, on_interrupt, this);
        }
    }

    static int objinit(void* mem, void*) {
        ::new (mem) object();
        return 0;
    }
    static int on_release(pool_t*, void* self) {
        ++static_cast<objpool_scenario*>(self)->released;
        return 0;
    }
    static void on_interrupt(unsigned, void* self) {
        static_cast<objpool_scenario*>(self)->round();
    }

    int index_of(const void* o) const {
        for (unsigned i = 0; i < n; ++i)
            if (objs[i] == o) return int(i);
        return -1;
    }

    // kretprobe-style: take an object at function entry, give it back at return (possibly on
    // another CPU after a migration, or from an interrupt). With params::swap a task's own round
    // gives back the object of its previous round instead (see there).
    void round(bool task_round = false) {
        // The object goes back as pop read it, so push's write of the entry depends on pop's read
        // of it (in the kernel: the pointer a kretprobe holds). `o` is the checker's.
        const auto got = pool.pop();
        void* o = E::raw(got);
        if (o == nullptr) return;
        const int i = index_of(o);
        expect(i >= 0, "foreign-object", "pop returned %p, not a pool object", o);
        if (lb) {
            log_round(i);
        } else {
            expect(state[i] == where::pooled, "duplicate", "pop returned object %d, already held",
                   i);
            state[i] = where::held;
            if (p.payload) {
                object* obj = objs[i];
                const unsigned seen = E::plain_read(obj->payload).raw();  // the check's own
                expect(seen == expected_payload[i], "stale-payload",
                       "object %d payload %u, its last holder wrote %u", i, seen,
                       expected_payload[i]);
                const unsigned token = ++next_token;
                E::plain_write(obj->payload, token);
                expected_payload[i] = token;
            }
        }
        if (p.swap && task_round) {
            const unsigned t = unsigned(current_task_index());
            give_back_spare(t);
            spare[t] = {got, i};
            return;
        }
        give_back(got, i);
    }

    void give_back(const E::val<void*>& obj, int i) {
        // The checker's view changes before the push: once committed, any CPU may pop it.
        if (!lb) state[i] = where::pooled;
        pool.push(obj);
    }

    // params::swap: the object task t kept from its previous round, if any, goes back.
    void give_back_spare(unsigned t) {
        if (spare[t].i < 0) return;
        give_back(spare[t].obj, spare[t].i);
        spare[t] = {};
    }

    // A round under load buffering: what this task took and read goes into its own log only.
    void log_round(int i) {
        const unsigned t = unsigned(current_task_index());
        expect(held_count[t] < max_holdings, "harness", "more than %u rounds on task %u",
               max_holdings, t);
        holding& h = held_log[t][held_count[t]++];
        h = {i, 0, 0};
        if (!p.payload) return;
        object* obj = objs[i];
        h.seen = E::plain_read(obj->payload).raw();  // the check's own
        h.wrote = (t + 1) << 8 | held_count[t];
        E::plain_write(obj->payload, h.wrote);
    }

    void task(unsigned t) {
        const unsigned rounds = t < 3 && p.task_rounds[t] ? p.task_rounds[t] : p.rounds;
        for (unsigned r = 0; r < rounds; ++r) {
            E::round_boundary();  // the IRQ handler's round is this code (interchangeable)
            round(true);
        }
        if (p.swap) give_back_spare(t);
    }

    // Under load buffering: per object, the payloads its holders read and wrote form one chain
    // 0 -> w1 -> ... -> wk, wk the value the object holds at quiescence. A value read twice is
    // two holders taking one handover (a stale read or a duplicate); a value read that nobody
    // wrote to this object, or a final value somebody read, breaks the chain; so does a cycle
    // (holders that each read what another wrote later).
    void check_handovers() {
        for (unsigned i = 0; i < n; ++i) {
            const holding* hs[Tasks * max_holdings];
            unsigned k = 0;
            for (unsigned t = 0; t < Tasks; ++t)
                for (unsigned j = 0; j < held_count[t]; ++j)
                    if (held_log[t][j].obj == int(i)) hs[k++] = &held_log[t][j];
            const unsigned final_value = E::plain_read(objs[i]->payload).raw();
            unsigned cur = 0, steps = 0;
            for (; steps < k; ++steps) {  // follow the chain from the initial value
                const holding* next = nullptr;
                for (unsigned a = 0; a < k; ++a) {
                    if (hs[a]->seen != cur) continue;
                    expect(next == nullptr, "stale-payload",
                           "object %u: payload %u read by two holders, one handover", i, cur);
                    next = hs[a];
                }
                if (next == nullptr) break;
                cur = next->wrote;
            }
            expect(steps == k, "stale-payload",
                   "object %u: %u of its %u holders read a payload outside the chain of "
                   "handovers from 0",
                   i, k - steps, k);
            expect(final_value == cur, "stale-payload",
                   "object %u holds payload %u at quiescence, its last handover left %u", i,
                   final_value, cur);
        }
    }

    void invariant() {
        const cpumask possible = E::possible_mask();
        for (unsigned c = possible.next(-1); c < cpumask::max_cpus; c = possible.next(int(c))) {
            const auto s = pool.slot_state(c);
            const std::uint32_t used = s.tail - s.head;
            expect(s.last - s.head <= used && used <= std::uint32_t(p.nr_objs), "slot-invariant",
                   "cpu%u slot: head %u last %u tail %u, nr_objs %d", c, s.head, s.last, s.tail,
                   p.nr_objs);
        }
    }

    void after() {
        // Quiescent: drain every slot, from each CPU's point of view in turn.
        unsigned drained = 0;
        bool seen[max_objs] = {};
        const cpumask possible = E::possible_mask();
        for (unsigned c = possible.next(-1); c < cpumask::max_cpus; c = possible.next(int(c))) {
            kernel::get().set_harness_cpu(c);
            while (void* o = E::raw(pool.pop())) {
                const int i = index_of(o);
                expect(i >= 0, "foreign-object", "drain popped %p, not a pool object", o);
                expect(!seen[i] && state[i] == where::pooled, "duplicate",
                       "drain popped object %d twice", i);
                seen[i] = true;
                ++drained;
            }
        }
        // Quiescent emptiness: after the drain every slot is empty, so null was right; and
        // every object came back exactly once.
        expect(drained == n, "loss", "%u of %u objects came back at quiescence", drained, n);
        if (lb && p.payload) check_handovers();
        for (unsigned c = possible.next(-1); c < cpumask::max_cpus; c = possible.next(int(c))) {
            const auto s = pool.slot_state(c);
            expect(s.head == s.last && s.last == s.tail, "false-empty",
                   "pop found nothing but cpu%u slot has head %u last %u tail %u", c, s.head,
                   s.last, s.tail);
        }
        // Lifecycle: objects go back, fini pops them and drops the pool's reference; release
        // runs exactly once, after which no object may be touched.
        for (unsigned i = 0; i < n; ++i) {
            objs[i]->~object();
            pool.push(objs[i]);
        }
        expect(released == 0, "release", "release ran before fini");
        pool.fini();
        expect(released == 1, "release", "release ran %u times", released);
    }
};

inline std::string describe(const objpool_params& p, unsigned tasks) {
    std::string s = std::to_string(p.kernel.possible.weight()) + " cpus (mask 0x";
    char hex[8];
    std::snprintf(hex, sizeof hex, "%llx",
                  static_cast<unsigned long long>(p.kernel.possible.bits()));
    s += hex;
    s += "), " + std::to_string(tasks) + " tasks, " + std::to_string(p.nr_objs) + " objs, ";
    std::string per_task;
    for (unsigned t = 0; t < tasks && t < 3; ++t)
        per_task += (t ? "+" : "") + std::to_string(p.task_rounds[t] ? p.task_rounds[t] : p.rounds);
    const bool uneven = p.task_rounds[0] || p.task_rounds[1] || p.task_rounds[2];
    s += uneven ? per_task + " rounds by task" : std::to_string(p.rounds) + " round(s)/task";
    unsigned irqs = 0, nmis = 0;
    for (unsigned c = 0; c < max_cpus; ++c) {
        irqs += p.kernel.irq_budget[c];
        nmis += p.kernel.nmi_budget[c];
    }
    if (irqs) s += ", " + std::to_string(irqs) + " irq round(s)";
    if (nmis) s += ", " + std::to_string(nmis) + " nmi round(s)";
    if (p.kernel.migration_budget)
        s += ", " + std::to_string(p.kernel.migration_budget) + " migration(s)";
    if (!p.payload) s += ", no payload";
    if (p.swap) s += ", each round pushes the previous round's object";
    if (p.kernel.irq_rounds_interchangeable) s += ", symmetry: IRQ and task rounds interchangeable";
    return s;
}

// The configuration ladder. Names are stable: verdicts.tsv refers to them.
struct config {
    const char* name;
    unsigned tasks;
    objpool_params p;
};

inline objpool_params make(unsigned cpus_mask, int objs, unsigned rounds) {
    objpool_params p;
    p.kernel.possible = p.kernel.online = cpumask(cpus_mask);
    unsigned t = 0;
    for (unsigned c = p.kernel.possible.next(-1); c < max_cpus && t < max_tasks;
         c = p.kernel.possible.next(int(c)))
        p.kernel.task_cpu[t++] = c;
    p.nr_objs = objs;
    p.rounds = rounds;
    return p;
}

// p with an NMI handler doing one pop-then-push round, and `per_cpu` NMIs on each CPU of `cpus`.
inline objpool_params with_nmis(objpool_params p, std::uint64_t cpus, unsigned per_cpu) {
    for (unsigned c = 0; c < max_cpus; ++c)
        if (cpumask(cpus).test(c)) p.kernel.nmi_budget[c] = per_cpu;
    p.nmi_round = true;
    return p;
}

// p with an IRQ handler doing one pop-then-push round, and one IRQ on each CPU of `cpus`.
inline objpool_params with_irqs(objpool_params p, std::uint64_t cpus) {
    for (unsigned c = 0; c < max_cpus; ++c)
        if (cpumask(cpus).test(c)) p.kernel.irq_budget[c] = 1;
    p.irq_round = true;
    return p;
}

// with_irqs, declaring the symmetry it has (kernel_config::irq_rounds_interchangeable): the IRQ
// handler runs round(), the code of a task's round, so an IRQ between two of a task's rounds is
// explored at the task's start only. Not with params::swap, where a task's round differs (the
// scenario's constructor refuses the two together).
inline objpool_params with_symmetric_irqs(objpool_params p, std::uint64_t cpus) {
    p = with_irqs(p, cpus);
    p.kernel.irq_rounds_interchangeable = true;
    return p;
}

inline std::vector<config> ladder() {
    std::vector<config> l;
    l.push_back({"c2-o1", 2, make(0b11, 1, 1)});
    l.push_back({"c2-o2", 2, make(0b11, 2, 1)});
    l.push_back({"c2-o2-irq", 2, with_irqs(make(0b11, 2, 1), 0b1)});
    l.push_back({"c2-o2-nmi", 2, with_nmis(make(0b11, 2, 1), 0b1, 1)});
    l.push_back({"c2-o1-nmi", 2, with_nmis(make(0b11, 1, 1), 0b1, 1)});
    {
        objpool_params p = make(0b11, 2, 1);
        p.kernel.migration_budget = 1;
        l.push_back({"c2-o2-mig", 2, p});
    }
    // Possible mask {0,2,3} with tasks on 0 and 2: cpu3's slot holds objects nobody runs on.
    {
        objpool_params p = make(0b1101, 3, 1);
        l.push_back({"c3h-o3", 2, p});
    }
    l.push_back({"c2-o2-r2", 2, make(0b11, 2, 2)});
    // One object, two rounds: cpu0 pops and pushes it twice while cpu1 steals from cpu0's slot,
    // so a popper's failed cas can return a head ahead of the `last` it still sees (rc1).
    l.push_back({"c2-o1-r2", 2, make(0b11, 1, 2)});
    l.push_back({"c3-o3", 3, make(0b111, 3, 1)});
    {
        objpool_params p = make(0b11, 3, 1);
        l.push_back({"c2-o3", 2, p});
    }
    // NMI pushes nested in pushes on one CPU (F2, F4 and their repair, proofs/objpool.md).
    // One CPU, one task: the NMI's pop finds an object whenever the task holds the other one.
    l.push_back({"c1-o2-nmi", 1, with_nmis(make(0b1, 2, 1), 0b1, 1)});
    // Two NMIs on the task's CPU: both can land in one push window (at different delivery
    // points; NMIs do not nest), the first inside the reservation, the second in the commit.
    l.push_back({"c1-o3-nmi2", 1, with_nmis(make(0b1, 3, 1), 0b1, 2)});
    // Two rounds on one CPU with one NMI: the NMI may nest in the first push or the second.
    l.push_back({"c1-o2-r2-nmi", 1, with_nmis(make(0b1, 2, 2), 0b1, 1)});
    // Two CPUs, NMIs on both: each CPU's pushes can be nested into while the other pops.
    l.push_back({"c2-o2-nmi-both", 2, with_nmis(make(0b11, 2, 1), 0b11, 1)});
    // Two NMIs on cpu0 with three objects while cpu1 pops and pushes.
    l.push_back({"c2-o3-nmi2", 2, with_nmis(make(0b11, 3, 1), 0b1, 2)});
    // Out of Relacy's reach, exhaustive on dpor (proofs/engines.md). Three CPUs with fewer
    // objects than CPUs: cpu2 (and cpu1) start empty and steal while the owners pop and push.
    l.push_back({"c3-o2", 3, make(0b111, 2, 1)});
    l.push_back({"c3-o1", 3, make(0b111, 1, 1)});
    // Four CPUs, a task on each, with two objects and with one: two or three CPUs start empty and
    // steal from the owners' slots (exhaustive on dpor, in seconds under RC11; not on Relacy).
    l.push_back({"c4-o2", 4, make(0b1111, 2, 1)});
    l.push_back({"c4-o1", 4, make(0b1111, 1, 1)});
    l.push_back({"c3-o2-r2", 3, make(0b111, 2, 2)});
    // Three CPUs, one object each, and an IRQ round on cpu0: its pop empties cpu0's slot in the
    // middle of the task's round, so someone steals.
    l.push_back({"c3-o3-irq", 3, with_irqs(make(0b111, 3, 1), 0b1)});
    // An IRQ round on every CPU, with the symmetry declared (an IRQ between a task's rounds is
    // explored at the task's start only; `kverify run --no-symmetry` explores every position):
    // on two CPUs (its full search in seconds: tests compare both), and on three (c3-o2-irq3,
    // exhaustive in the full tier).
    l.push_back({"c2-o2-irq2", 2, with_symmetric_irqs(make(0b11, 2, 1), 0b11)});
    l.push_back({"c3-o2-irq3", 3, with_symmetric_irqs(make(0b111, 2, 1), 0b111)});
    // Two rounds with an IRQ round on cpu0, with two objects and with one.
    l.push_back({"c2-o2-r2-irq", 2, with_irqs(make(0b11, 2, 2), 0b1)});
    l.push_back({"c2-o1-r2-irq", 2, with_irqs(make(0b11, 1, 2), 0b1)});
    // An NMI round on cpu0 together with one migration of either task (at any preemptible point).
    {
        objpool_params p = with_nmis(make(0b11, 2, 1), 0b1, 1);
        p.kernel.migration_budget = 1;
        l.push_back({"c2-o2-nmi-mig", 2, p});
    }
    return l;
}

template <class Variant, unsigned Tasks>
void add_one(const config& c) {
    add_check<objpool_scenario<Variant, Tasks>>(
        std::string("objpool/") + Variant::name + "/" + c.name, "objpool", Variant::name,
        describe(c.p, Tasks), c.p);
}

// Registers c for Variant with a payload and without (suffix -np), as every configuration is.
template <class Variant, unsigned Tasks>
void add_both(config c) {
    for (const bool payload : {true, false}) {
        c.p.payload = payload;
        const std::string name = std::string(c.name) + (payload ? "" : "-np");
        config named = c;
        named.name = name.c_str();
        add_one<Variant, Tasks>(named);
    }
}

// Registers objpool/<Variant::name>/<config> for every configuration of the ladder, each also
// without a payload (suffix -np). This is all a new variant needs to be checked.
template <class Variant>
void add_variant() {
    for (const config& c : ladder()) {
        if (c.tasks == 1)
            add_both<Variant, 1>(c);
        else if (c.tasks == 2)
            add_both<Variant, 2>(c);
        else if (c.tasks == 3)
            add_both<Variant, 3>(c);
        else
            add_both<Variant, 4>(c);
    }
}

}  // namespace objpool_model
}  // namespace
}  // namespace kverify::model
