// SPDX-License-Identifier: GPL-2.0-only
// The refill after a failed cmpxchg (proofs/objpool.md, "Under the LKMM: ..."): a caller whose
// push does not write back the object its pop just returned.
//
// c2-o2-r2-irq-swap: the ladder's c2-o2-r2-irq (two CPUs, two objects, two rounds per task, an
// IRQ round on cpu0), with every task round pushing back the object of the task's previous
// round and keeping the one it popped (objpool_params::swap). The hazard looked for: a thief
// on cpu1 reads an entry of cpu0's slot and moves head past it; cpu0's cmpxchg of head fails,
// reading the thief's head, its retry takes the next entry, and a push refills the position the
// thief read. Under the LKMM the thief's read may return that refill (load buffering) unless
// something orders the refill after the failed read: the pushed object's dependency on that pop
// (a caller pushing back what pop gave it, the ladder's rounds; the LKMM carries it through the
// caller's memory too) or an acquire (refresh-acquire). RC11 forbids the cycle whatever the
// code does. Registered for the variants the finding is about and the hardening.
// Expected verdicts: proofs/expected/verdicts.tsv, section objpool.
#include "tests/model/objpool/objpool_scenario.hpp"

namespace kverify::model {
namespace {

objpool_model::config swap_config() {
    for (objpool_model::config c : objpool_model::ladder()) {
        if (std::string(c.name) != "c2-o2-r2-irq") continue;
        c.name = "c2-o2-r2-irq-swap";
        c.p.swap = true;
        return c;
    }
    expect(false, "harness", "the ladder has no c2-o2-r2-irq");
    return {};
}

void register_checks() {
    objpool_model::add_both<objpool_fix_acquire_last, 2>(swap_config());
    objpool_model::add_both<objpool_fix_nested_push, 2>(swap_config());
    objpool_model::add_both<objpool_refresh_acquire, 2>(swap_config());
}

const registrar reg(register_checks);

}  // namespace
}  // namespace kverify::model
