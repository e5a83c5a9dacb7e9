#include "fx/fx_text.h"

#include <cctype>
#include <cstdlib>
#include <deque>
#include <limits>
#include <map>
#include <optional>
#include <string_view>

#include "fx/fx_logical_lines.h"
#include "fx/fx_parser.h"
#include "text/escape.h"

namespace osched {
namespace {

using namespace fx_syntax;

bool starts_with(std::string_view s, std::string_view p) {
  return s.substr(0, p.size()) == p;
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
