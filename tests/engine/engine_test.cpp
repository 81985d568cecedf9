// SPDX-License-Identifier: GPL-2.0-only
// The dpor engine's own verdicts, each with a twin that must not report it: data races on plain
// accesses, memory errors, event limits, deadlocks and livelocks (spin-assume), choice points,
// budgets, and replay strings that reproduce a counterexample exactly.
#include <gtest/gtest.h>

#include <string>

#include "model/dpor/engine.hpp"

namespace kverify::dpor {
namespace {

const src_loc here("engine_test", 0, "test");

result run(unsigned tasks, std::function<void()> setup, std::function<void(unsigned)> task,
           std::function<void()> teardown = {}, options opt = {}) {
    program p;
    p.tasks = tasks;
    p.setup = std::move(setup);
    p.task = std::move(task);
    p.teardown = std::move(teardown);
    return explore(p, opt);
}

std::string first_class(const result& r) { return r.violations.empty() ? "" : r.violations[0].cls; }

// Message passing of a plain payload: racy with a relaxed flag, race-free with release/acquire.
result message_passing(mo store_order, mo load_order) {
    static std::uint64_t payload, flag;
    return run(
        2,
        [] {
            rt::init_plain(&payload, 8, 0, here);
            rt::init_atomic(&flag, 8, 0, here);
        },
        [=](unsigned t) {
            if (t == 0) {
                rt::plain_store(&payload, 42, here);
                rt::store(&flag, 1, store_order, here);
            } else if (rt::load(&flag, load_order, here) == 1) {
                if (rt::plain_load(&payload, here) != 42)
                    rt::fail("stale", "payload not seen", here);
            }
        });
}

TEST(EngineRaces, RelaxedHandoverOfPlainDataIsADataRace) {
    const result r = message_passing(mo::relaxed, mo::relaxed);
    EXPECT_EQ(first_class(r), "data-race");
    ASSERT_FALSE(r.violations.empty());
    EXPECT_NE(r.violations[0].trace.find("plain"), std::string::npos) << r.violations[0].trace;
}

TEST(EngineRaces, ReleaseAcquireHandoverIsRaceFree) {
    const result r = message_passing(mo::release, mo::acquire);
    EXPECT_TRUE(r.violations.empty()) << first_class(r);
    EXPECT_EQ(r.executions, 2u);  // the reader sees the flag or not
}

TEST(EngineRaces, ReleaseSequenceThroughAnRmwSynchronises) {
    // T0 writes the payload and releases the flag; T1 bumps the flag with a relaxed RMW; T2
    // acquires the bumped value: the RMW continues T0's release sequence, so no race.
    static std::uint64_t payload, flag;
    const result r = run(
        3,
        [] {
            rt::init_plain(&payload, 8, 0, here);
            rt::init_atomic(&flag, 8, 0, here);
        },
        [](unsigned t) {
            if (t == 0) {
                rt::plain_store(&payload, 7, here);
                rt::store(&flag, 1, mo::release, here);
            } else if (t == 1) {
                rt::fetch_add(&flag, 1, mo::relaxed, here);
            } else if (rt::load(&flag, mo::acquire, here) == 2) {
                rt::plain_load(&payload, here);
            }
        });
    EXPECT_TRUE(r.violations.empty()) << first_class(r) << "\n"
                                      << (r.violations.empty() ? "" : r.violations[0].trace);
}

TEST(EngineRaces, RelaxedStoreBreaksTheReleaseSequence) {
    // The same, but T1 overwrites the flag with a plain relaxed store of 2: no longer in T0's
    // release sequence, so T2 reading 2 does not synchronise with T0.
    static std::uint64_t payload, flag;
    const result r = run(
        3,
        [] {
            rt::init_plain(&payload, 8, 0, here);
            rt::init_atomic(&flag, 8, 0, here);
        },
        [](unsigned t) {
            if (t == 0) {
                rt::plain_store(&payload, 7, here);
                rt::store(&flag, 1, mo::release, here);
            } else if (t == 1) {
                if (rt::load(&flag, mo::relaxed, here) == 1) rt::store(&flag, 2, mo::relaxed, here);
            } else if (rt::load(&flag, mo::acquire, here) == 2) {
                rt::plain_load(&payload, here);
            }
        });
    EXPECT_EQ(first_class(r), "data-race");
}

TEST(EngineMemory, UseAfterFreeDoubleFreeAndLeakAreReported) {
    const result uaf = run(
        1, [] {},
        [](unsigned) {
            void* p = rt::alloc(8, here);
            rt::init_atomic(p, 8, 0, here);
            rt::dealloc(p, here);
            rt::load(p, mo::relaxed, here);
        });
    EXPECT_EQ(first_class(uaf), "use-after-free");
    const result dbl = run(
        1, [] {},
        [](unsigned) {
            void* p = rt::alloc(8, here);
            rt::dealloc(p, here);
            rt::dealloc(p, here);
        });
    EXPECT_EQ(first_class(dbl), "double-free");
    const result leak = run(
        1, [] {}, [](unsigned) { rt::alloc(16, here); });
    EXPECT_EQ(first_class(leak), "leak");
    const result clean = run(
        1, [] {},
        [](unsigned) {
            void* p = rt::alloc(8, here);
            rt::init_atomic(p, 8, 0, here);
            rt::store(p, 1, mo::relaxed, here);
            rt::dealloc(p, here);
        });
    EXPECT_TRUE(clean.violations.empty()) << first_class(clean);
    EXPECT_EQ(clean.executions, 1u);
}

TEST(EngineLimits, AnUnboundedLoopHitsTheEventLimit) {
    static std::uint64_t x;
    options opt;
    opt.max_events = 500;
    const result r = run(
        1, [] { rt::init_atomic(&x, 8, 0, here); },
        [](unsigned) {
            for (;;) rt::load(&x, mo::relaxed, here);  // never changes, no cpu_relax
        },
        {}, opt);
    EXPECT_EQ(first_class(r), "event-limit");
}

TEST(EngineLimits, ATimeBudgetGivesAnIncompleteResult) {
    static std::uint64_t x;
    options opt;
    opt.budget_s = 0.2;
    // Six tasks each writing twice and reading twice: far more executions than 0.2 s allows.
    const result r = run(
        6, [] { rt::init_atomic(&x, 8, 0, here); },
        [](unsigned t) {
            rt::store(&x, t, mo::relaxed, here);
            rt::load(&x, mo::relaxed, here);
            rt::store(&x, t + 10, mo::relaxed, here);
            rt::load(&x, mo::relaxed, here);
        },
        {}, opt);
    EXPECT_FALSE(r.complete);
    EXPECT_NE(r.incomplete_reason.find("time budget"), std::string::npos);
}

// A retry loop that carries state between iterations (objpool's pop re-reads `head` before it
// retries): the first failed iteration must not be cut. Here the thread's own store makes `x` 1
// after it read 0, so no execution can read 1 at the first load: the loop exits only in its second
// iteration, with the value its first iteration re-read. Cutting the first failed iteration (a
// plain spin-assume) would leave no complete execution at all, and report a livelock.
TEST(EngineBlocking, ASpinLoopThatCarriesStateIsNotCutAfterOneIteration) {
    static std::uint64_t x;
    const result r = run(
        1, [] { rt::init_atomic(&x, 8, 0, here); },
        [](unsigned) {
            value_t h = rt::load(&x, mo::relaxed, here);  // 0: nothing else writes x yet
            rt::store(&x, 1, mo::relaxed, here);
            for (;;) {
                const value_t l = rt::load(&x, mo::relaxed, here);  // 1
                if (l == h) return;
                h = rt::load(&x, mo::relaxed, here);  // carried into the next iteration
                rt::spin_iteration(here);
            }
        });
    EXPECT_TRUE(r.violations.empty()) << first_class(r);
    EXPECT_EQ(r.executions, 1u);
    EXPECT_EQ(r.blocked, 0u);
}

// A test-and-set lock taken by two tasks, as the kernel layer models a contended spinlock: a cas
// that fails blocks the task (it would spin); a later unlock revisits the cas.
void lock(std::uint64_t* l) {
    value_t exp = 0;
    if (!rt::cas(l, exp, 1, mo::acquire, mo::relaxed, here)) rt::block("lock", here);
}
void unlock(std::uint64_t* l) { rt::store(l, 0, mo::release, here); }

TEST(EngineBlocking, ALockProtectsItsDataAndEachOrderIsOneExecution) {
    static std::uint64_t l, data;
    const result r = run(
        2,
        [] {
            rt::init_atomic(&l, 8, 0, here);
            rt::init_plain(&data, 8, 0, here);
        },
        [](unsigned) {
            lock(&l);
            rt::plain_store(&data, rt::plain_load(&data, here) + 1, here);
            unlock(&l);
        },
        [] {
            if (rt::plain_load(&data, here) != 2)
                rt::fail("lost-update", "an increment was lost", here);
        });
    EXPECT_TRUE(r.violations.empty()) << first_class(r);
    EXPECT_EQ(r.executions, 2u);  // who takes the lock first
}

TEST(EngineBlocking, ALockNeverReleasedIsADeadlock) {
    static std::uint64_t l;
    const result r = run(
        2, [] { rt::init_atomic(&l, 8, 0, here); },
        [](unsigned) {
            lock(&l); /* and never unlock */
        });
    EXPECT_EQ(first_class(r), "deadlock");
}

TEST(EngineBlocking, AWaitThatNothingSatisfiesIsALivelockAndAFlagSetLaterIsNot) {
    static std::uint64_t flag;
    auto waiter = [](bool someone_sets) {
        return run(
            2, [] { rt::init_atomic(&flag, 8, 0, here); },
            [someone_sets](unsigned t) {
                if (t == 0) {
                    while (rt::load(&flag, mo::acquire, here) == 0) rt::spin_iteration(here);
                } else if (someone_sets) {
                    rt::store(&flag, 1, mo::release, here);
                }
            });
    };
    const result stuck = waiter(false);
    EXPECT_EQ(first_class(stuck), "livelock");
    const result ok = waiter(true);
    EXPECT_TRUE(ok.violations.empty()) << first_class(ok);
    // The waiter reads the flag set at once, or after one iteration that read 0; a second
    // iteration reading 0 again is cut (nothing changed since the first): finite, and one
    // execution more than the outcomes.
    EXPECT_EQ(ok.executions, 2u);
    EXPECT_EQ(ok.blocked, 1u);
}

// A waiter that blocks unless it reads 2, with the writes 1 then 2 (and, in `later`, 3) of
// another thread; `declare` says so with rt::await_next; it really blocks unless it reads
// `blocks_unless`.
result await_flag(bool declare, value_t blocks_unless, bool later = false,
                  memory_model m = memory_model::rc11) {
    static std::uint64_t flag;
    options opt;
    opt.model = m;
    return run(
        2, [] { rt::init_atomic(&flag, 8, 0, here); },
        [=](unsigned t) {
            if (t == 0) {
                rt::store(&flag, 1, mo::relaxed, here);
                rt::store(&flag, 2, mo::relaxed, here);
                if (later) rt::store(&flag, 3, mo::relaxed, here);
                return;
            }
            if (declare) rt::await_next(await_kind::unless_equal, 2);
            if (rt::load(&flag, mo::relaxed, here) != blocks_unless) rt::block("wait", here);
        },
        {}, opt);
}

TEST(EngineBlocking, ADeclaredAwaitStartsNoRunThatOnlyBlocksOnAnOlderWrite) {
    for (const memory_model m : {memory_model::rc11, memory_model::sc}) {
        SCOPED_TRACE(to_string(m));
        const result plain = await_flag(false, 2, false, m);
        const result declared = await_flag(true, 2, false, m);
        EXPECT_TRUE(plain.violations.empty()) << first_class(plain);
        EXPECT_TRUE(declared.violations.empty()) << first_class(declared);
        EXPECT_EQ(declared.executions, plain.executions);
        ASSERT_GT(plain.stale_cut, 0u);  // the waiter reads 0 or 1 from an older write
        EXPECT_EQ(declared.stale_cut, 0u);
        EXPECT_EQ(declared.blocked, plain.blocked - plain.stale_cut);
        EXPECT_LT(declared.replays, plain.replays);
        // A wait on the newest write is still run: when 3 follows 2 the waiter may be left
        // reading 3, blocked for good on the newest value: a deadlock, declared or not.
        EXPECT_EQ(first_class(await_flag(false, 2, true, m)), "deadlock");
        EXPECT_EQ(first_class(await_flag(true, 2, true, m)), "deadlock");
    }
    // Under the LKMM nothing is skipped (a revisit there may delete any read).
    const result lp = await_flag(false, 2, false, memory_model::lkmm);
    const result ld = await_flag(true, 2, false, memory_model::lkmm);
    EXPECT_EQ(ld.executions, lp.executions);
    EXPECT_EQ(ld.blocked, lp.blocked);
}

TEST(EngineBlocking, AnAwaitTheProgramDoesNotKeepIsAnInternalError) {
    // Declared: blocks unless 2. It blocks unless 1 instead: it goes on after reading 1, where
    // the declaration said it blocks, and blocks after reading 2, where it said it goes on.
    try {
        await_flag(true, 1);
        ADD_FAILURE() << "a broken await declaration was not refused";
    } catch (const std::logic_error& e) {
        EXPECT_NE(std::string(e.what()).find("await"), std::string::npos) << e.what();
    }
    // On an RMW with a write half between the read and the block: refused.
    static std::uint64_t w;
    EXPECT_THROW(run(
                     1, [] { rt::init_atomic(&w, 8, 0, here); },
                     [](unsigned) {
                         rt::await_next(await_kind::unless_equal, 1);
                         if (rt::fetch_add(&w, 1, mo::relaxed, here) != 1) rt::block("wait", here);
                     }),
                 std::logic_error);
}

TEST(EngineChoice, EveryOutcomeOfAChoiceIsExplored) {
    static unsigned seen;
    seen = 0;
    const result r = run(
        1, [] {},
        [](unsigned) {
            const unsigned a = rt::choose(3, here), b = rt::choose(2, here);
            seen |= 1u << (a * 2 + b);
        });
    EXPECT_EQ(r.executions, 6u);
    EXPECT_EQ(seen, 0x3fu);
}

// after_event (the scenario's invariant) runs only when what rt::peek returns may have changed:
// a state that a plain store leaves between two events, or a write that a later write covers
// at once, must still be seen; and a check of a read-only stretch never fails where it did not
// before. The task's plain store of 1 is followed by a read and then undone: only the engine's
// count of changes makes the read's after_event look (engine.hpp, after_event).
TEST(EngineInvariant, AfterEventSeesEveryStateThatPeekCanShow) {
    static std::uint64_t p, x, y;
    static unsigned calls;
    auto program = [](bool plain) {
        calls = 0;
        options o;
        o.after_event = [plain] {
            ++calls;
            if (rt::peek(plain ? static_cast<const void*>(&p) : &x) == 1)
                rt::fail("invariant", "the value 1 was seen", here);
            return true;
        };
        return run(
            1,
            [] {
                rt::init_plain(&p, 8, 0, here);
                rt::init_atomic(&x, 8, 0, here);
                rt::init_atomic(&y, 8, 0, here);
            },
            [plain](unsigned) {
                if (plain) {
                    rt::plain_store(&p, 1, here);
                    rt::load(&y, mo::relaxed, here);
                    rt::plain_store(&p, 0, here);
                } else {
                    rt::store(&x, 1, mo::relaxed, here);
                    rt::store(&x, 0, mo::relaxed, here);
                }
                rt::load(&y, mo::relaxed, here);
            },
            {}, o);
    };
    EXPECT_EQ(first_class(program(true)), "invariant");
    EXPECT_EQ(first_class(program(false)), "invariant");
    // Twin: nothing shows 1, so no violation; and reads ask nothing: four reads make as many
    // calls as two.
    auto reads = [](unsigned n) {
        calls = 0;
        options o;
        o.after_event = [] {
            ++calls;
            if (rt::peek(&p) == 1) rt::fail("invariant", "the value 1 was seen", here);
            return true;
        };
        const result r = run(
            1,
            [] {
                rt::init_plain(&p, 8, 0, here);
                rt::init_atomic(&y, 8, 0, here);
            },
            [n](unsigned) {
                for (unsigned k = 0; k < n; ++k) rt::load(&y, mo::relaxed, here);
            },
            {}, o);
        EXPECT_TRUE(r.violations.empty()) << first_class(r);
        return calls;
    };
    const unsigned two = reads(2);
    EXPECT_GT(two, 0u);
    EXPECT_EQ(reads(4), two);
}
TEST(EngineReplay, AReplayStringReproducesTheSameTrace) {
    static std::uint64_t x, y;
    auto setup = [] {
        rt::init_atomic(&x, 8, 0, here);
        rt::init_atomic(&y, 8, 0, here);
    };
    auto task = [](unsigned t) {
        if (t == 0) {
            rt::store(&x, 1, mo::relaxed, here);
            rt::store(&y, 1, mo::relaxed, here);
        } else {
            const value_t b = rt::load(&y, mo::relaxed, here);
            const value_t a = rt::load(&x, mo::relaxed, here);
            if (b == 1 && a == 0) rt::fail("weak-outcome", "MP: flag seen, data not", here);
        }
    };
    const result r = run(2, setup, task);
    ASSERT_EQ(first_class(r), "weak-outcome");
    options opt;
    opt.replay = r.violations[0].replay;
    const result again = run(2, setup, task, {}, opt);
    ASSERT_EQ(first_class(again), "weak-outcome");
    EXPECT_EQ(again.violations[0].trace, r.violations[0].trace);
    EXPECT_NE(r.violations[0].trace.find("NOT THE NEWEST"), std::string::npos)
        << r.violations[0].trace;
    // Under SC the weak outcome does not exist.
    options sc;
    sc.model = memory_model::sc;
    EXPECT_TRUE(run(2, setup, task, {}, sc).violations.empty());
}

TEST(EngineInput, BadProgramsAndReplayStringsAreRefused) {
    EXPECT_THROW(run(
                     0, [] {}, [](unsigned) {}),
                 std::invalid_argument);
    EXPECT_THROW(run(
                     max_threads, [] {}, [](unsigned) {}),
                 std::invalid_argument);
    options opt;
    opt.replay = "not a replay";
    EXPECT_THROW(run(
                     1, [] {}, [](unsigned) {}, {}, opt),
                 std::invalid_argument);
}

}  // namespace
}  // namespace kverify::dpor
