#include "io/fx_text.h"
#include "io/escape.h"

#include <cctype>
#include <cstdlib>
#include <deque>
#include <limits>
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
bool all_digits(std::string_view s) {
  if (s.empty())
    return false;
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c)))
      return false;
  return true;
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
  if (s.size() > 5 && s.substr(0, 5) == "[rank") {
    size_t close = s.find("]:");
    if (close != std::string_view::npos && all_digits(s.substr(5, close - 5)))
      s.remove_prefix(close + 2);
  }
  // glog header: a level letter, MMDD, a time, a thread id.
  if (s.size() > 6 && std::string_view("VIWEDC").find(s[0]) != std::string_view::npos &&
      all_digits(s.substr(1, 4)) && s[5] == ' ') {
    size_t p = 6;
    while (p < s.size() && s[p] != ' ')
      ++p; // time
    while (p < s.size() && s[p] == ' ')
      ++p;
    while (p < s.size() && std::isdigit(static_cast<unsigned char>(s[p])))
      ++p; // thread id
    if (p < s.size() && s[p] == ' ')
      s.remove_prefix(p + 1);
  }
  // `some/file.py:910] `: a path without spaces, a line number, a bracket.
  size_t end = s.find("] ");
  if (end != std::string_view::npos && end < 512) {
    std::string_view head = s.substr(0, end);
    size_t colon = head.rfind(':');
    if (colon != std::string_view::npos && head.find(' ') == std::string_view::npos &&
        all_digits(head.substr(colon + 1)) && colon >= 3 && head.substr(colon - 3, 3) == ".py")
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
};

class Lexer {
public:
  Lexer(std::string_view s, int line) : s_(s), line_(line) {}

  // The next token, or End (again and again) past the text. The parser
  // pulls tokens as it goes, so a long line is never held as tokens.
  Token next() {
    {
      skip_space();
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
        static constexpr std::string_view kTwo[] = {"//", "**", "->", "==", "!=", "<=", ">="};
        Token t;
        t.kind = Token::Kind::Punct;
        for (auto two : kTwo)
          if (s_.substr(p_, 2) == two)
            t.text = std::string(two);
        if (t.text.empty()) {
          if (std::string_view("()[]{},:;=.+-*/%<>@").find(c) == std::string_view::npos)
            throw FxSyntaxError(line_, "unexpected character '" + std::string(1, c) + "'");
          t.text = std::string(1, c);
        }
        p_ += t.text.size();
        return t;
      }
    }
  }

private:
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
        throw FxSyntaxError(line_, "unterminated string");
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
      throw FxSyntaxError(line_, "string literal is not valid UTF-8");
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
  size_t p_ = 0;
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
  [[noreturn]] void fail(const std::string& m) const { throw FxSyntaxError(line_, m); }
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
  // once more, and every later walk over it recurses.
  FxExpr expression(int depth = 0) {
    check_depth(depth);
    FxExpr lhs = term(depth);
    while (at_punct("+") || at_punct("-")) {
      check_depth(++depth);
      std::string op = next().text;
      lhs = binop(op, std::move(lhs), term(depth));
    }
    return lhs;
  }

private:
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
  FxExpr term(int depth) {
    FxExpr lhs = unary(depth);
    while (at_punct("*") || at_punct("//") || at_punct("/") || at_punct("%")) {
      check_depth(++depth);
      std::string op = next().text;
      lhs = binop(op, std::move(lhs), unary(depth));
    }
    return lhs;
  }
  FxExpr unary(int depth) {
    check_depth(depth);
    if (at_punct("-")) {
      next();
      if (peek().kind == Token::Kind::Int) {
        Token t = next();
        FxExpr e;
        e.kind = FxExpr::Kind::Int;
        e.i = t.int_min ? t.i : -t.i;
        return postfix(std::move(e), depth);
      }
      FxExpr inner = unary(depth + 1);
      if (inner.kind == FxExpr::Kind::Float) {
        inner.f = -inner.f;
        return inner;
      }
      FxExpr e;
      e.kind = FxExpr::Kind::Neg;
      e.items.push_back(std::move(inner));
      return e;
    }
    if (at_punct("+")) {
      next();
      return unary(depth + 1);
    }
    if (peek().kind == Token::Kind::Int && peek().int_min)
      fail("integer literal out of range");
    return postfix(atom(depth), depth);
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
        next();
        FxExpr call;
        call.kind = FxExpr::Kind::Call;
        call.text = fx_dotted_path(e);
        if (call.text.empty())
          fail("only named functions can be called");
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
      if (t.text == "(" || t.text == "[") {
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
      fail("unexpected '" + t.text + "'");
    case Token::Kind::End:
      fail("expression expected at end of line");
    }
    fail("unexpected token");
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

// The text before the first `;` outside strings and brackets.
std::string first_statement(const std::string& s) {
  char quote = 0;
  int depth = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (quote) {
      if (c == '\\')
        ++i;
      else if (c == quote)
        quote = 0;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '(' || c == '[') {
      ++depth;
    } else if (c == ')' || c == ']') {
      --depth;
    } else if (c == ';' && depth == 0) {
      return fx_trim(std::string_view(s).substr(0, i));
    }
  }
  return s;
}

std::vector<FxParam> parse_params(const LogicalLine& l) {
  Parser p(Lexer(l.text, l.line), l.line);
  p.next(); // def
  p.next(); // forward
  p.expect("(");
  std::vector<FxParam> params;
  while (!p.at_punct(")")) {
    if (p.at_punct("*") || p.at_punct("**"))
      p.next();
    Token name = p.next();
    if (name.kind != Token::Kind::Name)
      p.fail("parameter name expected");
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

FxStatement parse_statement(const LogicalLine& l, const std::string& code, bool& skip) {
  Parser p(Lexer(code, l.line), l.line);
  FxStatement st;
  st.line = l.line;
  skip = false;
  Token name = p.next();
  if (name.kind != Token::Kind::Name)
    p.fail("statement must assign a name");
  st.name = name.text;
  if (p.at_punct(":")) {
    p.next();
    if (p.peek().kind == Token::Kind::String)
      st.annotation = p.next().text;
    else
      p.expression();
  }
  p.expect("=");
  // `a = b = None`: the names FX releases, not a node.
  if (p.peek().kind == Token::Kind::Name && p.at_punct("=", 1)) {
    skip = true;
    return st;
  }
  st.value = p.expression();
  if (!p.at_end())
    p.fail("unexpected text after the expression" + p.found());
  if (st.value.kind == FxExpr::Kind::Name && st.value.text == "None")
    skip = true;
  return st;
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
  case FxExpr::Kind::Neg:
    return "-" + fx_expr_text(e.items[0]);
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

// get_colls_estimations_file() returns a string; get_colls_group_mapping()
// a dict of strings to strings.
static void read_colls_functions(const std::vector<LogicalLine>& lines, FxProgram& prog) {
  if (const LogicalLine* l = returned_by(lines, "get_colls_estimations_file")) {
    const FxExpr e = parse_fx_expression(fx_trim(l->text.substr(7)), l->line);
    if (e.kind != FxExpr::Kind::String || e.text.empty())
      throw FxSyntaxError(l->line, "get_colls_estimations_file() must return a file name");
    prog.colls_table_file = e.text;
  }
  if (const LogicalLine* l = returned_by(lines, "get_colls_group_mapping")) {
    const std::string code = fx_trim(l->text.substr(7));
    Parser p(Lexer(code, l->line), l->line);
    p.expect("{");
    while (!p.at_punct("}")) {
      const Token key = p.next();
      p.expect(":");
      const Token value = p.next();
      if (key.kind != Token::Kind::String || value.kind != Token::Kind::String)
        p.fail("get_colls_group_mapping() must return a dict of group names");
      prog.colls_group_mapping.emplace_back(key.text, value.text);
      if (!p.at_punct(","))
        break;
      p.next();
    }
    p.expect("}");
    if (!p.at_end())
      p.fail("unexpected text after the mapping" + p.found());
  }
}

FxProgram parse_fx_text(const std::string& text, int graph_index) {
  std::vector<LogicalLine> lines = logical_lines(text);
  FxProgram prog;
  int seen = 0;
  size_t i = 0;
  // The requested forward.
  for (; i < lines.size(); ++i) {
    if (starts_with(lines[i].text, "def forward(") && seen++ == graph_index)
      break;
  }
  if (i == lines.size()) {
    if (seen == 0)
      throw FxSyntaxError(0, "no 'def forward(' found: not an FX graph dump");
    throw FxSyntaxError(0, "--graph " + std::to_string(graph_index) + ": the file has only " +
                               std::to_string(seen) + " forward graph(s)");
  }
  const LogicalLine& def = lines[i];
  prog.forward_line = def.line;
  prog.params = parse_params(def);
  for (++i; i < lines.size() && lines[i].indent > def.indent; ++i) {
    const LogicalLine& l = lines[i];
    if (prog.has_return)
      break; // code after return belongs to nothing we read
    std::string code = first_statement(l.text);
    if (code.empty())
      continue;
    if (starts_with(code, "return ") || code == "return") {
      prog.has_return = true;
      prog.return_line = l.line;
      std::string rest = fx_trim(std::string_view(code).substr(6));
      if (rest.empty()) {
        prog.returned.kind = FxExpr::Kind::List;
        prog.returned.tuple = true;
      } else {
        prog.returned = parse_fx_expression(rest, l.line);
      }
      continue;
    }
    bool skip = false;
    FxStatement st = parse_statement(l, code, skip);
    if (!skip)
      prog.body.push_back(std::move(st));
  }
  if (!prog.has_return)
    throw FxSyntaxError(def.line, "forward has no return statement");
  read_colls_functions(lines, prog);
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
      std::string code = first_statement(l.text);
      Parser p(Lexer(code, l.line), l.line);
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
