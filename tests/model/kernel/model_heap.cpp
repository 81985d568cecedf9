// SPDX-License-Identifier: GPL-2.0-only
// Self-tests of the model's kmalloc heap (model/kernel/heap.hpp): a leak and a double free are
// still found; a free from a task is still Relacy's address-reuse branch (the reuse is reachable,
// and it doubles the executions); a free at quiescence (after()) is no branch and its block is not
// handed out again in the same execution. Expected verdicts in verdicts.tsv.
#include "model/kernel/model_env.hpp"
#include "model/kernel/scenario.hpp"

namespace kverify::model {
namespace {

using E = model_env;

struct hparams {
    kernel_config kernel;
    int mode = 0;
};

kernel_config one_cpu() {
    kernel_config k;
    k.possible = k.online = cpumask::first_n(1);
    return k;
}

// mode 0: the task allocates and never frees (leak)
// mode 1: the task frees, after() frees the same block again (double-free)
// mode 2: the task frees a block and allocates one of the same size: reuse is reachable
// mode 3: the task allocates, after() frees it (no branch: one execution)
// mode 4: the task allocates and frees it (one branch: two executions)
// mode 5: after() frees a block and allocates one of the same size: never the same address
struct heap_check : scenario_base {
    static constexpr const char* properties[] = {"address-reused"};
    static constexpr unsigned tasks = 1;
    // One task: nothing it does can read a later write, and the heap's checks are the engine's.
    static constexpr bool lkmm_ready = true;
    using params = hparams;
    int mode;
    void* block = nullptr;
    explicit heap_check(const params& p) : mode(p.mode) {}
    void task(unsigned) {
        block = E::kmalloc(32);
        if (mode == 1 || mode == 4) E::kfree(block);
        if (mode == 2) {
            E::kfree(block);
            void* again = E::kmalloc(32);
            expect(again != block, "address-reused", "kmalloc handed out the freed %p again",
                   again);
            block = again;
        }
    }
    void after() {
        if (mode == 1 || mode == 3) E::kfree(block);
        if (mode == 2) E::kfree(block);
        if (mode == 5) {
            E::kfree(block);
            void* again = E::kmalloc(32);
            expect(again != block, "address-reused", "a block freed at quiescence came back");
            E::kfree(again);
        }
    }
};

void register_checks() {
    const char* const names[] = {"kernel/heap-leak",          "kernel/heap-double-free",
                                 "kernel/heap-reuse-in-task", "kernel/heap-free-after",
                                 "kernel/heap-free-in-task",  "kernel/heap-no-reuse-after"};
    const char* const what[] = {"a task kmallocs and never frees",
                                "a task frees, after() frees the same block again",
                                "a task frees and allocates the same size (reuse reachable)",
                                "a task kmallocs, after() frees (no branch)",
                                "a task kmallocs and frees (one branch)",
                                "after() frees and allocates the same size (never reused)"};
    for (int mode = 0; mode < 6; ++mode) {
        hparams p;
        p.kernel = one_cpu();
        p.mode = mode;
        add_check<heap_check>(names[mode], "kernel-model", "heap", what[mode], p);
    }
}

const registrar reg(register_checks);

}  // namespace
}  // namespace kverify::model
