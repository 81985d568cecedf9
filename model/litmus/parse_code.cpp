// SPDX-License-Identifier: GPL-2.0-only
// The threads of a litmus test, in C (parser_detail.hpp): `P0(int *x, spinlock_t *l) { ... }`
// with declarations, assignments, if/else, blocks and the kernel primitives of primitives.hpp.
// A name in a thread is one of its parameters (the address of the location of that name) or
// one of its registers (declared, or assigned somewhere in the thread, as herd7 allows).
#include <cctype>

#include "model/litmus/parser_detail.hpp"
#include "model/litmus/primitives.hpp"

namespace kverify::litmus::detail {

constexpr lex_mode C = lex_mode::code;
constexpr lex_mode B = lex_mode::between_threads;

namespace {

bool is_thread_name(const token& t) {
    if (t.kind != tok::ident || t.text.size() < 2 || t.text[0] != 'P') return false;
    for (std::size_t k = 1; k < t.text.size(); ++k)
        if (!std::isdigit((unsigned char)t.text[k])) return false;
    return true;
}

bool is_punct(const token& t, const char* p) { return t.kind == tok::punct && t.text == p; }

struct binop_info {
    const char* text;
    binop op;
    unsigned prec;
};
const binop_info binops[] = {
    {"*", binop::mul, 10},     {"+", binop::add, 9},     {"-", binop::sub, 9},
    {"<", binop::lt, 7},       {"<=", binop::le, 7},     {">", binop::gt, 7},
    {">=", binop::ge, 7},      {"==", binop::eq, 6},     {"!=", binop::ne, 6},
    {"&", binop::bit_and, 5},  {"^", binop::bit_xor, 4}, {"|", binop::bit_or, 3},
    {"&&", binop::log_and, 2}, {"||", binop::log_or, 1}};

}  // namespace

void parser::threads() {
    for (unsigned id = 0;; ++id) {
        const token& t = peek(B);
        if (t.kind == tok::ident && t.text == "void") {
            next(B);
            accept(B, "*");
        } else if (!is_thread_name(t)) {
            if (id == 0) fail(t.pos, "expected a thread 'P0(...) { ... }', found " + describe(t));
            return;
        }
        parse_thread(id);
    }
}

void parser::parse_thread(unsigned id) {
    const token name = next(B);
    if (!is_thread_name(name))
        fail(name.pos,
             "expected a thread 'P" + std::to_string(id) + "(...)', found " + describe(name));
    if (name.text != "P" + std::to_string(id))
        fail(name.pos, "expected thread P" + std::to_string(id) + ", found " + name.text +
                           " (threads are P0, P1, ... in order)");
    t_.threads.emplace_back();
    cur_ = &t_.threads.back();
    cur_->id = id;
    cur_->pos = name.pos;
    expect(C, "(", "after the thread's name");
    if (!accept(C, ")")) {
        for (;;) {
            param p;
            p.type = parse_type(C);
            const token pn = peek(C);
            p.name = ident(C, "a parameter name");
            p.pos = pn.pos;
            if (p.type.stars == 0)
                fail(pn.pos, "parameter '" + p.name + "' must be a pointer (int *" + p.name +
                                 "): it is the address of a shared location");
            for (const param& q : cur_->params)
                if (q.name == p.name) fail(pn.pos, "parameter '" + p.name + "' appears twice");
            const bool known = find_location(p.name) >= 0;
            p.loc = location_of(p.name, pn.pos);
            location& l = t_.locations[p.loc];
            if (!known || !l.in_init) {
                l.type = p.type;
                --l.type.stars;
            }
            cur_->params.push_back(p);
            if (accept(C, ")")) break;
            expect(C, ",", "between parameters");
        }
    }
    expect(C, "{", "to open the thread's body");
    block_items(cur_->body);
    for (const reg_info& r : cur_->regs)
        if (!r.declared && !r.assigned)
            fail(r.pos, "'" + r.name + "' is neither a parameter of P" + std::to_string(id) +
                            " nor a register it declares or assigns");
    cur_->max_events = count_events(cur_->body);
    if (cur_->max_events > max_thread_events)
        fail(cur_->pos, "P" + std::to_string(id) + " has more than " +
                            std::to_string(max_thread_events) + " memory operations");
    cur_ = nullptr;
}

// Statements up to and including the closing brace.
void parser::block_items(std::vector<stmt>& out) {
    for (;;) {
        const token& t = peek(C);
        if (is_punct(t, "}")) {
            next(C);
            return;
        }
        if (t.kind == tok::eof) fail(t.pos, "missing '}' at the end of the file");
        if (t.kind == tok::ident && is_type_name(t.text)) {
            declaration(out);
            continue;
        }
        out.push_back(statement());
    }
}

// TYPE [*]r [= e] {, [*]r [= e]} ;
void parser::declaration(std::vector<stmt>& out) {
    const c_type base = parse_type(C);
    c_type type = base;
    for (bool first = true;; first = false) {
        if (!first)
            while (accept(C, "*")) ++type.stars;
        const token n = peek(C);
        const std::string name = ident(C, "a register name");
        for (const param& p : cur_->params)
            if (p.name == name) fail(n.pos, "register '" + name + "' has a parameter's name");
        stmt s;
        s.kind = stmt_kind::decl;
        s.pos = n.pos;
        s.reg = register_of(name, n.pos);
        reg_info& r = cur_->regs[s.reg];
        if (r.declared) fail(n.pos, "register '" + name + "' is declared twice");
        r.declared = true;
        r.type = type;
        if (accept(C, "=")) {
            s.has_value = true;
            s.e = expression();
            check_value_use(s.e);
        }
        out.push_back(std::move(s));
        if (accept(C, ";")) return;
        expect(C, ",", "or ';' after the declaration");
        type = base;
        type.stars = 0;
    }
}

stmt parser::statement() {
    const token t = peek(C);
    stmt s;
    s.pos = t.pos;
    if (is_punct(t, "{")) {
        next(C);
        s.kind = stmt_kind::block;
        block_items(s.then_body);
        return s;
    }
    if (is_punct(t, ";")) {
        next(C);
        s.kind = stmt_kind::block;  // an empty statement
        return s;
    }
    if (t.kind == tok::ident) {
        if (t.text == "while" || t.text == "for" || t.text == "do")
            fail(t.pos, "loops are not supported ('" + t.text + "')");
        if (t.text == "switch" || t.text == "goto" || t.text == "return" || t.text == "break" ||
            t.text == "continue" || t.text == "case")
            fail(t.pos, "'" + t.text + "' is not supported");
        if (t.text == "else") fail(t.pos, "'else' without an 'if'");
        if (t.text == "if") {
            next(C);
            s.kind = stmt_kind::if_;
            expect(C, "(", "after 'if'");
            s.e = expression();
            check_value_use(s.e);
            expect(C, ")", "after the if condition");
            s.then_body.push_back(statement());
            if (accept(C, "else")) {
                s.has_else = true;
                s.else_body.push_back(statement());
            }
            return s;
        }
    }
    expr e = expression();
    if (is_punct(peek(C), "=")) {
        const token eq = next(C);
        if (e.kind == expr_kind::reg) {
            s.kind = stmt_kind::assign;
            s.reg = e.index;
            cur_->regs[e.index].assigned = true;
        } else if (e.kind == expr_kind::deref) {
            s.kind = stmt_kind::plain_store;
            s.target = std::move(e.kids[0]);
        } else if (e.kind == expr_kind::loc_addr) {
            fail(e.pos, "cannot assign to parameter '" + t_.locations[e.index].name +
                            "' (the location's address): write *" + t_.locations[e.index].name +
                            " = ... or WRITE_ONCE(*" + t_.locations[e.index].name + ", ...)");
        } else {
            fail(eq.pos, "the left of '=' must be a register or *p");
        }
        s.e = expression();
        check_value_use(s.e);
    } else {
        s.kind = stmt_kind::eval;
        s.e = std::move(e);
        if (s.e.kind != expr_kind::call) check_value_use(s.e);  // a call's arguments are checked
    }
    expect(C, ";", "at the end of the statement");
    return s;
}

expr parser::expression(unsigned min_prec) {
    expr lhs = unary();
    for (;;) {
        const token& t = peek(C);
        if (t.kind != tok::punct) return lhs;
        if (t.text == "/" || t.text == "%")
            fail(t.pos, "operator '" + t.text + "' is not supported");
        const binop_info* b = nullptr;
        for (const binop_info& bi : binops)
            if (t.text == bi.text) b = &bi;
        if (b == nullptr || b->prec < min_prec) return lhs;
        expr e;
        e.kind = expr_kind::binary;
        e.pos = next(C).pos;
        e.bop = b->op;
        e.kids.push_back(std::move(lhs));
        e.kids.push_back(expression(b->prec + 1));
        lhs = std::move(e);
    }
}

expr parser::unary() {
    const token t = peek(C);
    expr e;
    e.pos = t.pos;
    if (is_punct(t, "-") || is_punct(t, "~") || is_punct(t, "!")) {
        next(C);
        e.kind = expr_kind::unary;
        e.uop = t.text == "-" ? unop::neg : t.text == "~" ? unop::bit_not : unop::log_not;
        e.kids.push_back(unary());
        return e;
    }
    if (is_punct(t, "*")) {
        next(C);
        e.kind = expr_kind::deref;
        e.kids.push_back(unary());
        return e;
    }
    if (is_punct(t, "&")) {
        next(C);
        const token n = peek(C);
        const std::string name = ident(C, "a location after '&'");
        const int k = find_location(name);
        if (k < 0)
            fail(n.pos, "'&" + name + "': '" + name +
                            "' is not a shared location (a parameter or in the init block)");
        e.kind = expr_kind::loc_addr;
        e.index = unsigned(k);
        return e;
    }
    return primary();
}

expr parser::primary() {
    const token t = next(C);
    expr e;
    e.pos = t.pos;
    if (t.kind == tok::number) {
        if (t.num > UINT32_MAX || (t.text.rfind("0x", 0) != 0 && t.num > INT32_MAX))
            fail(t.pos, "number " + t.text + " does not fit in an int");
        e.kind = expr_kind::constant;
        e.i = std::int32_t(std::uint32_t(t.num));
        return e;
    }
    if (is_punct(t, "(")) {
        const token& n = peek(C);
        if (n.kind == tok::ident && is_type_name(n.text)) {  // a cast: herd7 ignores its type
            parse_type(C);
            expect(C, ")", "after the cast's type");
            return unary();
        }
        e = expression();
        expect(C, ")", "to close the parenthesis");
        return e;
    }
    if (t.kind != tok::ident) fail(t.pos, "expected an expression, found " + describe(t));
    if (is_punct(peek(C), "(")) return call(t);
    for (const param& p : cur_->params) {
        if (p.name == t.text) {
            e.kind = expr_kind::loc_addr;
            e.index = p.loc;
            return e;
        }
    }
    e.kind = expr_kind::reg;
    e.index = register_of(t.text, t.pos);
    return e;
}

expr parser::call(const token& name) {
    const int k = find_primitive(name.text);
    if (k < 0) {
        const std::string& n = name.text;
        if (n.rfind("rcu_", 0) == 0 || n.rfind("srcu_", 0) == 0 ||
            n.rfind("synchronize_", 0) == 0 || n == "call_rcu" || n == "kfree_rcu")
            fail(name.pos, "RCU is not supported ('" + n + "')");
        fail(name.pos, "unknown function '" + n + "'");
    }
    const primitive& p = primitives()[unsigned(k)];
    expect(C, "(", "after the function's name");
    expr e;
    e.kind = expr_kind::call;
    e.pos = name.pos;
    e.index = unsigned(k);
    if (!accept(C, ")")) {
        for (;;) {
            e.kids.push_back(expression());
            if (accept(C, ")")) break;
            expect(C, ",", "between arguments");
        }
    }
    if (e.kids.size() != p.arity)
        fail(name.pos, p.name + " takes " + std::to_string(p.arity) + " argument" +
                           (p.arity == 1 ? "" : "s") + ", not " + std::to_string(e.kids.size()));
    for (unsigned a = 0; a < e.kids.size(); ++a) {
        if (int(a) == p.loc_arg && p.loc_is_lvalue) {
            if (e.kids[a].kind != expr_kind::deref)
                fail(e.kids[a].pos, p.name + " takes the location as *p, not p");
            expr addr = std::move(e.kids[a].kids[0]);
            e.kids[a] = std::move(addr);
        }
        check_value_use(e.kids[a]);
    }
    return e;
}

// A primitive that returns nothing cannot be an operand.
void parser::check_value_use(const expr& e) const {
    if (e.kind == expr_kind::call && primitives()[e.index].result == prim_result::none)
        fail(e.pos, primitives()[e.index].name + " returns no value");
    for (const expr& k : e.kids)
        if (e.kind != expr_kind::call) check_value_use(k);
}

unsigned parser::register_of(const std::string& name, src_pos pos) {
    for (unsigned k = 0; k < cur_->regs.size(); ++k)
        if (cur_->regs[k].name == name) return k;
    if (find_location(name) >= 0 && t_.locations[unsigned(find_location(name))].in_init) {
        // A location of the init block used without being a parameter: herd7 would read a
        // register of that name. Most likely the parameter list misses it.
        fail(pos, "'" + name + "' is a shared location but not a parameter of P" +
                      std::to_string(cur_->id));
    }
    reg_info r;
    r.name = name;
    r.type.base = "int";
    r.pos = pos;
    cur_->regs.push_back(r);
    return unsigned(cur_->regs.size() - 1);
}

unsigned parser::count_events(const expr& e) {
    unsigned n = e.kind == expr_kind::call || e.kind == expr_kind::deref ? 1 : 0;
    for (const expr& k : e.kids) n += count_events(k);
    return n;
}

unsigned parser::count_events(const std::vector<stmt>& body) {
    unsigned n = 0;
    for (const stmt& s : body) {
        n += count_events(s.e) + count_events(s.target);
        if (s.kind == stmt_kind::plain_store) ++n;
        n += count_events(s.then_body) + count_events(s.else_body);
    }
    return n;
}

}  // namespace kverify::litmus::detail
