// SPDX-License-Identifier: GPL-2.0-only
// The abstract syntax of a C litmus test (the Linux kernel's format, as herd7 reads it with
// tools/memory-model): the header, the initial state, the threads, and the final clause. Names
// are resolved while parsing: an identifier in thread code is a parameter (the address of a
// shared location) or a register of that thread, and every node keeps its position in the file.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace kverify::litmus {

struct src_pos {
    unsigned line = 0;
    unsigned col = 0;
};

// A bad file: where and why. The command prints "FILE:LINE:COL: message" and exits 2.
struct litmus_error : std::runtime_error {
    src_pos pos;
    litmus_error(src_pos p, const std::string& msg) : std::runtime_error(msg), pos(p) {}
};

// A value as herd7 has them: a 32-bit int, or the address of a shared location (printed by
// the location's name).
struct value {
    bool is_ptr = false;
    std::int32_t i = 0;  // when !is_ptr
    unsigned loc = 0;    // when is_ptr: index into test::locations

    static value of_int(std::int32_t v) { return value{false, v, 0}; }
    static value of_loc(unsigned l) { return value{true, 0, l}; }
    friend bool operator==(const value& a, const value& b) {
        return a.is_ptr == b.is_ptr && (a.is_ptr ? a.loc == b.loc : a.i == b.i);
    }
    friend bool operator!=(const value& a, const value& b) { return !(a == b); }
};

// ---- thread code ----
enum class unop : std::uint8_t { neg, bit_not, log_not };
enum class binop : std::uint8_t {
    mul,
    add,
    sub,
    bit_and,
    bit_xor,
    bit_or,
    eq,
    ne,
    lt,
    le,
    gt,
    ge,
    log_and,
    log_or
};

enum class expr_kind : std::uint8_t {
    constant,  // i
    reg,       // a register of the thread: index
    loc_addr,  // a parameter, or &x: the address of location index
    deref,     // *kids[0] read as a value: a plain access
    unary,     // uop kids[0]
    binary,    // kids[0] bop kids[1]
    call,      // a kernel primitive: prim indexes primitives(), kids are its arguments
};

struct expr {
    expr_kind kind = expr_kind::constant;
    src_pos pos;
    std::int32_t i = 0;
    unsigned index = 0;  // reg: register; loc_addr: location; call: primitive
    unop uop = unop::neg;
    binop bop = binop::add;
    // call: the arguments in source order; an `*e` operand of READ_ONCE/WRITE_ONCE is kept as
    // e (the address), the primitive's table row says which argument is which.
    std::vector<expr> kids;
};

enum class stmt_kind : std::uint8_t {
    decl,         // int r; / int *r = e;  (has_value: with an initialiser)
    assign,       // r = e;
    plain_store,  // *target = e;
    eval,         // e;  (a primitive called for its effect)
    if_,          // if (e) then_body [else else_body]
    block,        // { then_body }
};

struct stmt {
    stmt_kind kind = stmt_kind::eval;
    src_pos pos;
    unsigned reg = 0;  // decl, assign
    bool has_value = false;
    bool has_else = false;
    expr target;  // plain_store: the address
    expr e;       // the value, the expression, or the condition
    std::vector<stmt> then_body;
    std::vector<stmt> else_body;
};

// A type as the tests write them: a base type and the number of stars.
struct c_type {
    std::string base;  // int, atomic_t, spinlock_t
    unsigned stars = 0;
};

struct param {
    c_type type;
    std::string name;
    unsigned loc = 0;  // the location it points to (its name is the location's)
    src_pos pos;
};

struct reg_info {
    std::string name;
    c_type type;
    bool declared = false;  // int r; in the thread
    bool assigned = false;  // appears on the left of = somewhere in the thread
    value init;             // 0, or N:r=V in the init block
    src_pos pos;            // first appearance
};

struct thread {
    unsigned id = 0;
    src_pos pos;
    std::vector<param> params;
    std::vector<reg_info> regs;
    std::vector<stmt> body;
    unsigned max_events = 0;  // upper bound of the events one run issues (no loops)
};

struct location {
    std::string name;
    c_type type;  // int unless the init block or a parameter says otherwise
    value init;
    bool in_init = false;  // written in the init block
    src_pos pos;
};

// ---- the final clause ----
// A register N:r or a shared location x, as the condition and `locations` name them.
struct rloc {
    bool is_reg = false;
    unsigned thread = 0;
    unsigned index = 0;  // register of that thread, or location
    src_pos pos;
};

enum class prop_kind : std::uint8_t { atom, true_, false_, not_, and_, or_, implies };

struct prop {
    prop_kind kind = prop_kind::true_;
    src_pos pos;
    rloc lhs;   // atom: lhs = rhs
    value rhs;  // atom
    std::vector<prop> kids;
};

enum class quantifier : std::uint8_t { exists, not_exists, forall };

struct condition {
    quantifier q = quantifier::forall;
    prop p;
    src_pos pos;
};

struct test {
    std::string file;
    std::string name;
    std::vector<location> locations;
    std::vector<thread> threads;
    std::vector<rloc> shown;  // locations [...]
    std::optional<prop> filter;
    condition cond;
    std::optional<std::string> result;  // the word after "Result:" in the header's comments
    src_pos result_pos;
};

}  // namespace kverify::litmus
