// SPDX-License-Identifier: GPL-2.0-only
// The litmus file's sections (parser.hpp): the `C NAME` line, the header up to the init block
// (where the "Result:" line of the comments is found), the init block and the final clause
// (`locations`, `filter`, `exists` / `~exists` / `forall`), in herd7's state language. The
// threads are parse_code.cpp's.
#include "model/litmus/parser.hpp"

#include <cctype>

#include "model/litmus/parser_detail.hpp"

namespace kverify::litmus {

test parse_test(const std::string& file, const std::string& text) {
    return detail::parser(file, text).run();
}

namespace detail {

constexpr lex_mode S = lex_mode::state;

std::string parser::describe(const token& t) {
    switch (t.kind) {
        case tok::eof:
            return "the end of the file";
        case tok::number:
            return "number " + t.text;
        default:
            return "'" + t.text + "'";
    }
}

bool parser::accept(lex_mode m, const char* punct) {
    const token& t = peek(m);
    if ((t.kind != tok::punct && t.kind != tok::ident) || t.text != punct) return false;
    next(m);
    return true;
}

token parser::expect(lex_mode m, const char* punct, const char* what) {
    const token& t = peek(m);
    if ((t.kind != tok::punct && t.kind != tok::ident) || t.text != punct)
        fail(t.pos, std::string("expected '") + punct + "' " + what + ", found " + describe(t));
    return next(m);
}

std::string parser::ident(lex_mode m, const char* what) {
    const token& t = peek(m);
    if (t.kind != tok::ident)
        fail(t.pos, std::string("expected ") + what + ", found " + describe(t));
    return next(m).text;
}

int parser::find_location(const std::string& name) const {
    for (unsigned k = 0; k < t_.locations.size(); ++k)
        if (t_.locations[k].name == name) return int(k);
    return -1;
}

unsigned parser::location_of(const std::string& name, src_pos pos) {
    const int k = find_location(name);
    if (k >= 0) return unsigned(k);
    location l;
    l.name = name;
    l.type.base = "int";
    l.pos = pos;
    t_.locations.push_back(l);
    return unsigned(t_.locations.size() - 1);
}

bool parser::is_type_name(const std::string& n) const {
    static const char* const c_types[] = {
        "int",      "atomic_t",   "spinlock_t", "long",     "char",      "short",
        "unsigned", "signed",     "void",       "intptr_t", "uintptr_t", "int8_t",
        "uint8_t",  "int16_t",    "uint16_t",   "int32_t",  "uint32_t",  "int64_t",
        "uint64_t", "atomic_int", "_Atomic",    "volatile", "const",     "struct"};
    for (const char* c : c_types)
        if (n == c) return true;
    return false;
}

// A base type and its stars: only int, atomic_t and spinlock_t (every value is herd7's 32-bit
// int or a location's address, so another width would print differently).
c_type parser::parse_type(lex_mode mode) {
    const token t = next(mode);
    if (t.kind != tok::ident || !is_type_name(t.text))
        fail(t.pos, "expected a type, found " + describe(t));
    if (t.text != "int" && t.text != "atomic_t" && t.text != "spinlock_t")
        fail(t.pos, "type '" + t.text + "' is not supported (int, atomic_t, spinlock_t and " +
                        "pointers to them are)");
    c_type ct;
    ct.base = t.text;
    while (accept(mode, "*")) ++ct.stars;
    return ct;
}

test parser::run() {
    header();
    init_block();
    threads();
    final_clause();
    for (const reg_init& r : reg_inits_) {
        if (r.thread >= t_.threads.size())
            fail(r.pos, "the init block sets a register of P" + std::to_string(r.thread) +
                            ", which the test does not have");
        thread& th = t_.threads[r.thread];
        unsigned k = 0;
        while (k < th.regs.size() && th.regs[k].name != r.name) ++k;
        if (k == th.regs.size()) {
            reg_info ri;
            ri.name = r.name;
            ri.type.base = "int";
            ri.declared = true;
            ri.pos = r.pos;
            th.regs.push_back(ri);
        }
        th.regs[k].init = r.v;
    }
    return std::move(t_);
}

// `C NAME`, then anything up to the init block's `{` (herd7 skips it); the word after
// "Result:" in it is the expected observation (--judge).
void parser::header() {
    const token arch = peek(S);
    if (arch.kind != tok::ident)
        fail(arch.pos, "expected 'C NAME' on the first line, found " + describe(arch));
    if (arch.text != "C")
        fail(arch.pos, "only C litmus tests are supported; this one is for '" + arch.text + "'");
    next(S);
    const src_pos name_pos = lx_.here();
    std::string rest = lx_.rest_of_line();
    std::size_t a = 0;
    while (a < rest.size() && std::isspace((unsigned char)rest[a])) ++a;
    std::size_t b = a;
    while (b < rest.size() && !std::isspace((unsigned char)rest[b])) ++b;
    t_.name = rest.substr(a, b - a);
    if (t_.name.empty()) fail(name_pos, "missing test name after 'C'");

    const std::string& s = lx_.text();
    std::size_t i = lx_.offset();
    src_pos p = lx_.here();
    auto step = [&] {
        if (s[i] == '\n') {
            ++p.line;
            p.col = 1;
        } else {
            ++p.col;
        }
        ++i;
    };
    unsigned depth = 0;
    src_pos comment_start;
    while (i < s.size() && !(depth == 0 && s[i] == '{')) {
        if (s.compare(i, 2, "(*") == 0) {
            if (depth++ == 0) comment_start = p;
            step();
            step();
        } else if (depth > 0 && s.compare(i, 2, "*)") == 0) {
            --depth;
            step();
            step();
        } else if (s.compare(i, 7, "Result:") == 0 && !t_.result) {
            for (int k = 0; k < 7; ++k) step();
            while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) step();
            t_.result_pos = p;
            std::string word;
            while (i < s.size() && !std::isspace((unsigned char)s[i]) && s[i] != '*') {
                word += s[i];
                step();
            }
            t_.result = word;
        } else {
            step();
        }
    }
    if (depth > 0) fail(comment_start, "unterminated comment (* ... *)");
    if (i >= s.size()) fail(p, "missing the init block '{ ... }'");
    lx_.seek(i, p);
}

// { [TYPE] [*]loc [= V]; N:r = V; ... }
void parser::init_block() {
    expect(S, "{", "to open the init block");
    for (;;) {
        if (accept(S, "}")) return;
        if (accept(S, ";")) continue;
        const token first = peek(S);
        if (first.kind == tok::number) {
            next(S);
            if (first.num < 0) fail(first.pos, "expected a thread number, found " + first.text);
            expect(S, ":", "after the thread number");
            const std::string reg = ident(S, "a register name");
            expect(S, "=", "after the register");
            reg_inits_.push_back({unsigned(first.num), reg, init_value(), first.pos});
        } else {
            c_type type;
            bool typed = false;
            if (first.kind == tok::ident && is_type_name(first.text)) {
                type = parse_type(S);
                typed = true;
            }
            while (accept(S, "*")) ++type.stars;  // `*x = &y;` without a base type
            const bool bracket = accept(S, "[");
            const token name = peek(S);
            const std::string n = ident(S, "a location name");
            if (bracket) expect(S, "]", "after the location");
            const unsigned loc = location_of(n, name.pos);
            location& l = t_.locations[loc];
            if (l.in_init) fail(name.pos, "location '" + n + "' is initialised twice");
            l.in_init = true;
            l.pos = name.pos;
            if (typed || type.stars > 0) {
                if (!typed) type.base = "int";
                l.type = type;
            }
            if (accept(S, "=")) {
                const value v = init_value();
                t_.locations[loc].init = v;
            } else if (!typed) {
                if (n.size() > 1 && n[0] == 'P' && n.find_first_not_of("0123456789", 1) == n.npos)
                    fail(name.pos, "the init block is not closed: '}' is missing before " + n);
                fail(peek(S).pos, "expected '=' after location '" + n + "' in the init block");
            }
        }
        const token& t = peek(S);
        if (t.kind == tok::punct && t.text == "}") continue;
        expect(S, ";", "between the init block's items");
    }
}

// An int, a location's name (its address: `p=y`) or &name.
value parser::init_value() {
    const token t = next(S);
    if (t.kind == tok::number) {
        if (t.num < INT32_MIN || t.num > UINT32_MAX) fail(t.pos, "number out of range");
        return value::of_int(std::int32_t(std::uint32_t(t.num)));
    }
    if (t.kind == tok::punct && t.text == "&") {
        const token n = peek(S);
        return value::of_loc(location_of(ident(S, "a location name after '&'"), n.pos));
    }
    if (t.kind == tok::ident) return value::of_loc(location_of(t.text, t.pos));
    fail(t.pos, "expected a value (a number or a location), found " + describe(t));
}

// [locations [...]] [filter PROP] (exists | ~exists | forall) PROP [;]
void parser::final_clause() {
    if (accept(S, "locations")) {
        expect(S, "[", "after 'locations'");
        while (!accept(S, "]")) {
            t_.shown.push_back(parse_rloc());
            if (!accept(S, ";")) {
                const token& t = peek(S);
                if (t.kind != tok::punct || t.text != "]")
                    fail(t.pos, "expected ';' or ']' in 'locations', found " + describe(t));
            }
        }
    }
    if (accept(S, "filter")) t_.filter = parse_or();
    const token q = peek(S);
    t_.cond.pos = q.pos;
    if (q.kind == tok::eof) {
        t_.cond.q = quantifier::forall;  // herd7: no condition is `forall (true)`
        t_.cond.p.kind = prop_kind::true_;
        return;
    }
    if (accept(S, "exists") || (q.kind == tok::punct && q.text == "(")) {
        t_.cond.q = quantifier::exists;  // herd7 reads a bare (PROP) as exists (PROP)
    } else if (accept(S, "forall")) {
        t_.cond.q = quantifier::forall;
    } else if ((q.text == "~" || q.text == "not") && q.kind != tok::number) {
        next(S);
        expect(S, "exists", "after '~' in the final condition");
        t_.cond.q = quantifier::not_exists;
    } else if (q.kind == tok::ident && (q.text == "final" || q.text == "observed" ||
                                        q.text == "cases" || q.text == "with")) {
        fail(q.pos,
             "'" + q.text + "' conditions are not supported (exists, ~exists and forall are)");
    } else {
        fail(q.pos,
             "expected the final condition (exists, ~exists or forall), found " + describe(q));
    }
    t_.cond.p = parse_or();
    accept(S, ";");
    const token& end = peek(S);
    if (end.kind == tok::ident && end.text == "with")
        fail(end.pos, "'with' clauses are not supported");
    if (end.kind != tok::eof)
        fail(end.pos, "unexpected " + describe(end) + " after the final condition");
}

// N:r, x or [x].
rloc parser::parse_rloc() {
    const token t = peek(S);
    rloc r;
    r.pos = t.pos;
    if (t.kind == tok::number) {
        next(S);
        expect(S, ":", "after the thread number");
        const token rn = peek(S);
        const std::string name = ident(S, "a register name");
        if (t.num < 0 || std::size_t(t.num) >= t_.threads.size())
            fail(t.pos, "the test has no thread P" + t.text);
        const thread& th = t_.threads[std::size_t(t.num)];
        unsigned k = 0;
        while (k < th.regs.size() && th.regs[k].name != name) ++k;
        bool initialised = false;
        for (const reg_init& ri : reg_inits_) initialised |= ri.thread == th.id && ri.name == name;
        if (k == th.regs.size() && !initialised)
            fail(rn.pos, "P" + t.text + " has no register '" + name + "'");
        if (k == th.regs.size()) {  // only set by the init block: made a register there
            reg_info ri;
            ri.name = name;
            ri.type.base = "int";
            ri.declared = true;
            ri.pos = rn.pos;
            t_.threads[std::size_t(t.num)].regs.push_back(ri);
        }
        r.is_reg = true;
        r.thread = unsigned(t.num);
        r.index = k;
        return r;
    }
    const bool bracket = accept(S, "[");
    const token n = peek(S);
    const std::string name = ident(S, "a register (N:r) or a location");
    if (bracket) expect(S, "]", "after the location");
    const int k = find_location(name);
    if (k < 0)
        fail(n.pos, "unknown location '" + name + "' (not in the init block nor a parameter)");
    r.index = unsigned(k);
    return r;
}

// herd7's precedence, loosest first: \/, /\, => (to the right), ~.
prop parser::parse_or() {
    prop p = parse_and();
    while (peek(S).kind == tok::punct && peek(S).text == "\\/") {
        const src_pos at = next(S).pos;
        prop o;
        o.kind = prop_kind::or_;
        o.pos = at;
        o.kids.push_back(std::move(p));
        o.kids.push_back(parse_and());
        p = std::move(o);
    }
    return p;
}

prop parser::parse_and() {
    prop p = parse_implies();
    while (peek(S).kind == tok::punct && peek(S).text == "/\\") {
        const src_pos at = next(S).pos;
        prop a;
        a.kind = prop_kind::and_;
        a.pos = at;
        a.kids.push_back(std::move(p));
        a.kids.push_back(parse_implies());
        p = std::move(a);
    }
    return p;
}

prop parser::parse_implies() {
    prop p = parse_not();
    if (peek(S).kind == tok::punct && peek(S).text == "=>") {
        const src_pos at = next(S).pos;
        prop i;
        i.kind = prop_kind::implies;
        i.pos = at;
        i.kids.push_back(std::move(p));
        i.kids.push_back(parse_implies());
        return i;
    }
    return p;
}

prop parser::parse_not() {
    const token& t = peek(S);
    if ((t.kind == tok::punct && t.text == "~") || (t.kind == tok::ident && t.text == "not")) {
        prop n;
        n.kind = prop_kind::not_;
        n.pos = next(S).pos;
        n.kids.push_back(parse_not());
        return n;
    }
    return parse_primary();
}

prop parser::parse_primary() {
    const token t = peek(S);
    prop p;
    p.pos = t.pos;
    if (t.kind == tok::ident && (t.text == "true" || t.text == "false")) {
        next(S);
        p.kind = t.text == "true" ? prop_kind::true_ : prop_kind::false_;
        return p;
    }
    if (accept(S, "(")) {
        p = parse_or();
        expect(S, ")", "to close the parenthesis");
        return p;
    }
    if (t.kind != tok::number && t.kind != tok::ident && !(t.kind == tok::punct && t.text == "["))
        fail(t.pos, "expected a condition, found " + describe(t));
    p.kind = prop_kind::atom;
    p.lhs = parse_rloc();
    const token op = next(S);
    bool negated = false;
    if (op.kind == tok::punct && (op.text == "!=" || op.text == "<>"))
        negated = true;
    else if (op.kind != tok::punct || (op.text != "=" && op.text != "=="))
        fail(op.pos, "expected '=' in the condition, found " + describe(op));
    const token v = next(S);
    if (v.kind == tok::number) {
        if (v.num < INT32_MIN || v.num > UINT32_MAX) fail(v.pos, "number out of range");
        p.rhs = value::of_int(std::int32_t(std::uint32_t(v.num)));
    } else if (v.kind == tok::ident) {
        const int k = find_location(v.text);
        if (k < 0) fail(v.pos, "unknown location '" + v.text + "' as a value");
        p.rhs = value::of_loc(unsigned(k));
    } else {
        fail(v.pos, "expected a value (a number or a location), found " + describe(v));
    }
    if (!negated) return p;
    prop n;
    n.kind = prop_kind::not_;
    n.pos = p.pos;
    n.kids.push_back(std::move(p));
    return n;
}

}  // namespace detail
}  // namespace kverify::litmus
