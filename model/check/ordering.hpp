// SPDX-License-Identifier: GPL-2.0-only
// The ordering override of `kverify run --weaken` and `kverify orders` (issue 19): a site of
// impl/ (its source line and kernel primitive) run one step weaker, or one or two sites one step
// stronger (`orders --strengthen`), and the record of the sites a search reaches. Engine-neutral:
// the command line sets it, model_env (the model build only) reads it at each ordering primitive;
// the real build never sees it. All of its state is the one object ordering() returns (a
// thread_local there would make it per exploring thread).
#pragma once

#include <cstdint>
#include <cstring>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace kverify::model {

// The one-step weakenings, by kernel primitive: each form is what the primitive becomes.
struct ordering_step {
    const char* primitive;
    std::vector<const char*> forms;  // empty: already the weakest form the Env has
};

inline const std::vector<ordering_step>& ordering_steps() {
    static const std::vector<ordering_step> steps = {
        {"READ_ONCE", {}},
        {"WRITE_ONCE", {}},
        {"smp_load_acquire", {"READ_ONCE"}},
        {"smp_store_release", {"WRITE_ONCE"}},
        {"try_cmpxchg", {"try_cmpxchg_acquire", "try_cmpxchg_release", "try_cmpxchg_relaxed"}},
        {"try_cmpxchg_acquire", {"try_cmpxchg_relaxed"}},
        {"try_cmpxchg_release", {"try_cmpxchg_relaxed"}},
        {"try_cmpxchg_relaxed", {}},
        {"smp_mb", {"smp_rmb", "smp_wmb", "none"}},
        {"smp_rmb", {"none"}},
        {"smp_wmb", {"none"}},
        // CPU-local RMWs to the generic form: a read and a write that an interrupt on this CPU
        // can split (the kernel's generic __this_cpu / raw_cpu ops, without the debug check).
        {"try_cmpxchg_local", {"generic"}},
        {"this_cpu_add", {"generic"}},
        {"this_cpu_sub", {"generic"}},
        {"this_cpu_try_cmpxchg", {"generic"}},
        // Regions: irqs off to preemption off; preemption off to nothing; the irq-save of a
        // lock to the plain lock (which still disables preemption).
        {"local_irq_save", {"preempt_disable"}},
        {"spin_lock_irqsave", {"spin_lock"}},
        {"preempt_disable", {"none"}},
    };
    return steps;
}

// The one-step strengthenings: the reverse steps of the table above, and the stronger forms of
// the generic __this_cpu RMWs (their CPU-local this_cpu form) and of a CPU-local cas (the fully
// SMP-atomic form the kernel writes). A fence where impl/ has none is no site: not offered.
inline const std::vector<ordering_step>& strengthening_steps() {
    static const std::vector<ordering_step> steps = {
        {"READ_ONCE", {"smp_load_acquire"}},
        {"WRITE_ONCE", {"smp_store_release"}},
        {"try_cmpxchg_relaxed", {"try_cmpxchg_acquire", "try_cmpxchg_release", "try_cmpxchg"}},
        {"try_cmpxchg_acquire", {"try_cmpxchg"}},
        {"try_cmpxchg_release", {"try_cmpxchg"}},
        {"smp_rmb", {"smp_mb"}},
        {"smp_wmb", {"smp_mb"}},
        {"try_cmpxchg_local", {"try_cmpxchg_acquire"}},
        {"__this_cpu_add", {"this_cpu_add"}},
        {"__this_cpu_sub", {"this_cpu_sub"}},
        {"__this_cpu_cmpxchg", {"this_cpu_try_cmpxchg"}},
        {"preempt_disable", {"local_irq_save"}},
        {"spin_lock", {"spin_lock_irqsave"}},
    };
    return steps;
}

inline const ordering_step* find_step_in(const std::vector<ordering_step>& steps,
                                         const std::string& primitive) {
    for (const ordering_step& s : steps)
        if (primitive == s.primitive) return &s;
    return nullptr;
}
inline const ordering_step* find_ordering_step(const std::string& primitive) {
    return find_step_in(ordering_steps(), primitive);
}
inline const ordering_step* find_strengthening_step(const std::string& primitive) {
    return find_step_in(strengthening_steps(), primitive);
}

inline bool is_form_in(const std::vector<ordering_step>& steps, const std::string& form) {
    for (const ordering_step& s : steps)
        for (const char* f : s.forms)
            if (form == f) return true;
    return false;
}
inline bool is_ordering_form(const std::string& form) { return is_form_in(ordering_steps(), form); }
inline bool is_strengthening_form(const std::string& form) {
    return is_form_in(strengthening_steps(), form);
}

// A site's stable name: its path from the repository's impl/ folder and its line,
// "impl/objpool.hpp:718" (__builtin_FILE gives the path the compiler was handed).
inline std::string ordering_site_file(const char* file) {
    const char* at = nullptr;
    for (const char* p = std::strstr(file, "impl/"); p; p = std::strstr(p + 1, "impl/"))
        if (p == file || p[-1] == '/') at = p;
    return at ? std::string(at) : std::string(file);
}

struct ordering_site {
    std::string file;  // impl/objpool.hpp
    unsigned line = 0;
    std::string func, primitive;

    std::string name() const { return file + ":" + std::to_string(line); }
    friend bool operator<(const ordering_site& a, const ordering_site& b) {
        return std::tie(a.file, a.line, a.primitive, a.func) <
               std::tie(b.file, b.line, b.primitive, b.func);
    }
};

class ordering_state {
public:
    // Read by the Env before each ordering primitive: false when neither an override nor a
    // record is asked for, which is the only cost the model pays without one.
    bool on = false;

    // Site file:line runs as `form`, one step weaker (weaken: the only override) or stronger
    // (strengthen: one of up to a few, each at its own site).
    void weaken(const std::string& file, unsigned line, const std::string& form) {
        overrides_.clear();
        add(file, line, form, false);
    }
    void strengthen(const std::string& file, unsigned line, const std::string& form) {
        add(file, line, form, true);
    }
    void record() {
        recording_ = true;
        on = true;
    }
    bool weakening() const { return !overrides_.empty(); }
    const std::string& form() const { return overrides_.front().form; }
    // The primitives the first override's site was reached as (empty: never applied).
    const std::set<std::string>& hit() const {
        static const std::set<std::string> none;
        return overrides_.empty() ? none : overrides_.front().hit;
    }
    // The same of override i, in the order they were given.
    const std::set<std::string>& hit(std::size_t i) const { return overrides_.at(i).hit; }
    std::set<ordering_site> sites() const {
        std::set<ordering_site> out;
        for (const auto& [file, line, func, prim] : seen_)
            out.insert({ordering_site_file(text(file)), line, text(func), text(prim)});
        return out;
    }

    // The form `primitive` at `file`:`line` runs as, or nullptr for its own; records the site.
    const char* at(const char* file, unsigned line, const char* func, const char* primitive) {
        if (recording_) seen_.insert({word(file), line, word(func), word(primitive)});
        for (override_at& o : overrides_) {
            if (line != o.line || !o.same_file(file)) continue;
            const ordering_step* s =
                o.stronger ? find_strengthening_step(primitive) : find_ordering_step(primitive);
            if (!s) continue;
            for (const char* f : s->forms)
                if (o.form == f) {
                    o.hit.insert(primitive);
                    return f;
                }
        }
        return nullptr;
    }

private:
    struct override_at {
        std::string file, form;
        unsigned line = 0;
        bool stronger = false;
        std::set<std::string> hit;
        bool same_file(const char* f) const {
            const std::size_t n = std::strlen(f), m = file.size();
            return n >= m && file.compare(0, m, f + (n - m)) == 0 &&
                   (n == m || f[n - m - 1] == '/');
        }
    };
    void add(const std::string& file, unsigned line, const std::string& form, bool stronger) {
        overrides_.push_back({file, form, line, stronger, {}});
        on = true;
    }
    static std::uintptr_t word(const char* p) { return reinterpret_cast<std::uintptr_t>(p); }
    static const char* text(std::uintptr_t w) { return reinterpret_cast<const char*>(w); }

    bool recording_ = false;
    std::vector<override_at> overrides_;
    // By the compiler's string pointers: a record costs a set insert of four words.
    std::set<std::tuple<std::uintptr_t, unsigned, std::uintptr_t, std::uintptr_t>> seen_;
};

// The one instance (a namespace-scope inline variable: no initialisation guard to test on each
// access; nothing reads it during static initialisation).
inline ordering_state the_ordering;
inline ordering_state& ordering() { return the_ordering; }

}  // namespace kverify::model
