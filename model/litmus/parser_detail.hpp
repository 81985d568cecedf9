// SPDX-License-Identifier: GPL-2.0-only
// The parser's state, shared by its two halves: parser.cpp (the file's sections, the init
// block and the final clause, in herd7's state language) and parse_code.cpp (the threads, in C).
#pragma once

#include <string>

#include "model/litmus/ast.hpp"
#include "model/litmus/lexer.hpp"

namespace kverify::litmus::detail {

class parser {
public:
    parser(const std::string& file, const std::string& text) : lx_(text) { t_.file = file; }
    test run();

private:
    // parser.cpp
    void header();
    void init_block();
    value init_value();
    void final_clause();
    rloc parse_rloc();
    prop parse_or();
    prop parse_and();
    prop parse_implies();
    prop parse_not();
    prop parse_primary();
    unsigned location_of(const std::string& name, src_pos pos);
    int find_location(const std::string& name) const;
    c_type parse_type(lex_mode mode);
    bool is_type_name(const std::string& name) const;

    // parse_code.cpp
    void threads();
    void parse_thread(unsigned id);
    void block_items(std::vector<stmt>& out);
    stmt statement();
    void declaration(std::vector<stmt>& out);
    expr expression(unsigned min_prec = 1);
    expr unary();
    expr primary();
    expr call(const token& name);
    unsigned register_of(const std::string& name, src_pos pos);
    void check_value_use(const expr& e) const;
    static unsigned count_events(const std::vector<stmt>& body);
    static unsigned count_events(const expr& e);

    // tokens
    const token& peek(lex_mode m) { return lx_.peek(m); }
    token next(lex_mode m) { return lx_.next(m); }
    bool accept(lex_mode m, const char* punct);
    token expect(lex_mode m, const char* punct, const char* what);
    std::string ident(lex_mode m, const char* what);
    [[noreturn]] static void fail(src_pos p, const std::string& msg) { throw litmus_error(p, msg); }
    static std::string describe(const token& t);

    struct reg_init {
        unsigned thread;
        std::string name;
        value v;
        src_pos pos;
    };

    lexer lx_;
    test t_;
    std::vector<reg_init> reg_inits_;  // N:r=V in the init block, applied after the threads
    thread* cur_ = nullptr;            // the thread being parsed
};

}  // namespace kverify::litmus::detail
