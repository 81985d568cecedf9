// SPDX-License-Identifier: GPL-2.0-only
// Scoped irq-off and preemption-off sections over any Env (the kernel's
// local_irq_save/restore and preempt_disable/enable pairs, as RAII).
#pragma once

#include "impl/common.hpp"

namespace kverify {

template <class Env>
class irq_save_guard {
public:
    explicit irq_save_guard(src_loc loc = {}) : loc_(loc), flags_(Env::local_irq_save(loc)) {}
    ~irq_save_guard() { Env::local_irq_restore(flags_, loc_); }
    irq_save_guard(const irq_save_guard&) = delete;
    irq_save_guard& operator=(const irq_save_guard&) = delete;

private:
    src_loc loc_;
    typename Env::irq_flags flags_;
};

template <class Env>
class preempt_guard {
public:
    explicit preempt_guard(src_loc loc = {}) : loc_(loc) { Env::preempt_disable(loc); }
    ~preempt_guard() { Env::preempt_enable(loc_); }
    preempt_guard(const preempt_guard&) = delete;
    preempt_guard& operator=(const preempt_guard&) = delete;

private:
    src_loc loc_;
};

}  // namespace kverify
