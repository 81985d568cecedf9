// SPDX-License-Identifier: GPL-2.0-only
// The litmus lexer (lexer.hpp).
#include "model/litmus/lexer.hpp"

#include <cctype>
#include <cstring>

namespace kverify::litmus {

void lexer::advance(std::size_t n) {
    for (; n > 0 && i_ < s_.size(); --n, ++i_) {
        if (s_[i_] == '\n') {
            ++pos_.line;
            pos_.col = 1;
        } else {
            ++pos_.col;
        }
    }
}

void lexer::seek(std::size_t offset, src_pos pos) {
    i_ = offset;
    pos_ = pos;
    has_peek_ = false;
}

// OCaml comments nest, as herd7's lexers read them.
void lexer::skip_ocaml_comment() {
    const src_pos start = pos_;
    advance(2);
    unsigned depth = 1;
    while (depth > 0) {
        if (i_ >= s_.size()) throw litmus_error(start, "unterminated comment (* ... *)");
        if (at(0) == '(' && at(1) == '*') {
            ++depth;
            advance(2);
        } else if (at(0) == '*' && at(1) == ')') {
            --depth;
            advance(2);
        } else {
            advance();
        }
    }
}

void lexer::skip_c_comment() {
    const src_pos start = pos_;
    if (at(1) == '/') {
        while (i_ < s_.size() && at(0) != '\n') advance();
        return;
    }
    advance(2);
    while (!(at(0) == '*' && at(1) == '/')) {
        if (i_ >= s_.size()) throw litmus_error(start, "unterminated comment /* ... */");
        advance();
    }
    advance(2);
}

void lexer::skip_space(lex_mode mode) {
    for (;;) {
        const char c = at(0);
        if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v') {
            advance();
        } else if (c == '(' && at(1) == '*' && mode != lex_mode::code) {
            skip_ocaml_comment();
        } else if (c == '/' && (at(1) == '/' || at(1) == '*') && mode != lex_mode::state) {
            skip_c_comment();
        } else {
            return;
        }
    }
}

token lexer::lex(lex_mode mode) {
    skip_space(mode);
    token t;
    t.pos = pos_;
    t.offset = i_;
    if (i_ >= s_.size()) {
        t.kind = tok::eof;
        return t;
    }
    const char c = at(0);
    const bool negative = c == '-' && mode == lex_mode::state && std::isdigit((unsigned char)at(1));
    if (std::isdigit((unsigned char)c) || negative) {
        std::size_t k = negative ? 1 : 0;
        int base = 10;
        if (at(k) == '0' && (at(k + 1) == 'x' || at(k + 1) == 'X')) {
            base = 16;
            k += 2;
        }
        const std::size_t digits = k;
        while (std::isxdigit((unsigned char)at(k)) &&
               (base == 16 || std::isdigit((unsigned char)at(k))))
            ++k;
        if (k == digits || std::isalnum((unsigned char)at(k)) || at(k) == '_') {
            while (std::isalnum((unsigned char)at(k)) || at(k) == '_') ++k;
            throw litmus_error(pos_, "malformed number '" + s_.substr(i_, k) + "'");
        }
        t.kind = tok::number;
        t.text = s_.substr(i_, k);
        std::uint64_t v = 0;
        for (std::size_t j = digits; j < k; ++j) {
            const char d = s_[i_ + j];
            const unsigned dv = std::isdigit((unsigned char)d)
                                    ? unsigned(d - '0')
                                    : unsigned(std::tolower((unsigned char)d) - 'a' + 10);
            v = v * unsigned(base) + dv;
            if (v > 0xffffffffull) throw litmus_error(pos_, "number " + t.text + " is too large");
        }
        t.num = negative ? -std::int64_t(v) : std::int64_t(v);
        advance(k);
        return t;
    }
    if (std::isalpha((unsigned char)c) || c == '_') {
        std::size_t k = 1;
        while (std::isalnum((unsigned char)at(k)) || at(k) == '_') ++k;
        t.kind = tok::ident;
        t.text = s_.substr(i_, k);
        advance(k);
        return t;
    }
    static const char* const code_ops[] = {"==", "!=", "<=", ">=", "&&", "||"};
    static const char* const state_ops[] = {"/\\", "\\/", "=>", "==", "!=", "<>"};
    const char* const* ops = mode == lex_mode::state ? state_ops : code_ops;
    for (unsigned k = 0; k < 6; ++k) {
        if (at(0) == ops[k][0] && at(1) == ops[k][1]) {
            t.kind = tok::punct;
            t.text = ops[k];
            advance(2);
            return t;
        }
    }
    if (std::strchr("(){}[],;:*&|^~!+-/%=<>", c) != nullptr) {
        t.kind = tok::punct;
        t.text = std::string(1, c);
        advance();
        return t;
    }
    throw litmus_error(pos_, std::string("unexpected character '") + c + "'");
}

const token& lexer::peek(lex_mode mode) {
    if (has_peek_ && peek_mode_ != mode) seek(before_peek_, before_peek_pos_);
    if (!has_peek_) {
        before_peek_ = i_;
        before_peek_pos_ = pos_;
        peeked_ = lex(mode);
        peek_mode_ = mode;
        has_peek_ = true;
    }
    return peeked_;
}

token lexer::next(lex_mode mode) {
    peek(mode);
    has_peek_ = false;
    return peeked_;
}

std::string lexer::rest_of_line() {
    if (has_peek_) seek(before_peek_, before_peek_pos_);
    std::string line;
    while (i_ < s_.size() && at(0) != '\n') {
        line += at(0);
        advance();
    }
    return line;
}

}  // namespace kverify::litmus
