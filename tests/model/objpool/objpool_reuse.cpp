// SPDX-License-Identifier: GPL-2.0-only
// Configurations for `kverify orders` (issue 19) that the ladder of objpool_scenario.hpp does
// not reach, each registered for the variants whose orderings it settles (proofs/objpool.md,
// "Which orderings are needed"), and a test-only mutant for `orders --strengthen`.
//
// c3-o2-reuse: a ring position is written again while a popper on another CPU may still be
// reading it. Three possible CPUs, two objects: cpu0 and cpu1 hold one each, cpu2 none. The task
// on cpu2 steals cpu0's object (one round); the task on cpu0 (two rounds) then finds its own
// slot empty, steals cpu1's object, pushes it into its own ring, pops it again and pushes it
// once more: its second push writes sequence 2, which is position 0 of a ring of capacity 2,
// the position the thief read. A thief whose read of that entry may take the value written
// there later (load buffering, which only the LKMM allows) returns the second object while cpu0
// holds it: a duplicate, and the first object is lost. The release cas of `head` orders the
// thief's read before the move of head that lets the owner refill the position.
// Expected verdicts: proofs/expected/verdicts.tsv, section objpool.
#include "tests/model/objpool/objpool_scenario.hpp"

namespace kverify {

// fix-nested-push with pop reading `last` by READ_ONCE again: F1 put back into the repair of F2
// and F4, so that its only bug is one ordering (the acquire of `last`), which
// `orders --strengthen` must find as its repair; test-only, never for use.
struct objpool_mut_nested_last_once : objpool_fix_nested_push {
    static constexpr const char* name = "mut-nested-last-once";
    static constexpr bool known_bad = true;
    static constexpr bool pop_last_acquire = false;
};

}  // namespace kverify

namespace kverify::model {
namespace {

objpool_model::config reuse_config() {
    objpool_model::objpool_params p = objpool_model::make(0b111, 2, 1);
    p.kernel.task_cpu[1] = 2;  // the thief runs where no object starts
    p.task_rounds[0] = 2;
    return {"c3-o2-reuse", 2, p};
}

void register_checks() {
    objpool_model::add_both<objpool_fix_acquire_last, 2>(reuse_config());
    objpool_model::add_both<objpool_fix_nested_push, 2>(reuse_config());
    objpool_model::add_both<objpool_refresh_acquire, 2>(reuse_config());
    // The mutant where F1 shows (c2-o1) and where an NMI push nests in a push (c1-o2-nmi, F2's
    // shape, which fix-acquire-last fails): every row of it must pass once it is repaired.
    for (const objpool_model::config& c : objpool_model::ladder()) {
        const std::string n = c.name;
        if (n == "c2-o1") objpool_model::add_both<objpool_mut_nested_last_once, 2>(c);
        if (n == "c1-o2-nmi") objpool_model::add_both<objpool_mut_nested_last_once, 1>(c);
    }
}

const registrar reg(register_checks);

}  // namespace
}  // namespace kverify::model
