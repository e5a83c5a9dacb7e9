#include "fx/fx_text.h"
#include "text/escape.h"
#include "text/log_prefix.h"

#include <cctype>
#include <cstdlib>
#include <deque>
#include <limits>
#include <map>
#include <optional>
#include <string_view>

namespace osched {
namespace {

// Deeper nesting is hostile input, not FX code (FX nests lists a few deep).
constexpr int kMaxExprDepth = 64;
// FX prints one statement a line, and its longest are a few tens of KB; a
// statement costs about 60 bytes of memory per byte of text while parsed.
constexpr size_t kMaxLogicalLineBytes = size_t{4} << 20;

bool is_ident_start(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}
bool is_ident_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}
// Removes `[__post_grad_graphs] `-style markers and `[0/1] ` frame ids that
// TORCH_LOGS puts before each line's content.
std::string_view strip_log_markers(std::string_view s) {
  while (s.size() > 2 && s[0] == '[') {
    size_t close = s.find(']');
    if (close == std::string_view::npos || close + 1 >= s.size() || s[close + 1] != ' ')
      break;
    std::string_view inside = s.substr(1, close - 1);
    bool frame = !inside.empty() && std::isdigit(static_cast<unsigned char>(inside[0])) &&
                 inside.find('/') != std::string_view::npos;
    bool marker = inside.size() > 2 && inside.substr(0, 2) == "__";
    if (!frame && !marker)
      break;
    s.remove_prefix(close + 2);
  }
  return s;
}

// The part of a log line after its prefixes: `[rank0]:`, a glog header
// (`V1203 12:00:00.123456 4242 `), `path.py:910] ` and the markers above.
std::string_view strip_log_prefix(std::string_view s) {
  s = strip_rank_and_glog(s);
  // `some/file.py:910] `: a path without spaces, a line number, a bracket.
  size_t end = s.find("] ");
  if (end != std::string_view::npos && end < 512) {
    std::string_view head = s.substr(0, end);
    size_t colon = head.rfind(':');
    if (colon != std::string_view::npos && head.find(' ') == std::string_view::npos &&
        is_decimal(head.substr(colon + 1)) && colon >= 3 && head.substr(colon - 3, 3) == ".py")
      s = strip_log_markers(s.substr(end + 2));
  }
  return s;
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

class Parser {
public:
  Parser(Lexer lexer, int line) : lexer_(lexer), line_(line) {}

  // Lookahead is at most two tokens.
  const Token& peek(size_t k = 0) const {
    while (ahead_.size() <= k)
      ahead_.push_back(lexer_.next());
    return ahead_[k];
  }
  bool at_punct(std::string_view p, size_t k = 0) const {
    return peek(k).kind == Token::Kind::Punct && peek(k).text == p;
  }
  bool at_end() const { return peek().kind == Token::Kind::End; }
  Token next() {
    peek();
    Token t = std::move(ahead_.front());
    ahead_.pop_front();
    return t;
  }
  void expect(std::string_view p) {
    if (!at_punct(p))
      fail("expected '" + std::string(p) + "'" + found());
    next();
  }
  // Errors point at the next unread token (the end of the text at its end).
  [[noreturn]] void fail(const std::string& m) const {
    const Token& t = peek();
    throw FxSyntaxError(line_, m, t.kind == Token::Kind::End ? lexer_.col() : t.col);
  }
  std::string found() const {
    const Token& t = peek();
    switch (t.kind) {
    case Token::Kind::End:
      return " at end of line";
    case Token::Kind::String:
      return " before a string";
    case Token::Kind::Int:
    case Token::Kind::Float:
      return " before a number";
    default:
      return " before '" + t.text + "'";
    }
  }

  // `depth` bounds the syntax tree's height, not only bracket nesting: each
  // link of a chain (`a + b + ...`, `x[0][0]...`, `f()()`) wraps the tree
  // once more, and every later walk over it recurses. Precedence is
  // Python's: comparison < | < ^ < & < shifts < + - < * / // % @ < unary <
  // ** < postfix.
  FxExpr expression(int depth = 0) {
    check_depth(depth);
    FxExpr lhs = binary(kComparison, depth);
    if (at_comparison()) {
      check_depth(++depth);
      std::string op = next().text;
      lhs = binop(op, std::move(lhs), binary(kComparison, depth));
      if (at_comparison())
        fail("chained comparison");
    }
    return lhs;
  }

private:
  // Binary operator levels below comparison, loosest first.
  static constexpr int kComparison = 0;
  static constexpr int kLevels = 6;
  static bool level_has(int level, std::string_view op) {
    static constexpr std::string_view kOps[kLevels][5] = {{},    {"|"},        {"^"},
                                                          {"&"}, {"<<", ">>"}, {"+", "-"}};
    if (level == kLevels)
      return op == "*" || op == "/" || op == "//" || op == "%" || op == "@";
    for (auto o : kOps[level])
      if (!o.empty() && o == op)
        return true;
    return false;
  }
  bool at_comparison() const {
    static constexpr std::string_view kCmp[] = {"==", "!=", "<", ">", "<=", ">="};
    if (peek().kind != Token::Kind::Punct)
      return false;
    for (auto c : kCmp)
      if (peek().text == c)
        return true;
    return false;
  }
  // Operands of `level`'s operators are expressions of the next level.
  FxExpr binary(int level, int& depth) {
    if (level > kLevels)
      return unary(depth);
    FxExpr lhs = binary(level + 1, depth);
    while (level > kComparison && peek().kind == Token::Kind::Punct &&
           level_has(level, peek().text)) {
      check_depth(++depth);
      std::string op = next().text;
      lhs = binop(op, std::move(lhs), binary(level + 1, depth));
    }
    return lhs;
  }
  static FxExpr binop(std::string op, FxExpr a, FxExpr b) {
    FxExpr e;
    e.kind = FxExpr::Kind::BinOp;
    e.text = std::move(op);
    e.items.push_back(std::move(a));
    e.items.push_back(std::move(b));
    return e;
  }
  void check_depth(int depth) const {
    if (depth > kMaxExprDepth)
      fail("expression nested deeper than " + std::to_string(kMaxExprDepth) + " levels");
  }
  FxExpr unary(int depth) {
    check_depth(depth);
    if (at_punct("-")) {
      next();
      if (peek().kind == Token::Kind::Int && !at_punct("**", 1)) {
        Token t = next();
        FxExpr e;
        e.kind = FxExpr::Kind::Int;
        e.i = t.int_min ? t.i : -t.i;
        return postfix(std::move(e), depth);
      }
      FxExpr inner = unary(depth + 1);
      if (inner.kind == FxExpr::Kind::Float) {
        inner.f = -inner.f;
        if (!inner.text.empty()) // an imaginary literal's text: -2.5j
          inner.text = inner.text[0] == '-' ? inner.text.substr(1) : "-" + inner.text;
        return inner;
      }
      FxExpr e;
      e.kind = FxExpr::Kind::Neg;
      e.items.push_back(std::move(inner));
      return e;
    }
    if (at_punct("~")) {
      next();
      FxExpr e;
      e.kind = FxExpr::Kind::Invert;
      e.items.push_back(unary(depth + 1));
      return e;
    }
    if (at_punct("+")) {
      next();
      return unary(depth + 1);
    }
    if (peek().kind == Token::Kind::Int && peek().int_min)
      fail("integer literal out of range");
    FxExpr base = postfix(atom(depth), depth);
    if (at_punct("**")) {
      check_depth(++depth);
      next();
      return binop("**", std::move(base), unary(depth));
    }
    return base;
  }
  FxExpr postfix(FxExpr e, int depth) {
    while (true) {
      if (at_punct("(") || at_punct("["))
        check_depth(++depth);
      if (at_punct(".") && peek(1).kind == Token::Kind::Name &&
          (e.kind == FxExpr::Kind::Name || e.kind == FxExpr::Kind::Attr)) {
        next();
        e.kind = FxExpr::Kind::Attr;
        e.text += "." + next().text;
      } else if (at_punct("(")) {
        if (fx_dotted_path(e).empty())
          fail("only named functions can be called");
        next();
        FxExpr call;
        call.kind = FxExpr::Kind::Call;
        call.text = fx_dotted_path(e);
        arguments(call, depth);
        e = std::move(call);
      } else if (at_punct("[")) {
        next();
        FxExpr sub;
        sub.kind = FxExpr::Kind::Subscript;
        sub.items.push_back(std::move(e));
        sub.items.push_back(expression(depth));
        expect("]");
        e = std::move(sub);
      } else {
        return e;
      }
    }
  }
  void arguments(FxExpr& call, int depth) {
    while (!at_punct(")")) {
      if (peek().kind == Token::Kind::Name && at_punct("=", 1)) {
        std::string key = next().text;
        next();
        call.kwargs.emplace_back(std::move(key), expression(depth));
      } else {
        if (!call.kwargs.empty())
          fail("positional argument after keyword argument");
        call.items.push_back(expression(depth));
      }
      if (!at_punct(","))
        break;
      next();
    }
    expect(")");
  }
  FxExpr atom(int depth) {
    if (at_end())
      fail("expression expected at end of line");
    if (peek().kind == Token::Kind::Punct && peek().text != "(" && peek().text != "[" &&
        peek().text != "{")
      fail("unexpected '" + peek().text + "'");
    Token t = next();
    FxExpr e;
    switch (t.kind) {
    case Token::Kind::Int:
      e.kind = FxExpr::Kind::Int;
      e.i = t.i;
      return e;
    case Token::Kind::Float:
      e.kind = FxExpr::Kind::Float;
      e.f = t.f;
      e.text = std::move(t.text); // "2j" for an imaginary literal, else empty
      return e;
    case Token::Kind::String:
      e.kind = FxExpr::Kind::String;
      e.text = std::move(t.text);
      // Adjacent literals concatenate, as in Python.
      while (peek().kind == Token::Kind::String)
        e.text += next().text;
      return e;
    case Token::Kind::Name:
      e.kind = FxExpr::Kind::Name;
      e.text = std::move(t.text);
      return e;
    case Token::Kind::Punct:
      if (t.text == "{")
        return dict(depth);
      {
        std::string close = t.text == "(" ? ")" : "]";
        e.kind = FxExpr::Kind::List;
        e.tuple = t.text == "(";
        bool comma = false;
        while (!at_punct(close)) {
          e.items.push_back(expression(depth + 1));
          if (!at_punct(","))
            break;
          comma = true;
          next();
        }
        expect(close);
        // `(x)` is x; `(x,)` is a tuple.
        if (e.tuple && e.items.size() == 1 && !comma)
          return std::move(e.items[0]);
        return e;
      }
    case Token::Kind::End:
      break;
    }
    fail("unexpected token");
  }
  // `{key: value, ...}` after its `{`.
  FxExpr dict(int depth) {
    FxExpr e;
    e.kind = FxExpr::Kind::Dict;
    while (!at_punct("}")) {
      e.items.push_back(expression(depth + 1));
      expect(":");
      e.items.push_back(expression(depth + 1));
      if (!at_punct(","))
        break;
      next();
    }
    expect("}");
    return e;
  }

  mutable Lexer lexer_;
  mutable std::deque<Token> ahead_;
  int line_;
};

struct LogicalLine {
  std::string text;    // code without the trailing comment
  std::string comment; // trailing comment, without '#', trimmed
  int indent = 0;
  int line = 0; // first physical line, 1-based
};

// Splits text into physical lines, strips log prefixes and comments, and
// joins lines while brackets are open.
std::vector<LogicalLine> logical_lines(const std::string& text) {
  std::vector<LogicalLine> out;
  LogicalLine cur;
  int depth = 0;
  size_t pos = 0;
  int line_no = 0;
  while (pos <= text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string::npos)
      nl = text.size();
    std::string_view raw(text.data() + pos, nl - pos);
    pos = nl + 1;
    ++line_no;
    if (!raw.empty() && raw.back() == '\r')
      raw.remove_suffix(1);
    std::string_view s = strip_log_prefix(raw);
    // Code and comment, tracking strings and brackets.
    std::string code;
    std::string comment;
    char quote = 0;
    for (size_t i = 0; i < s.size(); ++i) {
      char c = s[i];
      if (quote) {
        code += c;
        if (c == '\\' && i + 1 < s.size())
          code += s[++i];
        else if (c == quote)
          quote = 0;
        continue;
      }
      if (c == '#') {
        comment = fx_trim(s.substr(i + 1));
        break;
      }
      if (c == '"' || c == '\'')
        quote = c;
      else if (c == '(' || c == '[' || c == '{')
        ++depth;
      else if ((c == ')' || c == ']' || c == '}') && depth > 0)
        --depth;
      code += c;
    }
    if (cur.text.empty() && fx_trim(code).empty() && depth == 0) {
      if (pos > text.size())
        break;
      continue;
    }
    if (cur.text.empty()) {
      cur.line = line_no;
      int indent = 0;
      while (indent < static_cast<int>(code.size()) &&
             (code[indent] == ' ' || code[indent] == '\t'))
        ++indent;
      cur.indent = indent;
      cur.text = fx_trim(code);
    } else {
      cur.text += " " + fx_trim(code);
    }
    if (!comment.empty())
      cur.comment = comment;
    if (cur.text.size() > kMaxLogicalLineBytes)
      throw FxSyntaxError(cur.line, "statement longer than " +
                                        std::to_string(kMaxLogicalLineBytes >> 20) +
                                        " MiB (an unclosed bracket?)");
    if (depth == 0 || pos > text.size()) {
      out.push_back(std::move(cur));
      cur = LogicalLine{};
      depth = 0;
    }
    if (pos > text.size())
      break;
  }
  return out;
}

bool starts_with(std::string_view s, std::string_view p) {
  return s.substr(0, p.size()) == p;
}

// The `;`-separated statements of a line (outside strings and brackets),
// each with its offset in the line.
std::vector<std::pair<std::string, size_t>> split_statements(const std::string& s) {
  std::vector<std::pair<std::string, size_t>> out;
  char quote = 0;
  int depth = 0;
  size_t begin = 0;
  auto emit = [&](size_t end) {
    size_t b = begin;
    while (b < end && std::isspace(static_cast<unsigned char>(s[b])))
      ++b;
    std::string part = fx_trim(std::string_view(s).substr(b, end - b));
    if (!part.empty())
      out.emplace_back(std::move(part), b);
  };
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (quote) {
      if (c == '\\')
        ++i;
      else if (c == quote)
        quote = 0;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '(' || c == '[' || c == '{') {
      ++depth;
    } else if (c == ')' || c == ']' || c == '}') {
      --depth;
    } else if (c == ';' && depth == 0) {
      emit(i);
      begin = i + 1;
    }
  }
  emit(s.size());
  return out;
}

Parser parser_at(const LogicalLine& l, std::string_view code, size_t offset = 0) {
  return Parser(Lexer(code, l.line, l.indent + 1 + static_cast<int>(offset)), l.line);
}

std::vector<FxParam> parse_params(const LogicalLine& l) {
  Parser p = parser_at(l, l.text);
  p.next(); // def
  p.next(); // forward
  p.expect("(");
  std::vector<FxParam> params;
  while (!p.at_punct(")")) {
    if (p.at_punct("*") || p.at_punct("**"))
      p.next();
    if (p.peek().kind != Token::Kind::Name)
      p.fail("parameter name expected");
    Token name = p.next();
    FxParam param;
    param.name = name.text;
    param.line = l.line;
    if (p.at_punct(":")) {
      p.next();
      if (p.peek().kind == Token::Kind::String)
        param.annotation = p.next().text;
      else
        p.expression(); // a Python type (`torch.Tensor`): no metadata
    }
    if (p.at_punct("=")) {
      p.next();
      p.expression();
    }
    if (param.name != "self")
      params.push_back(std::move(param));
    if (!p.at_punct(","))
      break;
    p.next();
  }
  p.expect(")");
  return params;
}

enum class StatementForm { Node, Skip, AnnotationOnly, Unpack };

// One statement of a forward's body.
StatementForm parse_statement(const LogicalLine& l, const std::string& code, size_t offset,
                              FxStatement& st) {
  Parser p = parser_at(l, code, offset);
  st.line = l.line;
  st.col = p.peek().col;
  if (p.peek().kind != Token::Kind::Name)
    p.fail("statement must assign a name");
  st.name = p.next().text;
  // `a, b, = f(...)`: unpacking.
  if (p.at_punct(",")) {
    st.targets.push_back(st.name);
    while (p.at_punct(",")) {
      p.next();
      if (p.at_punct("="))
        break;
      if (p.peek().kind != Token::Kind::Name)
        p.fail("name expected in an unpacking assignment");
      st.targets.push_back(p.next().text);
    }
    p.expect("=");
    st.value = p.expression();
    if (!p.at_end())
      p.fail("unexpected text after the expression" + p.found());
    return StatementForm::Unpack;
  }
  if (p.at_punct(":")) {
    p.next();
    if (p.peek().kind == Token::Kind::String)
      st.annotation = p.next().text;
    else
      p.expression();
    // `primals_1: "f32[8]"`: a joint graph declaring an input's metadata.
    if (p.at_end())
      return StatementForm::AnnotationOnly;
  }
  p.expect("=");
  // `a = b = None`: the names FX releases, not a node.
  if (p.peek().kind == Token::Kind::Name && p.at_punct("=", 1))
    return StatementForm::Skip;
  st.value = p.expression();
  if (!p.at_end())
    p.fail("unexpected text after the expression" + p.found());
  if (st.value.kind == FxExpr::Kind::Name && st.value.text == "None")
    return StatementForm::Skip;
  return StatementForm::Node;
}

} // namespace

std::string fx_trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b])))
    ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1])))
    --e;
  return std::string(s.substr(b, e - b));
}

std::string fx_dotted_path(const FxExpr& e) {
  if (e.kind == FxExpr::Kind::Name || e.kind == FxExpr::Kind::Attr)
    return e.text;
  return "";
}

std::string fx_expr_text(const FxExpr& e) {
  auto joined = [](const std::vector<FxExpr>& items) {
    std::string s;
    for (size_t i = 0; i < items.size(); ++i)
      s += (i ? ", " : "") + fx_expr_text(items[i]);
    return s;
  };
  switch (e.kind) {
  case FxExpr::Kind::Int:
    return std::to_string(e.i);
  case FxExpr::Kind::Float: {
    if (!e.text.empty()) // an imaginary literal, as written
      return e.text;
    std::string s = std::to_string(e.f);
    return s;
  }
  case FxExpr::Kind::String:
    return "'" + e.text + "'";
  case FxExpr::Kind::Name:
  case FxExpr::Kind::Attr:
    return e.text;
  case FxExpr::Kind::Call:
    return e.text + "(" + joined(e.items) + ")";
  case FxExpr::Kind::Subscript:
    return fx_expr_text(e.items[0]) + "[" + fx_expr_text(e.items[1]) + "]";
  case FxExpr::Kind::List:
    return e.tuple ? "(" + joined(e.items) + ")" : "[" + joined(e.items) + "]";
  case FxExpr::Kind::BinOp:
    return "(" + fx_expr_text(e.items[0]) + " " + e.text + " " + fx_expr_text(e.items[1]) + ")";
  case FxExpr::Kind::Dict: {
    std::string t = "{";
    for (size_t i = 0; i + 1 < e.items.size(); i += 2)
      t += (i ? ", " : "") + fx_expr_text(e.items[i]) + ": " + fx_expr_text(e.items[i + 1]);
    return t + "}";
  }
  case FxExpr::Kind::Neg:
    return "-" + fx_expr_text(e.items[0]);
  case FxExpr::Kind::Invert:
    return "~" + fx_expr_text(e.items[0]);
  }
  return "";
}

FxExpr parse_fx_expression(const std::string& text, int line) {
  Parser p(Lexer(text, line), line);
  FxExpr e = p.expression();
  if (!p.at_end())
    p.fail("unexpected text after the expression" + p.found());
  return e;
}

// The `return` of a repro's zero-argument function `name`, or nullptr.
static const LogicalLine* returned_by(const std::vector<LogicalLine>& lines,
                                      std::string_view name) {
  for (size_t k = 0; k < lines.size(); ++k) {
    if (!starts_with(lines[k].text, "def " + std::string(name) + "("))
      continue;
    for (size_t j = k + 1; j < lines.size() && lines[j].indent > lines[k].indent; ++j)
      if (starts_with(lines[j].text, "return "))
        return &lines[j];
    return nullptr;
  }
  return nullptr;
}

// The value a repro function returns, parsed.
static std::optional<FxExpr> returned_value(const std::vector<LogicalLine>& lines,
                                            std::string_view name, int& line) {
  const LogicalLine* l = returned_by(lines, name);
  if (!l)
    return std::nullopt;
  line = l->line;
  Parser p = parser_at(*l, l->text);
  p.next(); // return
  FxExpr e = p.expression();
  if (!p.at_end())
    p.fail("unexpected text after the value" + p.found());
  return e;
}

// get_colls_estimations_file() returns a string; get_colls_group_mapping()
// a dict of strings to strings; get_pg_config() a dict of group name to
// {'size': N, 'rank': R}.
static void read_repro_functions(const std::vector<LogicalLine>& lines, FxProgram& prog) {
  int line = 0;
  if (auto e = returned_value(lines, "get_colls_estimations_file", line)) {
    if (e->kind != FxExpr::Kind::String || e->text.empty())
      throw FxSyntaxError(line, "get_colls_estimations_file() must return a file name");
    // The table is looked for beside the graph: a plain name, never a path
    // (a later schedule would read '../../etc/passwd' or '/dev/zero').
    const std::string& f = e->text;
    if (f == "." || f == ".." || f.find('/') != std::string::npos ||
        f.find('\0') != std::string::npos || f.size() > 255)
      throw FxSyntaxError(line, "get_colls_estimations_file() must return a plain file name "
                                "(the table beside the repro), got '" +
                                    escape_quoted(f.substr(0, 64)) + "'");
    prog.colls_table_file = f;
  }
  if (auto e = returned_value(lines, "get_colls_group_mapping", line)) {
    if (e->kind != FxExpr::Kind::Dict)
      throw FxSyntaxError(line, "get_colls_group_mapping() must return a dict of group names");
    for (size_t i = 0; i + 1 < e->items.size(); i += 2) {
      if (e->items[i].kind != FxExpr::Kind::String || e->items[i + 1].kind != FxExpr::Kind::String)
        throw FxSyntaxError(line, "get_colls_group_mapping() must return a dict of group names");
      prog.colls_group_mapping.emplace_back(e->items[i].text, e->items[i + 1].text);
    }
  }
  if (auto e = returned_value(lines, "get_pg_config", line)) {
    if (e->kind != FxExpr::Kind::Dict)
      throw FxSyntaxError(line, "get_pg_config() must return a dict of groups");
    for (size_t i = 0; i + 1 < e->items.size(); i += 2) {
      const FxExpr& key = e->items[i];
      const FxExpr& cfg = e->items[i + 1];
      std::optional<int64_t> size;
      if (cfg.kind == FxExpr::Kind::Dict)
        for (size_t k = 0; k + 1 < cfg.items.size(); k += 2)
          if (cfg.items[k].kind == FxExpr::Kind::String && cfg.items[k].text == "size" &&
              cfg.items[k + 1].kind == FxExpr::Kind::Int)
            size = cfg.items[k + 1].i;
      if (key.kind != FxExpr::Kind::String || !size)
        throw FxSyntaxError(line, "get_pg_config(): each group needs a name and an integer 'size'");
      prog.pg_sizes.emplace_back(key.text, *size);
    }
  }
}

// A forward's place in the file: its `def` line, the statements under it
// and the class it is a method of.
struct ForwardSpan {
  size_t def = 0;
  size_t statements = 0;
  std::string owner;
};

static std::vector<ForwardSpan> find_forwards(const std::vector<LogicalLine>& lines) {
  std::vector<ForwardSpan> out;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (!starts_with(lines[i].text, "def forward("))
      continue;
    ForwardSpan f;
    f.def = i;
    for (size_t j = i + 1; j < lines.size() && lines[j].indent > lines[i].indent; ++j)
      ++f.statements;
    for (size_t j = i; j-- > 0;)
      if (lines[j].indent < lines[i].indent && starts_with(lines[j].text, "class ")) {
        const std::string& t = lines[j].text;
        size_t b = 6, e = b;
        while (e < t.size() && is_ident_char(t[e]))
          ++e;
        f.owner = t.substr(b, e - b);
        break;
      } else if (lines[j].indent < lines[i].indent) {
        break;
      }
    out.push_back(std::move(f));
  }
  return out;
}

FxProgram parse_fx_text(const std::string& text, int graph_index) {
  std::vector<LogicalLine> lines = logical_lines(text);
  FxProgram prog;
  const std::vector<ForwardSpan> forwards = find_forwards(lines);
  if (forwards.empty())
    throw FxSyntaxError(0, "no 'def forward(' found: not an FX graph dump");
  if (graph_index >= static_cast<int>(forwards.size()))
    throw FxSyntaxError(0, "--graph " + std::to_string(graph_index) + ": the file has only " +
                               std::to_string(forwards.size()) + " forward graph(s)");
  size_t pick = 0;
  if (graph_index >= 0) {
    pick = static_cast<size_t>(graph_index);
  } else {
    for (size_t k = 1; k < forwards.size(); ++k)
      if (forwards[k].statements > forwards[pick].statements)
        pick = k;
  }
  prog.graph_index = static_cast<int>(pick);
  prog.graph_count = static_cast<int>(forwards.size());
  prog.graph_class = forwards[pick].owner;
  size_t i = forwards[pick].def;
  const LogicalLine& def = lines[i];
  prog.forward_line = def.line;
  prog.params = parse_params(def);
  // A joint graph's inputs: annotation-only statements, then
  // `primals_1, ..., = fx_pytree.tree_flatten_spec([primals, tangents], ...)`.
  std::map<std::string, std::string> declared;
  for (++i; i < lines.size() && lines[i].indent > def.indent; ++i) {
    const LogicalLine& l = lines[i];
    if (prog.has_return)
      break; // code after return belongs to nothing we read
    for (const auto& [code, offset] : split_statements(l.text)) {
      if (prog.has_return)
        break;
      if (starts_with(code, "return ") || code == "return") {
        prog.has_return = true;
        prog.return_line = l.line;
        std::string rest = fx_trim(std::string_view(code).substr(6));
        if (rest.empty()) {
          prog.returned.kind = FxExpr::Kind::List;
          prog.returned.tuple = true;
        } else {
          Parser p = parser_at(l, rest, offset + (code.size() - rest.size()));
          prog.returned = p.expression();
          if (!p.at_end())
            p.fail("unexpected text after the expression" + p.found());
        }
        continue;
      }
      FxStatement st;
      switch (parse_statement(l, code, offset, st)) {
      case StatementForm::Skip:
        break;
      case StatementForm::AnnotationOnly:
        declared[st.name] = st.annotation;
        break;
      case StatementForm::Unpack: {
        std::string callee = st.value.kind == FxExpr::Kind::Call ? st.value.text : "";
        if (callee.size() < 17 || callee.compare(callee.size() - 17, 17, "tree_flatten_spec") != 0)
          throw FxSyntaxError(st.line, "unpacking assignment of something other than the inputs",
                              st.col);
        if (!prog.body.empty())
          throw FxSyntaxError(st.line, "inputs unpacked after the first node", st.col);
        prog.params.clear();
        for (const auto& name : st.targets) {
          FxParam param;
          param.name = name;
          param.line = st.line;
          if (auto it = declared.find(name); it != declared.end())
            param.annotation = it->second;
          prog.params.push_back(std::move(param));
        }
        break;
      }
      case StatementForm::Node:
        prog.body.push_back(std::move(st));
        break;
      }
    }
  }
  if (!prog.has_return)
    throw FxSyntaxError(def.line, "forward has no return statement");
  read_repro_functions(lines, prog);
  // A repro's load_args block, wherever it is.
  for (size_t k = 0; k < lines.size(); ++k) {
    if (!starts_with(lines[k].text, "def load_args("))
      continue;
    int indent = lines[k].indent;
    for (size_t j = k + 1; j < lines.size() && lines[j].indent > indent; ++j) {
      const LogicalLine& l = lines[j];
      FxLoadArg a;
      a.line = l.line;
      a.comment = l.comment;
      auto parts = split_statements(l.text);
      if (parts.empty())
        continue;
      Parser p = parser_at(l, parts[0].first, parts[0].second);
      if (p.peek().kind == Token::Kind::Name && p.at_punct("=", 1)) {
        a.assigned = p.next().text;
        p.next();
      }
      a.call = p.expression();
      if (a.call.kind == FxExpr::Kind::Call)
        prog.load_args.push_back(std::move(a));
    }
    break;
  }
  return prog;
}

} // namespace osched
