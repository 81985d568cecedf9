// SPDX-License-Identifier: GPL-2.0-only
// What a task learns when it takes a CPU's token, the same on every engine (model::engine's
// cpu_token returns it; kernel.hpp, take_cpu and the preemptions, reads it).
#pragma once

#include <cstdint>

namespace kverify::model {

struct cpu_taken {
    static constexpr unsigned no_news = ~0u;  // no migration budget learnt (the initial word)
    std::uint32_t state = 0;    // the CPU's own state as its releaser left it (handoff_word)
    unsigned budget = no_news;  // the migration budget as the releasing task knew it left
    bool preempted = false;     // another task held the CPU since this one let it go
};

}  // namespace kverify::model
