// SPDX-License-Identifier: GPL-2.0-only
// The model's kmalloc heap (model_env::kmalloc / kfree).
//
// Relacy's own malloc makes every free a search branch: the freed block is either reusable by the
// next allocation of its size at once or deferred, so that ABA on a reused address is explored.
// It has no free without that branch, so an objpool check that frees its slots in after(), when
// nothing runs any more, explored every execution 2^frees times over. This heap keeps Relacy's
// rule where it matters and drops it where it cannot:
// - a free from a task (task or interrupt context) is the same branch as Relacy's (same choice
//   kind and arity; deferred = quarantined, otherwise the next kmalloc of that size reuses it);
// - a free from harness code (the scenario's constructor or after(): no task runs concurrently)
//   is no branch: the block is quarantined, never handed out again in this execution, so a stale
//   pointer into it stays a detectable use of a destroyed Relacy object instead of aliasing a
//   new one.
// Checks kept: a block still allocated at the end of an execution is a leak (each block carries a
// Relacy var as its token; a live token is Relacy's resource leak), and freeing something that
// is not a live block is reported as double-free. Memory is never returned to the system during
// a search (freed blocks are recycled), as in Relacy, so a late access reads mapped memory.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <new>

#include "model/kernel/kernel.hpp"

namespace kverify::model {
inline namespace eng_relacy {

class heap {
public:
    static heap& get() noexcept {
        static heap h;
        return h;
    }

    void* alloc(std::size_t bytes, src_loc loc) {
        enter_search();
        block* b = take_free(bytes);
        if (b == nullptr) {
            b = static_cast<block*>(std::malloc(sizeof(block) + bytes));
            if (b == nullptr) return nullptr;
            b->size = bytes;
        }
        ::new (static_cast<void*>(b->token)) token_t();  // no scheduling point, no branch
        b->next = live_;
        live_ = b;
        void* p = payload(b);
        kernel::get().log(loc, "kmalloc %zu bytes at %p", bytes, p);
        return p;
    }

    void free(void* p, src_loc loc) {
        if (p == nullptr) return;
        enter_search();
        kernel& k = kernel::get();
        block** link = &live_;
        while (*link != nullptr && payload(*link) != p) link = &(*link)->next;
        if (*link == nullptr) {
            k.fail(kernel_class::double_free, loc, "kfree(%p): not a live kmalloc block", p);
            return;
        }
        block* b = *link;
        *link = b->next;
        reinterpret_cast<token_t*>(b->token)->~token_t();
        bool defer = true;  // harness code: quarantined, no branch
        if (k.in_body()) {
            // Relacy's own choice for a free: deferred with probability 1/2 (1/4 when sampling).
            rl::context& c = rl::ctx();
            defer = c.rand(c.is_random_sched() ? 4 : 2, rl::sched_type_mem_realloc) == 0;
        }
        k.log(loc, "kfree %p%s", p, defer ? " (quarantined)" : " (reusable at once)");
        if (defer)
            quarantine(b);
        else
            push_free(b);
    }

private:
    using token_t = rl::var<char>;
    struct alignas(alignof(std::max_align_t)) block {
        block* next;  // on the live list, the free list, or nowhere (quarantined)
        std::size_t size;
        alignas(token_t) unsigned char token[sizeof(token_t)];
    };
    static constexpr unsigned quarantine_size = 64;  // as Relacy's deferred frees

    static void* payload(block* b) noexcept { return reinterpret_cast<unsigned char*>(b + 1); }

    // A new Relacy search (context) starts with no live block. Blocks still live belong to a
    // search that stopped inside an execution (a violation, a time budget): their tokens went
    // with that search, so they are recycled as they are.
    void enter_search() {
        const unsigned seq = rl::ctx().get_ctx_seq();
        if (seq == ctx_seq_) return;
        ctx_seq_ = seq;
        while (live_ != nullptr) {
            block* b = live_;
            live_ = b->next;
            push_free(b);
        }
    }

    block* take_free(std::size_t bytes) noexcept {
        for (block** link = &free_; *link != nullptr; link = &(*link)->next) {
            if ((*link)->size != bytes) continue;
            block* b = *link;
            *link = b->next;
            return b;
        }
        return nullptr;
    }
    void push_free(block* b) noexcept {
        b->next = free_;
        free_ = b;
    }
    void quarantine(block* b) noexcept {
        block*& slot = quarantined_[quarantine_next_++ % quarantine_size];
        if (slot != nullptr) push_free(slot);  // the oldest becomes reusable
        slot = b;
    }

    block* live_ = nullptr;
    block* free_ = nullptr;
    block* quarantined_[quarantine_size] = {};
    unsigned quarantine_next_ = 0;
    unsigned ctx_seq_ = 0;
};

inline void* engine::alloc(std::size_t bytes, src_loc l) { return heap::get().alloc(bytes, l); }
inline void engine::free(void* p, src_loc l) { heap::get().free(p, l); }

}  // namespace eng_relacy
}  // namespace kverify::model
