// SPDX-License-Identifier: GPL-2.0-only
// Text of a parsed test (print.hpp).
#include "model/litmus/print.hpp"

#include <climits>

#include "model/litmus/primitives.hpp"

namespace kverify::litmus {

std::string value_text(const test& t, const value& v) {
    return v.is_ptr ? t.locations[v.loc].name : std::to_string(v.i);
}

std::string rloc_text(const test& t, const rloc& r, bool brackets) {
    if (r.is_reg) return std::to_string(r.thread) + ":" + t.threads[r.thread].regs[r.index].name;
    const std::string& n = t.locations[r.index].name;
    return brackets ? "[" + n + "]" : n;
}

namespace {

enum class ctx { top, and_, or_, implies };

// Where herd7 puts parentheses around a sub-condition.
bool needs_paren(ctx above, prop_kind here) {
    if (above == ctx::top) return false;
    if (above == ctx::implies) return here != prop_kind::implies;
    if (above == ctx::and_) return here != prop_kind::and_;
    return here == prop_kind::implies;  // above is \/
}

std::string pp(const test& t, ctx above, const prop& p) {
    std::string s;
    switch (p.kind) {
        case prop_kind::atom:
            return rloc_text(t, p.lhs) + "=" + value_text(t, p.rhs);
        case prop_kind::true_:
            return "true";
        case prop_kind::false_:
            return "false";
        case prop_kind::not_:
            return "not (" + pp(t, ctx::top, p.kids[0]) + ")";
        case prop_kind::and_:
            s = pp(t, ctx::and_, p.kids[0]) + " /\\ " + pp(t, ctx::and_, p.kids[1]);
            break;
        case prop_kind::or_:
            s = pp(t, ctx::or_, p.kids[0]) + " \\/ " + pp(t, ctx::or_, p.kids[1]);
            break;
        case prop_kind::implies:
            s = pp(t, ctx::implies, p.kids[0]) + " => " + pp(t, ctx::implies, p.kids[1]);
            break;
    }
    return needs_paren(above, p.kind) ? "(" + s + ")" : s;
}

const char* binop_text(binop b) {
    static const char* const names[] = {
        "*", "+", "-", "&", "^", "|", "==", "!=", "<", "<=", ">", ">=", "&&", "||"};
    return names[unsigned(b)];
}

std::string operand(const test& t, const thread& th, const expr& e) {
    const std::string s = expr_text(t, th, e);
    return e.kind == expr_kind::binary ? "(" + s + ")" : s;
}

std::string type_text(const c_type& ct) { return ct.base + " " + std::string(ct.stars, '*'); }

void print_body(const test& t, const thread& th, const std::vector<stmt>& body, unsigned depth,
                std::string& out);
void print_clause(const test& t, const thread& th, const std::vector<stmt>& clause, unsigned depth,
                  std::string& out);

void print_stmt(const test& t, const thread& th, const stmt& s, unsigned depth, std::string& out) {
    const std::string ind(depth, '\t');
    switch (s.kind) {
        case stmt_kind::decl: {
            const reg_info& r = th.regs[s.reg];
            out += ind + type_text(r.type) + r.name;
            if (s.has_value) out += " = " + expr_text(t, th, s.e);
            out += ";\n";
            break;
        }
        case stmt_kind::assign:
            out += ind + th.regs[s.reg].name + " = " + expr_text(t, th, s.e) + ";\n";
            break;
        case stmt_kind::plain_store:
            out += ind + "*" + operand(t, th, s.target) + " = " + expr_text(t, th, s.e) + ";\n";
            break;
        case stmt_kind::eval:
            out += ind + expr_text(t, th, s.e) + ";\n";
            break;
        case stmt_kind::if_:
            out += ind + "if (" + expr_text(t, th, s.e) + ") {\n";
            print_clause(t, th, s.then_body, depth + 1, out);
            out += ind + "}";
            if (s.has_else) {
                out += " else {\n";
                print_clause(t, th, s.else_body, depth + 1, out);
                out += ind + "}";
            }
            out += "\n";
            break;
        case stmt_kind::block:
            out += ind + "{\n";
            print_body(t, th, s.then_body, depth + 1, out);
            out += ind + "}\n";
            break;
    }
}

void print_body(const test& t, const thread& th, const std::vector<stmt>& body, unsigned depth,
                std::string& out) {
    for (const stmt& s : body) print_stmt(t, th, s, depth, out);
}

// A then- or else-clause (one statement) inside the braces the printer puts: a block's own
// statements, without a second pair.
void print_clause(const test& t, const thread& th, const std::vector<stmt>& clause, unsigned depth,
                  std::string& out) {
    if (clause.size() == 1 && clause[0].kind == stmt_kind::block)
        print_body(t, th, clause[0].then_body, depth, out);
    else
        print_body(t, th, clause, depth, out);
}

}  // namespace

std::string prop_text(const test& t, const prop& p) { return pp(t, ctx::top, p); }

std::string condition_text(const test& t) {
    static const char* const q[] = {"exists", "~exists", "forall"};
    return std::string(q[unsigned(t.cond.q)]) + " (" + prop_text(t, t.cond.p) + ")";
}

std::string expr_text(const test& t, const thread& th, const expr& e) {
    switch (e.kind) {
        case expr_kind::constant:
            if (e.i == INT_MIN) return "(-2147483647 - 1)";
            return std::to_string(e.i);
        case expr_kind::reg:
            return th.regs[e.index].name;
        case expr_kind::loc_addr:
            for (const param& p : th.params)
                if (p.loc == e.index) return p.name;
            return "&" + t.locations[e.index].name;
        case expr_kind::deref:
            return "*" + operand(t, th, e.kids[0]);
        case expr_kind::unary: {
            static const char* const ops[] = {"-", "~", "!"};
            return ops[unsigned(e.uop)] + operand(t, th, e.kids[0]);
        }
        case expr_kind::binary:
            return operand(t, th, e.kids[0]) + " " + binop_text(e.bop) + " " +
                   operand(t, th, e.kids[1]);
        case expr_kind::call: {
            const primitive& p = primitives()[e.index];
            std::string s = p.name + "(";
            for (unsigned a = 0; a < e.kids.size(); ++a) {
                if (a > 0) s += ", ";
                if (int(a) == p.loc_arg && p.loc_is_lvalue)
                    s += "*" + operand(t, th, e.kids[a]);
                else
                    s += expr_text(t, th, e.kids[a]);
            }
            return s + ")";
        }
    }
    return "";
}

std::string print_test(const test& t) {
    std::string out = "C " + t.name + "\n";
    if (t.result) out += "\n(* Result: " + *t.result + " *)\n";
    out += "\n{\n";
    for (const location& l : t.locations) {
        if (!l.in_init) continue;
        out += type_text(l.type) + l.name + " = ";
        out += (l.init.is_ptr ? "&" : "") + value_text(t, l.init) + ";\n";
    }
    for (const thread& th : t.threads)
        for (const reg_info& r : th.regs)
            if (r.init != value::of_int(0))
                out += std::to_string(th.id) + ":" + r.name + " = " + (r.init.is_ptr ? "&" : "") +
                       value_text(t, r.init) + ";\n";
    out += "}\n";
    for (const thread& th : t.threads) {
        out += "\nP" + std::to_string(th.id) + "(";
        for (unsigned k = 0; k < th.params.size(); ++k)
            out += (k ? ", " : "") + type_text(th.params[k].type) + th.params[k].name;
        out += ")\n{\n";
        print_body(t, th, th.body, 1, out);
        out += "}\n";
    }
    out += "\n";
    if (!t.shown.empty()) {
        out += "locations [";
        for (unsigned k = 0; k < t.shown.size(); ++k)
            out += (k ? "; " : "") + rloc_text(t, t.shown[k], false);
        out += "]\n";
    }
    if (t.filter) out += "filter (" + prop_text(t, *t.filter) + ")\n";
    out += condition_text(t) + "\n";
    return out;
}

}  // namespace kverify::litmus
