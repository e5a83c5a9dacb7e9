#include "fx/fx_import.h"
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

namespace osched {
namespace {

constexpr size_t kUnknownNamesShown = 5;

std::string file_stem(const std::string& file) {
  std::string base = file.substr(file.find_last_of('/') + 1);
  if (base.empty() || base == "-" || base == "<stdin>")
    return "fx-graph";
  size_t dot = base.rfind('.');
  return dot == std::string::npos || dot == 0 ? base : base.substr(0, dot);
}

// `torch.ops.aten.mm.default` -> `aten.mm.default`; an overload packet
// (`torch.ops.aten.mm`) gets `.default`, as torch resolves it.
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

class Importer {
public:
  // `line_offset` and `col_offset` place the text inside a larger file (a
  // TORCH_TRACE record's payload, one tab in) for error messages.
  Importer(const std::string& file, const FxImportOptions& opts, int line_offset = 0,
           int col_offset = 0)
      : file_(file), opts_(opts), line_offset_(line_offset), col_offset_(col_offset) {
    hints_ = opts.hints;
  }

  FxImportResult run(const std::string& text) {
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
        fail(0, "get_pg_config(): group '" + escape_quoted(name) + "' has size " +
                    std::to_string(size));
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

private:
  [[noreturn]] void fail(int line, const std::string& msg, int col = 0) const {
    std::string where = file_;
    if (line > 0)
      where += ":" + std::to_string(line + line_offset_);
    if (line > 0 && col > 0)
      where += ":" + std::to_string(col + col_offset_);
    throw FxImportError(where + ": " + msg);
  }

  // --- load_args --------------------------------------------------------
  struct LoadedStorage {
    std::string device = "cpu";
    int users = 0;
  };

  Dim load_dim(const FxExpr& e, int line) {
    if (e.kind == FxExpr::Kind::Int)
      return Dim::of(e.i);
    if (e.kind == FxExpr::Kind::Float || e.kind == FxExpr::Kind::String ||
        e.kind == FxExpr::Kind::List)
      fail(line, "load_args: a dim must be an integer or a symbolic expression");
    return fx_dim(fx_expr_text(e), hints_, line);
  }

  std::vector<Dim> load_dims(const FxExpr& e, int line) {
    std::vector<Dim> out;
    if (e.kind != FxExpr::Kind::List)
      fail(line, "load_args: expected a tuple of sizes");
    for (const auto& item : e.items)
      out.push_back(load_dim(item, line));
    return out;
  }

  static const FxExpr* call_arg(const FxExpr& call, size_t pos, std::string_view kw) {
    if (pos < call.items.size())
      return &call.items[pos];
    for (const auto& [k, v] : call.kwargs)
      if (k == kw)
        return &v;
    return nullptr;
  }

  void read_load_args(const FxProgram& prog) {
    std::map<std::string, LoadedStorage> storages;
    std::vector<std::string> order; // placeholder names in load order ("" = by position)
    std::vector<std::optional<TensorMeta>> metas;
    std::vector<std::string> storage_of;
    for (const auto& a : prog.load_args) {
      const FxExpr& c = a.call;
      if (c.text == "reader.storage") {
        LoadedStorage s;
        if (const FxExpr* d = call_arg(c, 99, "device"))
          s.device = device_text(*d, a.line);
        if (!a.assigned.empty())
          storages[a.assigned] = s;
      } else if (c.text == "reader.tensor") {
        if (c.items.size() < 2 || c.items[0].kind != FxExpr::Kind::Name)
          fail(a.line, "load_args: reader.tensor needs a storage and a size tuple");
        auto it = storages.find(c.items[0].text);
        if (it == storages.end())
          fail(a.line, "load_args: unknown storage '" + escape_quoted(c.items[0].text) + "'");
        ++it->second.users;
        TensorMeta m;
        m.shape = load_dims(c.items[1], a.line);
        if (const FxExpr* st = call_arg(c, 2, "stride"); st && st->kind == FxExpr::Kind::List)
          m.stride = load_dims(*st, a.line);
        else
          m.stride = contiguous_strides(m.shape);
        if (m.stride.size() != m.shape.size())
          fail(a.line, "load_args: stride and size differ in length");
        m.dtype = DType::Float32;
        if (const FxExpr* d = call_arg(c, 99, "dtype")) {
          auto dt = parse_fx_dtype_name(fx_dotted_path(*d));
          if (!dt)
            fail(a.line, "load_args: unknown dtype '" + escape_excerpt(fx_expr_text(*d)) + "'");
          m.dtype = *dt;
        }
        if (const FxExpr* off = call_arg(c, 99, "storage_offset");
            off && off->kind == FxExpr::Kind::Int && off->i != 0) {
          if (off->i < 0)
            fail(a.line, "load_args: negative storage_offset " + std::to_string(off->i));
          m.storage_offset = off->i;
        }
        m.device = it->second.device;
        order.push_back(a.comment);
        metas.push_back(std::move(m));
        storage_of.push_back(c.items[0].text);
      } else if (c.text == "reader.symint") {
        // A SymInt input: `reader.symint(512)` gives its value,
        // `reader.symint(None)` (unbacked) none.
        order.push_back(a.comment);
        metas.emplace_back();
        storage_of.emplace_back();
        symint_inputs_.insert(a.comment);
        if (!c.items.empty() && c.items[0].kind == FxExpr::Kind::Int && !a.comment.empty())
          hints_.emplace(a.comment, c.items[0].i);
      }
    }
    // Names from the trailing comments when they name parameters, else by
    // position.
    std::set<std::string> params;
    for (const auto& p : prog.params)
      params.insert(p.name);
    for (size_t k = 0; k < order.size(); ++k) {
      std::string name = order[k];
      if (!params.count(name))
        name = k < prog.params.size() ? prog.params[k].name : "";
      if (!metas[k] || name.empty())
        continue;
      // Storages shared by several inputs alias: they get one storage id.
      if (storages[storage_of[k]].users > 1)
        metas[k]->storage = storage_of[k];
      loaded_.emplace(name, std::move(*metas[k]));
    }
  }

  // --- values -----------------------------------------------------------
  std::string device_text(const FxExpr& e, int line) const {
    if (e.kind == FxExpr::Kind::String)
      return e.text;
    if (e.kind == FxExpr::Kind::Call && (e.text == "device" || e.text == "torch.device")) {
      std::string type;
      std::optional<int64_t> index;
      for (size_t i = 0; i < e.items.size(); ++i) {
        if (e.items[i].kind == FxExpr::Kind::String && i == 0)
          type = e.items[i].text;
        else if (e.items[i].kind == FxExpr::Kind::Int && i == 1)
          index = e.items[i].i;
      }
      for (const auto& [k, v] : e.kwargs) {
        if (k == "type" && v.kind == FxExpr::Kind::String)
          type = v.text;
        else if (k == "index" && v.kind == FxExpr::Kind::Int)
          index = v.i;
      }
      if (type.empty())
        fail(line, "device(...) without a type");
      if (index && type.find(':') == std::string::npos)
        type += ":" + std::to_string(*index);
      return type;
    }
    fail(line, "expected a device, found '" + escape_quoted(fx_expr_text(e)) + "'");
  }

  // `depth`: lists around this value inside the argument. The graph format
  // holds an argument's lists at JSON level 5 and deeper, within the
  // 64-level limit every reader keeps (text/json_limits.h).
  // A node reference, itself a JSON object, sits one level below its list.
  static constexpr int kMaxArgumentNesting = kMaxJsonDepth - 6;

  Value to_value(const FxExpr& e, int line, int depth = 0) {
    if (depth > kMaxArgumentNesting)
      fail(line, "argument nested deeper than " + std::to_string(kMaxArgumentNesting) +
                     " lists (a dict counts two)");
    switch (e.kind) {
    case FxExpr::Kind::Int:
      return Value::integer(e.i);
    case FxExpr::Kind::Float:
      if (!e.text.empty()) // an imaginary literal: the format has no complex numbers
        return Value::string(e.text);
      if (!std::isfinite(e.f)) // a literal past double's range, not a printed inf
        fail(line, "number out of range");
      return Value::real(e.f);
    case FxExpr::Kind::String:
      return Value::string(e.text);
    case FxExpr::Kind::Name:
      return name_value(e.text, line);
    case FxExpr::Kind::Attr: {
      if (auto dt = parse_fx_dtype_name(e.text); dt && e.text.compare(0, 6, "torch.") == 0)
        return Value::string(std::string(dtype_name(*dt)));
      if (e.text.compare(0, 5, "self.") == 0)
        fail(line, "module attribute '" + escape_quoted(e.text) + "' used as an argument");
      return Value::string(e.text); // torch.strided, torch.contiguous_format, ...
    }
    case FxExpr::Kind::Call:
      if (e.text == "device" || e.text == "torch.device")
        return Value::string(device_text(e, line));
      // An index of a Python-level getitem: kept as Python writes it.
      if (e.text == "slice" && e.items.size() <= 3 && e.kwargs.empty())
        return Value::string(fx_expr_text(e));
      // float('inf'), float('-inf'), float('nan'): as Python writes them.
      if (e.text == "float" && e.items.size() == 1 && e.items[0].kind == FxExpr::Kind::String)
        if (std::optional<double> d = parse_nonfinite(e.items[0].text))
          return Value::real(*d);
      fail(line, "nested call '" + escape_quoted(e.text) + "' in an argument");
    case FxExpr::Kind::List: {
      Value v;
      v.kind = Value::Kind::List;
      v.edit_items().reserve(e.items.size());
      for (const auto& item : e.items)
        v.edit_items().push_back(to_value(item, line, depth + 1));
      return v;
    }
    case FxExpr::Kind::Dict: {
      // A dict argument (flex_attention's kernel options, a triton
      // wrapper's kwargs) becomes a list of [key, value] pairs: the graph
      // format has no dicts, and node references inside stay edges.
      Value v;
      v.kind = Value::Kind::List;
      for (size_t i = 0; i + 1 < e.items.size(); i += 2) {
        Value pair;
        pair.kind = Value::Kind::List;
        pair.edit_items().push_back(to_value(e.items[i], line, depth + 2));
        pair.edit_items().push_back(to_value(e.items[i + 1], line, depth + 2));
        v.edit_items().push_back(std::move(pair));
      }
      return v;
    }
    case FxExpr::Kind::Invert:
      fail(line, "'~' inside an argument");
    case FxExpr::Kind::Neg:
      // -inf as PyTorch prints it.
      if (e.items.size() == 1 && e.items[0].kind == FxExpr::Kind::Name &&
          e.items[0].text == "inf" && !names_.count("inf"))
        return Value::real(-std::numeric_limits<double>::infinity());
      [[fallthrough]];
    case FxExpr::Kind::BinOp: {
      // A complex number ((1+2j), -1.5j): Python's text of it, as printed.
      if (is_complex_literal(e))
        return Value::string(e.kind == FxExpr::Kind::BinOp ? "(" + complex_text(e) + ")"
                                                           : complex_text(e));
      std::string why;
      if (auto k = eval_fx_dim(e, {}, &why))
        return Value::integer(*k);
      if (why == "a name without a value")
        fail(line, "arithmetic on names inside an argument");
      fail(line, "arithmetic inside an argument: " + why);
    }
    case FxExpr::Kind::Subscript:
      fail(line, "subscript inside an argument");
    }
    fail(line, "unsupported argument");
  }

  // Numbers joined by + and -, one of them imaginary.
  static bool is_complex_literal(const FxExpr& e) {
    bool imaginary = false;
    std::function<bool(const FxExpr&)> numeric = [&](const FxExpr& x) {
      if (x.kind == FxExpr::Kind::Int)
        return true;
      if (x.kind == FxExpr::Kind::Float) {
        imaginary |= !x.text.empty();
        return true;
      }
      if (x.kind == FxExpr::Kind::Neg)
        return x.items.size() == 1 && numeric(x.items[0]);
      if (x.kind == FxExpr::Kind::BinOp && (x.text == "+" || x.text == "-"))
        return x.items.size() == 2 && numeric(x.items[0]) && numeric(x.items[1]);
      return false;
    };
    return numeric(e) && imaginary;
  }

  // Python's text of such a number: (1+2j), -1.5j.
  static std::string complex_text(const FxExpr& e) {
    switch (e.kind) {
    case FxExpr::Kind::Int:
      return std::to_string(e.i);
    case FxExpr::Kind::Float: {
      if (!e.text.empty())
        return e.text;
      char buf[32];
      const auto r = std::to_chars(buf, buf + sizeof buf, e.f);
      return std::string(buf, r.ptr);
    }
    case FxExpr::Kind::Neg:
      return "-" + complex_text(e.items[0]);
    default:
      return complex_text(e.items[0]) + e.text + complex_text(e.items[1]);
    }
  }

  Value name_value(const std::string& name, int line) {
    if (name == "None")
      return Value::null();
    if (name == "Ellipsis" && !names_.count(name))
      return Value::string(name);
    if (name == "True" || name == "False")
      return Value::boolean(name == "True");
    auto it = names_.find(name);
    if (it == names_.end() && (name == "inf" || name == "nan")) // printed floats, not nodes
      return Value::real(*parse_nonfinite(name));
    if (it == names_.end())
      fail(line, "unknown name '" + escape_quoted(name) + "'");
    return it->second;
  }

  // --- nodes ------------------------------------------------------------
  NodeId push(Node n, int line) {
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
  bool set_val_from_annotation(Node& n, const std::string& ann, int line) {
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

  void add_placeholder(const FxParam& p) {
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

  void add_statement(const FxStatement& st) {
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

  void add_output(const FxProgram& prog) {
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
  void fill_multi_output_vals() {
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

  void count_unknown() {
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

  // --- process groups -----------------------------------------------------
  void assign_groups() {
    struct GroupUse {
      std::optional<int64_t> size;
      int line = 0;
      std::string node;
    };
    std::map<std::string, GroupUse> uses;
    for (size_t i = 0; i < g_.nodes.size(); ++i) {
      const Node& n = g_.nodes[i];
      auto sig = collective_signature(n.target);
      if (!sig || sig->group_name_pos < 0)
        continue;
      auto name = collective_group_name(n);
      if (!name)
        fail(lines_[i], "node '" + escape_quoted(n.name) + "': collective without a group_name");
      GroupUse& u = uses[*name];
      if (u.node.empty()) {
        u.node = n.name;
        u.line = lines_[i];
      }
      std::optional<int64_t> size = collective_group_size_arg(n);
      // all_to_all_single names no size, but its split lists have one entry per rank.
      if (!size && sig->kind == CollectiveKind::AllToAll && n.args.size() > 1 &&
          n.args[1].kind == Value::Kind::List && !n.args[1].items().empty())
        size = static_cast<int64_t>(n.args[1].items().size());
      if (auto pg = pg_sizes_.find(*name); pg != pg_sizes_.end()) {
        if (size && *size != pg->second)
          fail(lines_[i], "node '" + escape_quoted(n.name) + "': group '" + escape_quoted(*name) +
                              "' has size " + std::to_string(*size) + " here but " +
                              std::to_string(pg->second) + " in get_pg_config()");
        size = pg->second;
      }
      if (auto s = size) {
        if (u.size && *u.size != *s)
          fail(lines_[i], "node '" + escape_quoted(n.name) + "': group '" + escape_quoted(*name) +
                              "' has size " + std::to_string(*s) + " here and " +
                              std::to_string(*u.size) + " at node '" + escape_quoted(u.node) + "'");
        u.size = *s;
      }
    }
    int64_t world = 1;
    for (const auto& [name, ranks] : opts_.groups)
      for (int64_t r : ranks)
        world = std::max(world, r + 1);
    for (const auto& [name, u] : uses)
      if (u.size)
        world = std::max(world, *u.size);
    if (opts_.world_size)
      world = *opts_.world_size;
    g_.world_size = world;
    for (const auto& [name, u] : uses) {
      std::vector<int64_t> ranks;
      auto given = opts_.groups.find(name);
      if (given != opts_.groups.end()) {
        ranks = given->second;
        if (u.size && static_cast<int64_t>(ranks.size()) != *u.size)
          fail(u.line, "node '" + escape_quoted(u.node) + "': group '" + escape_quoted(name) +
                           "' has group_size " + std::to_string(*u.size) + " but --group gives " +
                           std::to_string(ranks.size()) + " ranks");
      } else {
        int64_t size = u.size.value_or(0);
        if (!u.size) {
          if (!opts_.world_size)
            fail(u.line, "node '" + escape_quoted(u.node) + "': group '" + escape_quoted(name) +
                             "' states no group_size; pass --group " + name +
                             "=RANKS or --world-size");
          size = world;
        }
        if (size <= 0 || size > kMaxWorldSize)
          fail(u.line, "node '" + escape_quoted(u.node) + "': group size " + std::to_string(size) +
                           " out of range");
        int64_t base = size >= world ? 0 : (opts_.rank / size) * size;
        for (int64_t r = 0; r < size; ++r)
          ranks.push_back(base + r);
        if (size < world) // a whole-world group needs no assumption
          result_.assumed_groups.push_back(name);
      }
      g_.process_groups[name].ranks = std::move(ranks);
    }
    for (const auto& [name, ranks] : opts_.groups)
      if (!uses.count(name))
        g_.process_groups[name].ranks = ranks;
  }

  // What the graph readers reject and validation does not re-check: a
  // negative size or stride (printed, loaded, or computed from hints).
  void check_dims() const {
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

  void finish() {
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

  const std::string& file_;
  const FxImportOptions& opts_;
  int line_offset_;
  int col_offset_;
  FxSymbolHints hints_;
  std::map<std::string, TensorMeta> loaded_;
  std::set<std::string> symint_inputs_; // placeholders load_args reads with reader.symint
  std::unordered_map<std::string, Value> names_;
  std::vector<int> lines_;
  FxScalars scalars_;                       // by node id
  std::map<std::string, int64_t> pg_sizes_; // get_pg_config()
  Graph g_;
  FxImportResult result_;
};

} // namespace

std::vector<int64_t> parse_rank_list(const std::string& text) {
  std::vector<int64_t> out;
  size_t pos = 0;
  auto number = [&](size_t& p) {
    size_t b = p;
    while (p < text.size() && std::isdigit(static_cast<unsigned char>(text[p])))
      ++p;
    if (p == b || p - b > 7)
      throw ValueError("'" + text + "' is not a rank list such as 0-7 or 0,2,4");
    return std::stoll(text.substr(b, p - b));
  };
  while (pos < text.size()) {
    int64_t a = number(pos);
    int64_t b = a;
    if (pos < text.size() && text[pos] == '-') {
      ++pos;
      b = number(pos);
    }
    if (b < a || b >= kMaxWorldSize)
      throw ValueError("'" + text + "': bad rank range");
    for (int64_t r = a; r <= b; ++r)
      out.push_back(r);
    if (pos < text.size()) {
      if (text[pos] != ',')
        throw ValueError("'" + text + "' is not a rank list such as 0-7 or 0,2,4");
      ++pos;
    }
  }
  if (out.empty())
    throw ValueError("empty rank list");
  std::vector<int64_t> sorted = out;
  std::sort(sorted.begin(), sorted.end());
  if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
    throw ValueError("'" + text + "' names a rank twice");
  return out;
}

FxImportResult import_fx_text(const std::string& text, const std::string& file,
                              const FxImportOptions& opts) {
  if (!looks_like_torch_trace(text))
    return Importer(file, opts).run(text);
  // A TORCH_TRACE log: one of its graph records, by default the largest.
  std::vector<FxTraceGraph> graphs = read_torch_trace_graphs(text);
  if (graphs.empty())
    throw FxImportError(file + ": a TORCH_TRACE log without a post-grad or AOT graph record");
  if (opts.graph_index >= static_cast<int>(graphs.size()))
    throw FxImportError(file + ": --graph " + std::to_string(opts.graph_index) +
                        ": the log has only " + std::to_string(graphs.size()) + " graph(s)");
  size_t pick = 0;
  if (opts.graph_index >= 0)
    pick = static_cast<size_t>(opts.graph_index);
  else
    for (size_t k = 1; k < graphs.size(); ++k)
      if (graphs[k].payload.size() > graphs[pick].payload.size())
        pick = k;
  FxImportOptions inner = opts;
  inner.graph_index = -1;
  const FxTraceGraph& g = graphs[pick];
  // Payload line k is log line g.line + k, one tab in.
  FxImportResult r = Importer(file, inner, g.line, 1).run(g.payload);
  r.graph_index = static_cast<int>(pick);
  r.graph_count = static_cast<int>(graphs.size());
  r.trace_compile_id = g.compile_id;
  for (const auto& t : graphs)
    r.trace_graphs.push_back("[" + t.compile_id + "] " + t.event + ", line " +
                             std::to_string(t.line));
  if (opts.name.empty()) {
    std::string id = g.compile_id;
    std::replace(id.begin(), id.end(), '/', '_');
    r.graph.name = file_stem(file) + "_" + id;
  }
  return r;
}

} // namespace osched
