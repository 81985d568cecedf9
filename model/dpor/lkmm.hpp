// SPDX-License-Identifier: GPL-2.0-only
// The LKMM's axioms on a whole execution graph (lkmm.cpp): for the model's consistency checks and
// for the engine's tests. Internal to model/dpor.
#pragma once

#include "model/dpor/graph.hpp"
#include "model/dpor/relation.hpp"

namespace kverify::dpor::detail {

// Coherence, atomicity, happens-before and propagation of linux-kernel.cat hold on g.
bool lkmm_consistent(const graph& g);

}  // namespace kverify::dpor::detail
