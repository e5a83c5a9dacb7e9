// The importer's load_args block (a repro's tensors, storages and SymInt
// inputs) and argument values (literals, devices, dtypes, node references).
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

Dim Importer::load_dim(const FxExpr& e, int line) {
  if (e.kind == FxExpr::Kind::Int)
    return Dim::of(e.i);
  if (e.kind == FxExpr::Kind::Float || e.kind == FxExpr::Kind::String ||
      e.kind == FxExpr::Kind::List)
    fail(line, "load_args: a dim must be an integer or a symbolic expression");
  return fx_dim(fx_expr_text(e), hints_, line);
}

std::vector<Dim> Importer::load_dims(const FxExpr& e, int line) {
  std::vector<Dim> out;
  if (e.kind != FxExpr::Kind::List)
    fail(line, "load_args: expected a tuple of sizes");
  for (const auto& item : e.items)
    out.push_back(load_dim(item, line));
  return out;
}

const FxExpr* Importer::call_arg(const FxExpr& call, size_t pos, std::string_view kw) {
  if (pos < call.items.size())
    return &call.items[pos];
  for (const auto& [k, v] : call.kwargs)
    if (k == kw)
      return &v;
  return nullptr;
}

void Importer::read_load_args(const FxProgram& prog) {
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

std::string Importer::device_text(const FxExpr& e, int line) const {
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

Value Importer::to_value(const FxExpr& e, int line, int depth) {
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
    if (e.items.size() == 1 && e.items[0].kind == FxExpr::Kind::Name && e.items[0].text == "inf" &&
        !names_.count("inf"))
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
bool Importer::is_complex_literal(const FxExpr& e) {
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
std::string Importer::complex_text(const FxExpr& e) {
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

Value Importer::name_value(const std::string& name, int line) {
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

} // namespace osched::fx_importer
