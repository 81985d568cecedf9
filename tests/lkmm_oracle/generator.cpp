// SPDX-License-Identifier: GPL-2.0-only
// The random litmus test generator (generator.hpp).
#include "tests/lkmm_oracle/generator.hpp"

#include <algorithm>
#include <vector>

namespace kverify::lkmm_oracle {

namespace {

// splitmix64: small, and fully specified, unlike the standard library's distributions.
class rng {
public:
    explicit rng(std::uint64_t seed) : s_(seed) {}
    std::uint64_t next() {
        std::uint64_t z = (s_ += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
    }
    unsigned below(unsigned n) { return unsigned(next() % n); }
    bool chance(unsigned percent) { return below(100) < percent; }
    template <typename T>
    const T& pick(const std::vector<T>& v) {
        return v[below(unsigned(v.size()))];
    }

private:
    std::uint64_t s_;
};

const std::vector<std::string> orderings = {"", "_relaxed", "_acquire", "_release"};
const std::vector<std::string> fences = {"smp_mb",
                                         "smp_rmb",
                                         "smp_wmb",
                                         "smp_mb__before_atomic",
                                         "smp_mb__after_atomic",
                                         "smp_mb__after_spinlock",
                                         "smp_mb__after_unlock_lock",
                                         "barrier"};

struct test_shape {
    unsigned locations = 1;
    bool pointer = false;  // p, initially &x
    bool lock = false;     // s
    // Instructions that may write each location so far: at most max_writes, since herd7 and
    // the oracle both enumerate every coherence order, factorial in the writes to a location.
    std::vector<unsigned> writes = std::vector<unsigned>(4, 0);
    static constexpr unsigned max_writes = 3;
};

class thread_gen {
public:
    thread_gen(rng& g, test_shape& s, unsigned id) : g_(g), s_(s), id_(id) {}

    void body(unsigned n) {
        for (unsigned k = 0; k < n; ++k) top_level();
    }
    std::string text(const std::string& params) const {
        std::string out = "P" + std::to_string(id_) + "(" + params + ")\n{\n";
        for (unsigned r = 0; r < regs_; ++r) out += "\tint r" + std::to_string(r) + ";\n";
        if (uses_q_) out += "\tint *q0;\n";
        if (regs_ || uses_q_) out += "\n";
        for (const std::string& l : lines_) out += l + "\n";
        return out + "}\n";
    }
    // Registers that hold a value read (for conditions and dependencies).
    const std::vector<unsigned>& loaded() const { return loaded_; }

private:
    std::string loc() { return std::string(1, char('x' + g_.below(s_.locations))); }
    // A location to write, or "" when every one has its share of writes.
    std::string loc_to_write() {
        const unsigned l = g_.below(s_.locations);
        for (unsigned k = 0; k < s_.locations; ++k) {
            const unsigned c = (l + k) % s_.locations;
            if (s_.writes[c] < test_shape::max_writes) {
                ++s_.writes[c];
                return std::string(1, char('x' + c));
            }
        }
        return "";
    }
    std::string new_reg() { return "r" + std::to_string(regs_++); }
    void emit(const std::string& l) { lines_.push_back(std::string(depth_ + 1, '\t') + l); }
    // A value to store: a constant, or one computed from a register read before (data).
    std::string operand() {
        if (loaded_.empty() || g_.chance(55)) return std::to_string(1 + g_.below(2));
        const std::string r = "r" + std::to_string(g_.pick(loaded_));
        switch (g_.below(3)) {
            case 0:
                return r;
            case 1:
                return r + " + 1";
            default:
                return "(" + r + " & 0) + 1";  // still a dependency: herd7's are syntactic
        }
    }
    void read_into(const std::string& r) { loaded_.push_back(unsigned(std::stoul(r.substr(1)))); }

    void top_level() {
        const unsigned k = g_.below(20);
        if (k < 3 && !loaded_.empty() && depth_ == 0) return branch();
        if (k == 3 && s_.lock && depth_ == 0) return critical_section();
        simple();
    }
    void branch() {
        const std::string r = "r" + std::to_string(g_.pick(loaded_));
        const std::string cond = g_.chance(50) ? r : r + " == " + std::to_string(g_.below(2));
        emit("if (" + cond + ") {");
        ++depth_;
        for (unsigned n = 1 + g_.below(2); n; --n) simple();
        --depth_;
        if (g_.chance(30)) {
            emit("} else {");
            ++depth_;
            simple();
            --depth_;
        }
        emit("}");
    }
    void critical_section() {
        emit("spin_lock(s);");
        for (unsigned n = 1 + g_.below(2); n; --n) simple();
        emit("spin_unlock(s);");
    }
    void simple() {
        switch (g_.below(s_.pointer ? 11 : 9)) {
            case 0:
            case 1:
                return load();
            case 2:
            case 3:
                return store();
            case 4:
                return emit(g_.pick(fences) + "();");
            case 5: {
                const std::string l = loc_to_write();
                if (l.empty()) return load();
                const std::string r = new_reg();
                emit(r + " = xchg" + g_.pick(orderings) + "(" + l + ", " + operand() + ");");
                return read_into(r);
            }
            case 6: {
                const std::string l = loc_to_write();
                if (l.empty()) return load();
                const std::string r = new_reg();
                emit(r + " = cmpxchg" + g_.pick(orderings) + "(" + l + ", " +
                     std::to_string(g_.below(2)) + ", " + operand() + ");");
                return read_into(r);
            }
            case 7:
            case 8:
                return atomic_op();
            case 9:  // republish p (its writes counted in writes[3])
                if (s_.writes[3]++ >= test_shape::max_writes) return load();
                return emit(
                    std::string(g_.chance(50) ? "WRITE_ONCE(*p, " : "smp_store_release(p, ") +
                    std::string(1, char('x' + g_.below(s_.locations))) + ");");
            default:
                return through_pointer();
        }
    }
    void load() {
        const std::string r = new_reg();
        const unsigned k = g_.below(10);
        if (k < 6)
            emit(r + " = READ_ONCE(*" + loc() + ");");
        else if (k < 9)
            emit(r + " = smp_load_acquire(" + loc() + ");");
        else
            emit(r + " = *" + loc() + ";");  // plain
        read_into(r);
    }
    void store() {
        const std::string l = loc_to_write();
        if (l.empty()) return load();
        const std::string v = operand();
        const unsigned k = g_.below(10);
        if (k < 6)
            emit("WRITE_ONCE(*" + l + ", " + v + ");");
        else if (k < 9)
            emit("smp_store_release(" + l + ", " + v + ");");
        else
            emit("*" + l + " = " + v + ";");  // plain
    }
    void atomic_op() {
        const std::string l = loc_to_write();
        if (l.empty()) return load();
        const std::string v = g_.chance(70) ? "1" : operand();
        switch (g_.below(3)) {
            case 0:
                return emit("atomic_add(" + v + ", " + l + ");");
            case 1: {
                const std::string r = new_reg();
                emit(r + " = atomic_add_return" + g_.pick(orderings) + "(" + v + ", " + l + ");");
                return read_into(r);
            }
            default: {
                const std::string r = new_reg();
                emit(r + " = atomic_fetch_add" + g_.pick(orderings) + "(" + v + ", " + l + ");");
                return read_into(r);
            }
        }
    }
    // An address dependency: the pointer read from p, then an access through it.
    void through_pointer() {
        uses_q_ = true;
        emit(std::string(g_.chance(70) ? "q0 = READ_ONCE(*p);" : "q0 = smp_load_acquire(p);"));
        bool room = true;  // q0 may point to any location
        for (unsigned l = 0; l < s_.locations; ++l)
            room = room && s_.writes[l] < test_shape::max_writes;
        if (g_.chance(50) || !room) {
            const std::string r = new_reg();
            emit(r + " = READ_ONCE(*q0);");
            return read_into(r);
        }
        for (unsigned l = 0; l < s_.locations; ++l) ++s_.writes[l];
        emit("WRITE_ONCE(*q0, " + operand() + ");");
    }

    rng& g_;
    test_shape& s_;
    unsigned id_;
    unsigned regs_ = 0;
    unsigned depth_ = 0;
    bool uses_q_ = false;
    std::vector<unsigned> loaded_;
    std::vector<std::string> lines_;
};

}  // namespace

std::string generate_litmus(std::uint64_t seed, const generator_options& o) {
    rng g(seed);
    test_shape s;
    s.locations = 1 + g.below(o.max_locations);
    s.pointer = s.locations >= 2 && g.chance(25);
    s.lock = g.chance(20);
    const unsigned threads = 2 + g.below(o.max_threads - 1);

    std::string params;
    for (unsigned l = 0; l < s.locations; ++l)
        params += std::string(l ? ", " : "") + "int *" + char('x' + l);
    if (s.pointer) params += ", int **p";
    if (s.lock) params += ", spinlock_t *s";

    std::string out = "C gen-" + std::to_string(seed) + "\n\n{\n";
    for (unsigned l = 0; l < s.locations; ++l)
        out += std::string("\tint ") + char('x' + l) + " = 0;\n";
    if (s.pointer) out += "\tint *p = &x;\n";
    out += "}\n\n";
    std::vector<std::string> atoms;
    for (unsigned t = 0; t < threads; ++t) {
        thread_gen th(g, s, t);
        // Fewer instructions per thread as threads are added: herd7 and the oracle both
        // enumerate every coherence order, factorial in the writes to a location.
        const unsigned most = std::max(1u, std::min(o.max_instructions, 6 / threads + 1));
        th.body(1 + g.below(most));
        out += th.text(params) + "\n";
        for (unsigned r : th.loaded())
            if (g.chance(40))
                atoms.push_back(std::to_string(t) + ":r" + std::to_string(r) + "=" +
                                std::to_string(g.below(3)));
    }
    out += "locations [";
    for (unsigned l = 0; l < s.locations; ++l) out += std::string(l ? "; " : "") + char('x' + l);
    out += "]\n";
    std::string cond;
    for (const std::string& a : atoms) cond += (cond.empty() ? "" : " /\\ ") + a;
    return out + "exists (" + (cond.empty() ? "x=1" : cond) + ")\n";
}

}  // namespace kverify::lkmm_oracle
