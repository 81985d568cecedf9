// SPDX-License-Identifier: GPL-2.0-only
// A patch under review, checked without touching impl/ (proofs/reviewing.md walks through it).
// The patch: objpool's push reserves its sequence with a CPU-local cmpxchg instead of
// try_cmpxchg_acquire (the first seed, proposed Oct 2023). It changes one knob of v6.7.
#include "tests/model/objpool/objpool_scenario.hpp"

namespace {

struct review_local_cas : kverify::objpool_v6_7 {
    static constexpr const char* name = "review-local-cas";
    static constexpr auto push_reserve = kverify::objpool_reserve::cas_local;
};

const kverify::model::registrar reg([] {
    kverify::model::objpool_model::add_variant<review_local_cas>();
});

}  // namespace
