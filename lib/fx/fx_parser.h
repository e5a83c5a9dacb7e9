#pragma once
// Expressions of the Python subset FX prints, by recursive descent over
// the lexer's tokens with Python's precedence; syntax errors name the line
// and column. Internal to lib/fx.

#include <deque>
#include <string>
#include <string_view>

#include "fx/fx_lexer.h"
#include "fx/fx_text.h"

namespace osched::fx_syntax {

// Deeper nesting is hostile input, not FX code (FX nests lists a few deep).
constexpr int kMaxExprDepth = 64;

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

} // namespace osched::fx_syntax
