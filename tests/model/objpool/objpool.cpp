// SPDX-License-Identifier: GPL-2.0-only
// Model checks of impl/objpool.hpp: every variant over the configuration ladder of
// objpool_scenario.hpp (CPUs with holes in the possible mask, object counts, IRQ and NMI handlers
// that pop and push on the interrupted CPU, migration between pop and push).
// Expected verdicts: proofs/expected/verdicts.tsv, section objpool.
#include "tests/model/objpool/objpool_scenario.hpp"

namespace kverify::model {
namespace {

void register_checks() {
    objpool_all_variants::for_each(
        [](auto tag) { objpool_model::add_variant<typename decltype(tag)::type>(); });
}

const registrar reg(register_checks);

}  // namespace
}  // namespace kverify::model
