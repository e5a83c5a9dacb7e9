#pragma once
// The tokens of the Python subset FX prints (names, numbers, strings with
// their escapes, punctuation), pulled one at a time: a long line is never
// held as tokens. Internal to lib/fx.

#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string>
#include <string_view>

#include "fx/fx_text.h"
#include "text/escape.h"

namespace osched::fx_syntax {

inline bool is_ident_start(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}
inline bool is_ident_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

struct Token {
  enum class Kind : uint8_t { Name, Int, Float, String, Punct, End };
  Kind kind = Kind::End;
  std::string text;     // name, punctuation, string content
  int64_t i = 0;        // Int
  double f = 0;         // Float
  bool int_min = false; // the literal 9223372036854775808 (only valid negated)
  int col = 0;          // 1-based column where the token starts
};

class Lexer {
public:
  // `col0` is the column of the text's first byte in its line, 1-based.
  Lexer(std::string_view s, int line, int col0 = 1) : s_(s), line_(line), col0_(col0) {}

  // The next token, or End (again and again) past the text. The parser
  // pulls tokens as it goes, so a long line is never held as tokens.
  Token next() {
    Token t = scan();
    t.col = col0_ + static_cast<int>(start_);
    return t;
  }
  int col() const { return col0_ + static_cast<int>(p_); }

private:
  Token scan() {
    {
      skip_space();
      start_ = p_;
      if (p_ >= s_.size())
        return Token{};
      char c = s_[p_];
      if (is_ident_start(c)) {
        size_t b = p_;
        while (p_ < s_.size() && is_ident_char(s_[p_]))
          ++p_;
        return name(std::string(s_.substr(b, p_ - b)));
      } else if (std::isdigit(static_cast<unsigned char>(c)) ||
                 (c == '.' && p_ + 1 < s_.size() &&
                  std::isdigit(static_cast<unsigned char>(s_[p_ + 1])))) {
        return number();
      } else if (c == '"' || c == '\'') {
        return string_literal(c);
      } else {
        static constexpr std::string_view kTwo[] = {
            "//", "**", "->", "==", "!=", "<=", ">=", "<<", ">>"};
        Token t;
        t.kind = Token::Kind::Punct;
        for (auto two : kTwo)
          if (s_.substr(p_, 2) == two)
            t.text = std::string(two);
        if (t.text.empty()) {
          if (std::string_view("()[]{},:;=.+-*/%<>@&|^~").find(c) == std::string_view::npos)
            throw FxSyntaxError(line_, "unexpected character '" + std::string(1, c) + "'",
                                col0_ + static_cast<int>(p_));
          t.text = std::string(1, c);
        }
        p_ += t.text.size();
        return t;
      }
    }
  }

  static Token name(std::string text) {
    Token t;
    t.kind = Token::Kind::Name;
    t.text = std::move(text);
    return t;
  }
  void skip_space() {
    while (p_ < s_.size() && (s_[p_] == ' ' || s_[p_] == '\t' || s_[p_] == '\\'))
      ++p_;
  }
  Token number() {
    size_t b = p_;
    bool is_float = false;
    while (p_ < s_.size() && (std::isdigit(static_cast<unsigned char>(s_[p_])) || s_[p_] == '_'))
      ++p_;
    if (p_ < s_.size() && s_[p_] == '.') {
      is_float = true;
      ++p_;
      while (p_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[p_])))
        ++p_;
    }
    if (p_ < s_.size() && (s_[p_] == 'e' || s_[p_] == 'E')) {
      size_t q = p_ + 1;
      if (q < s_.size() && (s_[q] == '+' || s_[q] == '-'))
        ++q;
      if (q < s_.size() && std::isdigit(static_cast<unsigned char>(s_[q]))) {
        is_float = true;
        p_ = q;
        while (p_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[p_])))
          ++p_;
      }
    }
    std::string text;
    for (char c : s_.substr(b, p_ - b))
      if (c != '_')
        text += c;
    Token t;
    // An imaginary literal (1j, 2.5e3J): kept as Python writes it.
    if (p_ < s_.size() && (s_[p_] == 'j' || s_[p_] == 'J')) {
      ++p_;
      t.kind = Token::Kind::Float;
      t.f = std::strtod(text.c_str(), nullptr);
      t.text = text + "j";
      return t;
    }
    if (!is_float) {
      errno = 0;
      unsigned long long v = std::strtoull(text.c_str(), nullptr, 10);
      if (errno == 0 && v <= static_cast<unsigned long long>(std::numeric_limits<int64_t>::max())) {
        t.kind = Token::Kind::Int;
        t.i = static_cast<int64_t>(v);
        return t;
      }
      if (errno == 0 && v == static_cast<unsigned long long>(1) << 63) {
        t.kind = Token::Kind::Int;
        t.int_min = true;
        t.i = std::numeric_limits<int64_t>::min();
        return t;
      }
    }
    t.kind = Token::Kind::Float;
    t.f = std::strtod(text.c_str(), nullptr);
    return t;
  }
  Token string_literal(char quote) {
    ++p_;
    Token t;
    t.kind = Token::Kind::String;
    while (true) {
      if (p_ >= s_.size())
        throw FxSyntaxError(line_, "unterminated string", col0_ + static_cast<int>(start_));
      char c = s_[p_++];
      if (c == quote)
        break;
      if (c == '\\' && p_ < s_.size()) {
        char e = s_[p_++];
        switch (e) {
        case 'n':
          t.text += '\n';
          break;
        case 't':
          t.text += '\t';
          break;
        case 'r':
          t.text += '\r';
          break;
        case 'x':
        case 'u':
        case 'U':
          // Python's escapes name code points: '\xff' is U+00FF, two bytes of UTF-8.
          append_code_point(t.text, hex_escape(e == 'x' ? 2 : e == 'u' ? 4 : 8));
          break;
        default:
          t.text += e;
        }
        continue;
      }
      t.text += c;
    }
    if (invalid_utf8_offset(t.text) != std::string::npos)
      throw FxSyntaxError(line_, "string literal is not valid UTF-8",
                          col0_ + static_cast<int>(start_));
    return t;
  }
  uint32_t hex_escape(size_t digits) {
    uint32_t v = 0;
    for (size_t k = 0; k < digits; ++k, ++p_) {
      char h = p_ < s_.size() ? s_[p_] : '\0';
      if (!std::isxdigit(static_cast<unsigned char>(h)))
        throw FxSyntaxError(line_, "truncated \\x, \\u or \\U escape in a string");
      v = v * 16 +
          static_cast<uint32_t>(std::isdigit(static_cast<unsigned char>(h))
                                    ? h - '0'
                                    : std::tolower(static_cast<unsigned char>(h)) - 'a' + 10);
    }
    return v;
  }
  void append_code_point(std::string& out, uint32_t cp) {
    if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
      throw FxSyntaxError(line_, "escape names no Unicode character");
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }

  std::string_view s_;
  int line_;
  int col0_;
  size_t p_ = 0;
  size_t start_ = 0;
};

} // namespace osched::fx_syntax
