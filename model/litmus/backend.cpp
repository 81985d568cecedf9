// SPDX-License-Identifier: GPL-2.0-only
// Names of the LKMM kinds and the dependency sets of the backend interface (backend.hpp).
#include "model/litmus/backend.hpp"

namespace kverify::litmus {

const char* to_string(access a) {
    static const char* const names[] = {"once", "acquire", "release", "mb", "noreturn", "plain"};
    return names[unsigned(a)];
}

const char* to_string(fence_kind f) {
    static const char* const names[] = {"mb",
                                        "rmb",
                                        "wmb",
                                        "before-atomic",
                                        "after-atomic",
                                        "after-spinlock",
                                        "after-unlock-lock",
                                        "barrier"};
    return names[unsigned(f)];
}

const char* to_string(rmw_op o) {
    static const char* const names[] = {"xchg", "add", "sub", "and", "or", "xor", "andnot"};
    return names[unsigned(o)];
}

std::vector<event_id> dep_set::ids() const {
    std::vector<event_id> out;
    for (event_id e = 0; e < max_thread_events; ++e)
        if (bits_.test(e)) out.push_back(e);
    return out;
}

std::string dep_set::to_string() const {
    std::string s = "{";
    for (event_id e : ids()) s += (s.size() > 1 ? "," : "") + std::to_string(e);
    return s + "}";
}

}  // namespace kverify::litmus
