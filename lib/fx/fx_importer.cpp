// The importer's run: the program parsed, its placeholders, statements and
// output as nodes, and the graph's last checks.
#include "fx/fx_importer.h"
#include "graph/nonfinite.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <set>
#include <unordered_map>

#include "errors/error.h"
#include "fx/fx_shape_infer.h"
#include "fx/fx_text.h"
#include "fx/fx_trace_log.h"
#include "ops/collective.h"
#include "ops/op_table.h"
#include "text/escape.h"
#include "text/json_limits.h"
#include "validate/graph_error.h"
#include "validate/validate.h"

namespace osched::fx_importer {

std::string file_stem(const std::string& file) {
  std::string base = file.substr(file.find_last_of('/') + 1);
  if (base.empty() || base == "-" || base == "<stdin>")
    return "fx-graph";
  size_t dot = base.rfind('.');
  return dot == std::string::npos || dot == 0 ? base : base.substr(0, dot);
}

std::string call_target(const std::string& path) {
  static const std::string kOps = "torch.ops.";
  if (path.compare(0, kOps.size(), kOps) != 0)
    return path;
  std::string t = path.substr(kOps.size());
  size_t dots = static_cast<size_t>(std::count(t.begin(), t.end(), '.'));
  if (dots == 1 && t.compare(0, 13, "higher_order.") != 0)
    t += ".default";
  return t;
}

FxImportResult Importer::run(const std::string& text) {
  // Names and strings become JSON text, which must be UTF-8.
  if (size_t bad = invalid_utf8_offset(text); bad != std::string_view::npos) {
    int line = 1 + static_cast<int>(std::count(text.begin(), text.begin() + bad, '\n'));
    char byte[8];
    std::snprintf(byte, sizeof byte, "0x%02X", static_cast<unsigned char>(text[bad]));
    fail(line, std::string("not UTF-8 text (byte ") + byte + ")");
  }
  FxProgram prog;
  try {
    prog = parse_fx_text(text, opts_.graph_index);
  } catch (const FxSyntaxError& e) {
    fail(e.line, e.what(), e.col);
  }
  result_.graph_index = prog.graph_index;
  result_.graph_count = prog.graph_count;
  result_.graph_class = prog.graph_class;
  for (const auto& [name, size] : prog.pg_sizes) {
    if (size <= 0 || size > kMaxWorldSize)
      fail(0,
           "get_pg_config(): group '" + escape_quoted(name) + "' has size " + std::to_string(size));
    pg_sizes_[name] = size;
  }
  read_load_args(prog);
  // The repro's measured collective table, for schedule to find beside
  // the graph (graph-format.md's `collective_table`).
  if (!prog.colls_table_file.empty()) {
    nlohmann::json t = {{"file", prog.colls_table_file}};
    if (!prog.colls_group_mapping.empty()) {
      nlohmann::json m = nlohmann::json::object();
      for (const auto& [from, to] : prog.colls_group_mapping)
        m[from] = to;
      t["group_mapping"] = m;
    }
    g_.extra["collective_table"] = t;
  }
  for (const auto& p : prog.params)
    add_placeholder(p);
  for (const auto& st : prog.body)
    add_statement(st);
  add_output(prog);
  fill_multi_output_vals();
  count_unknown();
  assign_groups();
  finish();
  return std::move(result_);
}

void Importer::fail(int line, const std::string& msg, int col) const {
  std::string where = file_;
  if (line > 0)
    where += ":" + std::to_string(line + line_offset_);
  if (line > 0 && col > 0)
    where += ":" + std::to_string(col + col_offset_);
  throw input_error(where + ": " + msg);
}

NodeId Importer::push(Node n, int line) {
  if (names_.count(n.name))
    fail(line, "name '" + escape_quoted(n.name) + "' defined twice");
  if (g_.nodes.size() >= kMaxNodes)
    fail(line, "more than " + std::to_string(kMaxNodes) + " nodes");
  NodeId id = static_cast<NodeId>(g_.nodes.size());
  names_.emplace(n.name, Value::node_ref(id));
  lines_.push_back(line);
  g_.nodes.push_back(std::move(n));
  return id;
}

// Returns whether the annotation is a SymInt's (`Sym(...)`): no tensor.
bool Importer::set_val_from_annotation(Node& n, const std::string& ann, int line) {
  FxAnnotation a;
  try {
    a = parse_fx_annotation(ann, hints_, line, opts_.default_device);
  } catch (const FxSyntaxError& e) {
    fail(e.line, "node '" + escape_quoted(n.name) + "': " + e.what());
  }
  if (a.is_symint) {
    // `x: "Sym(s0)"`: sizes that name x take s0's hint.
    std::string inner = ann.substr(ann.find('(') + 1);
    if (!inner.empty() && inner.back() == ')')
      inner.pop_back();
    try {
      if (auto v = eval_fx_dim(parse_fx_expression(inner, line), hints_))
        hints_.emplace(n.name, *v);
    } catch (const FxSyntaxError&) {
      // Sym(Eq(s0, 1)) and other predicates: not a size.
    }
  }
  if (a.tensor) {
    n.val_kind = ValKind::Single;
    n.val.push_back(std::move(a.tensor));
  }
  return a.is_symint;
}

void Importer::add_placeholder(const FxParam& p) {
  Node n;
  n.name = p.name;
  n.op = NodeOp::Placeholder;
  n.target = p.name;
  bool symint = false;
  if (!p.annotation.empty()) {
    symint = set_val_from_annotation(n, p.annotation, p.line);
  } else {
    auto it = loaded_.find(p.name);
    symint = hints_.count(p.name) > 0 || symint_inputs_.count(p.name) > 0;
    if (it != loaded_.end()) {
      n.val_kind = ValKind::Single;
      n.val.push_back(it->second);
    }
  }
  FxScalar scalar;
  if (symint) {
    // A SymInt input: sizes that use it are the symbol it names.
    scalar.scalar = true;
    const Dim d = named_symbol(p.name, hints_);
    scalar.value = d;
    if (!d.has_hint)
      result_.unhinted_symbols.push_back(p.name);
  }
  scalars_.push_back(std::move(scalar));
  push(std::move(n), p.line);
}

void Importer::add_statement(const FxStatement& st) {
  const FxExpr& e = st.value;
  // `l_x_ = L_x_`: another name for a node.
  if (e.kind == FxExpr::Kind::Name) {
    Value v = name_value(e.text, st.line);
    if (!v.is_ref())
      fail(st.line, "'" + escape_quoted(st.name) + "' is assigned a constant, not a node");
    names_[st.name] = v;
    return;
  }
  Node n;
  n.name = st.name;
  n.op = NodeOp::CallFunction;
  switch (e.kind) {
  case FxExpr::Kind::Attr:
    if (e.text.compare(0, 5, "self.") != 0)
      fail(st.line, "'" + escape_quoted(st.name) + "' is assigned '" + escape_quoted(e.text) +
                        "', not a node");
    n.op = NodeOp::GetAttr;
    n.target = e.text.substr(5);
    break;
  case FxExpr::Kind::Call:
    n.target = call_target(e.text);
    if (n.target == "getattr" && e.items.size() == 2 && e.items[0].kind == FxExpr::Kind::Name &&
        e.items[0].text == "self" && e.items[1].kind == FxExpr::Kind::String) {
      n.op = NodeOp::GetAttr;
      n.target = e.items[1].text;
      break;
    }
    for (const auto& a : e.items)
      n.args.push_back(to_value(a, st.line));
    for (const auto& [k, v] : e.kwargs)
      n.edit_attrs().kwargs.emplace_back(k, to_value(v, st.line));
    if (const std::string* repeated = sort_kwargs(n))
      fail(st.line, "keyword '" + escape_quoted(*repeated) + "' given twice");
    break;
  case FxExpr::Kind::Subscript:
    n.target = "getitem";
    n.args.push_back(to_value(e.items[0], st.line));
    n.args.push_back(to_value(e.items[1], st.line));
    break;
  case FxExpr::Kind::BinOp: {
    // FX prints these operator nodes (on SymInts, SymBools or tensors)
    // as Python operators.
    static const std::map<std::string, std::string> kOps = {
        {"+", "operator.add"},       {"-", "operator.sub"},     {"*", "operator.mul"},
        {"//", "operator.floordiv"}, {"/", "operator.truediv"}, {"%", "operator.mod"},
        {"**", "operator.pow"},      {"@", "operator.matmul"},  {"&", "operator.and_"},
        {"|", "operator.or_"},       {"^", "operator.xor"},     {"<<", "operator.lshift"},
        {">>", "operator.rshift"},   {"==", "operator.eq"},     {"!=", "operator.ne"},
        {"<", "operator.lt"},        {"<=", "operator.le"},     {">", "operator.gt"},
        {">=", "operator.ge"}};
    n.target = kOps.at(e.text);
    n.args.push_back(to_value(e.items[0], st.line));
    n.args.push_back(to_value(e.items[1], st.line));
    break;
  }
  case FxExpr::Kind::Neg:
  case FxExpr::Kind::Invert:
    n.target = e.kind == FxExpr::Kind::Neg ? "operator.neg" : "operator.invert";
    n.args.push_back(to_value(e.items[0], st.line));
    break;
  default:
    fail(st.line, "'" + escape_quoted(st.name) + "' is assigned a constant, not a node");
  }
  FxScalar scalar;
  try {
    if (n.op == NodeOp::CallFunction)
      scalar = infer_fx_scalar(g_, n, hints_, scalars_);
    if (!st.annotation.empty()) {
      if (set_val_from_annotation(n, st.annotation, st.line))
        scalar.scalar = true;
    } else if (n.op == NodeOp::CallFunction && !scalar.scalar) {
      if (auto inferred = infer_fx_output(g_, n, hints_, scalars_)) {
        n.val_kind = inferred->kind;
        n.val = std::move(inferred->val);
      }
    }
  } catch (const FxDimOverflow& e) {
    fail(st.line, "'" + escape_quoted(st.name) + "': " + e.what());
  }
  if (scalar.value && scalar.value->is_symbolic() && !scalar.value->has_hint &&
      (n.target == "aten._local_scalar_dense.default" || n.target == "aten.item.default"))
    result_.unhinted_symbols.push_back(n.name);
  scalars_.push_back(std::move(scalar));
  push(std::move(n), st.line);
}

void Importer::add_output(const FxProgram& prog) {
  FxExpr ret = prog.returned;
  // `return pytree.tree_unflatten([a, b], self._out_spec)`
  if (ret.kind == FxExpr::Kind::Call && ret.text.find("tree_unflatten") != std::string::npos &&
      !ret.items.empty()) {
    FxExpr first = ret.items[0]; // a copy: assigning a part of ret to ret frees it first
    ret = std::move(first);
  }
  Node out;
  out.name = "output";
  while (names_.count(out.name))
    out.name += "_1";
  out.op = NodeOp::Output;
  out.target = "output";
  Value v = to_value(ret, prog.return_line);
  if (v.kind != Value::Kind::List) {
    Value l;
    l.kind = Value::Kind::List;
    l.edit_items().push_back(std::move(v));
    v = std::move(l);
  }
  out.args.push_back(std::move(v));
  scalars_.emplace_back();
  push(std::move(out), prog.return_line);
}

// A multi-output node printed without an annotation takes its outputs'
// metadata from the getitems that read them: what PyTorch printed for
// them wins over what the rules inferred.
void Importer::fill_multi_output_vals() {
  for (auto& n : g_.nodes) {
    if (!is_getitem_target(n.target) || n.args.size() < 2 || !n.args[0].is_ref() ||
        n.args[1].kind != Value::Kind::Int || !n.output())
      continue;
    Node& src = g_.nodes[static_cast<size_t>(n.args[0].i)];
    int64_t idx = n.args[1].i;
    if (src.val_kind == ValKind::Single || idx < 0 || idx > 4096)
      continue;
    src.val_kind = ValKind::List;
    if (src.val.size() <= static_cast<size_t>(idx))
      src.val.resize(static_cast<size_t>(idx) + 1);
    src.val[static_cast<size_t>(idx)] = *n.output();
  }
}

void Importer::count_unknown() {
  for (size_t i = 0; i < g_.nodes.size(); ++i) {
    const Node& n = g_.nodes[i];
    if (n.op == NodeOp::Output || n.op == NodeOp::GetAttr || n.val_kind != ValKind::Null ||
        scalars_[i].scalar)
      continue;
    ++result_.unknown_shapes;
    if (result_.unknown_shape_nodes.size() < kUnknownNamesShown)
      result_.unknown_shape_nodes.push_back(n.name);
  }
}

// What the graph readers reject and validation does not re-check: a
// negative size or stride (printed, loaded, or computed from hints).
void Importer::check_dims() const {
  for (size_t i = 0; i < g_.nodes.size(); ++i) {
    const Node& n = g_.nodes[i];
    for (size_t k = 0; k < n.val.size(); ++k) {
      if (!n.val[k])
        continue;
      const TensorMeta& m = *n.val[k];
      for (const auto* dims : {&m.shape, &m.stride})
        for (const Dim& d : *dims)
          if (d.is_known() && d.value < 0)
            fail(lines_[i], "node '" + escape_quoted(n.name) + "': negative " +
                                (dims == &m.shape ? "size " : "stride ") + dim_text(d) + " = " +
                                std::to_string(d.value));
    }
  }
}

void Importer::finish() {
  check_dims();
  g_.name = opts_.name.empty() ? file_stem(file_) : opts_.name;
  g_.rank = opts_.rank;
  g_.hardware = opts_.hardware;
  g_.rebuild_index();
  try {
    validate_graph(g_);
  } catch (const GraphError& e) {
    int line = 0;
    if (auto id = g_.find(e.node()))
      line = lines_[static_cast<size_t>(*id)];
    std::string msg;
    if (!e.node().empty())
      msg += "node '" + escape_quoted(e.node()) + "': ";
    if (!e.field().empty())
      msg += e.field() + ": ";
    fail(line, msg + e.message());
  }
  result_.graph = std::move(g_);
}

} // namespace osched::fx_importer
