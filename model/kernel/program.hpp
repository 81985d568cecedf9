// SPDX-License-Identifier: GPL-2.0-only
// The program contract: what a scenario is lowered to (scenario.hpp, program_of) and what every
// runner (model/runners) runs. Type-erased, so each runner is compiled once per engine, not once
// per scenario: a scenario type only contributes the thin functions below.
//
// Per execution a runner resets the kernel, builds its own per-execution words, then calls
// construct() into the storage; each task runs task(t) between the kernel's task_start and
// task_finish; invariant() runs between steps (under kernel::checking_invariant), after() at
// quiescence, destroy() last.
#pragma once

#include <cstddef>
#include <new>
#include <string>
#include <vector>

#include "model/check/verdict.hpp"
#include "model/kernel/kernel.hpp"

namespace kverify::model {
inline namespace KVERIFY_ENGINE_NS {

struct program {
    unsigned tasks = 1;            // engine threads, one per task (1..max_tasks)
    kernel_config kernel;          // the check's configuration, nr_tasks == tasks
    std::size_t size = 0;          // of the scenario object
    std::size_t align = 1;         // of the scenario object
    const void* params = nullptr;  // the scenario's params, passed back to construct
    void (*construct)(void* storage, const void* params) = nullptr;
    void (*task)(void* scenario, unsigned t) = nullptr;
    void (*invariant)(void* scenario) = nullptr;
    void (*after)(void* scenario) = nullptr;
    void (*destroy)(void* scenario) = nullptr;
};

// Storage for a program's scenario, one block for a whole search. Allocated before the search
// starts: Relacy takes over operator new while it runs, and the dpor engine wants the scenario's
// words at the same addresses in every execution.
class scenario_storage {
public:
    explicit scenario_storage(const program& p)
        : align_(p.align), at_(::operator new (p.size, std::align_val_t{p.align})) {}
    ~scenario_storage() { ::operator delete (at_, std::align_val_t{align_}); }
    scenario_storage(const scenario_storage&) = delete;
    scenario_storage& operator=(const scenario_storage&) = delete;
    void* get() const noexcept { return at_; }

private:
    std::size_t align_;
    void* at_;
};

// An engine of this build and its runner (model/runners/*.hpp list them; scenario.hpp registers
// each check with every one).
struct engine_runner {
    const char* name;
    verdict (*run)(const program& prog, const search_spec& spec);
    // The violation classes the engine itself reports (data races, deadlocks, ...), whatever
    // the program; a check's own classes come from its scenario and the kernel (scenario.hpp).
    std::vector<std::string> (*classes)();
    // Offered only to scenarios that declare `static constexpr bool lkmm_ready = true`
    // (scenario.hpp): an LKMM engine, under which reads may take values of later writes.
    bool needs_lkmm_ready = false;
};

}  // namespace KVERIFY_ENGINE_NS
}  // namespace kverify::model
