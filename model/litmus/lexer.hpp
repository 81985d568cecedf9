// SPDX-License-Identifier: GPL-2.0-only
// Tokens of a C litmus file. The file mixes two languages, and the lexer is told which one it
// reads: herd7's state language (the init block and the final clause: `(* *)` comments, `/\`,
// `\/`, negative numbers) and C (the threads: `//` and `/* */` comments, where `(*p)` is code).
// Between two threads both kinds of comment are skipped.
#pragma once

#include <cstdint>
#include <string>

#include "model/litmus/ast.hpp"

namespace kverify::litmus {

enum class tok : std::uint8_t { ident, number, punct, eof };

struct token {
    tok kind = tok::eof;
    std::string text;      // ident, punct (the characters), number (as written)
    std::int64_t num = 0;  // number
    src_pos pos;
    std::size_t offset = 0;  // where it starts in the file
};

enum class lex_mode : std::uint8_t { state, code, between_threads };

class lexer {
public:
    explicit lexer(const std::string& text) : s_(text) {}

    // The next token in `mode`; peek does not consume it. Changing the mode between a peek and
    // the next call lexes that token again in the new mode.
    const token& peek(lex_mode mode);
    token next(lex_mode mode);

    // Raw access for the header: the rest of the current line, and skipping to a character.
    std::string rest_of_line();
    src_pos here() const { return pos_; }
    std::size_t offset() const { return i_; }
    const std::string& text() const { return s_; }
    // Moves to `offset` (which must be a token boundary the lexer already passed or peeked).
    void seek(std::size_t offset, src_pos pos);

private:
    void skip_space(lex_mode mode);
    void skip_ocaml_comment();
    void skip_c_comment();
    token lex(lex_mode mode);
    char at(std::size_t k) const { return i_ + k < s_.size() ? s_[i_ + k] : '\0'; }
    void advance(std::size_t n = 1);

    const std::string& s_;
    std::size_t i_ = 0;
    src_pos pos_{1, 1};
    bool has_peek_ = false;
    lex_mode peek_mode_ = lex_mode::state;
    token peeked_;
    std::size_t before_peek_ = 0;
    src_pos before_peek_pos_;
};

}  // namespace kverify::litmus
