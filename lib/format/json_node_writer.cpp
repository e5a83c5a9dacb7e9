#include "format/json_node_writer.h"

#include <algorithm>
#include <charconv>

#include "format/json_io.h"

namespace osched {
namespace {

void append_value(std::string& out, const Value& v, const Graph& g) {
  switch (v.kind) {
  case Value::Kind::Null:
    out += "null";
    return;
  case Value::Kind::Bool:
    out += v.b ? "true" : "false";
    return;
  case Value::Kind::Int:
    append_json_int(out, v.i);
    return;
  case Value::Kind::Float:
    append_json_double(out, v.f);
    return;
  case Value::Kind::String:
    append_json_string(out, v.str());
    return;
  case Value::Kind::List:
    out += '[';
    for (size_t i = 0; i < v.items().size(); ++i) {
      if (i)
        out += ',';
      append_value(out, v.items()[i], g);
    }
    out += ']';
    return;
  case Value::Kind::NodeRef:
    out += '{';
    if (v.ref_output >= 0) {
      out += "\"index\":";
      append_json_int(out, v.ref_output);
      out += ',';
    }
    out += "\"node\":";
    append_json_string(out, g.nodes[v.i].name);
    out += '}';
    return;
  }
}

void append_dims(std::string& out, const DimVector& dims) {
  out += '[';
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i)
      out += ',';
    const Dim& d = dims[i];
    if (!d.is_symbolic()) {
      append_json_int(out, d.value);
      continue;
    }
    out += '{';
    if (d.has_hint) {
      out += "\"hint\":";
      append_json_int(out, d.value);
      out += ',';
    }
    out += "\"sym\":";
    append_json_string(out, d.sym());
    out += '}';
  }
  out += ']';
}

// Keys in sorted order: device, dtype, shape, storage, storage_bytes,
// storage_offset, stride.
void append_meta(std::string& out, const TensorMeta& t) {
  out += "{\"device\":";
  append_json_string(out, t.device.str());
  out += ",\"dtype\":";
  append_json_string(out, dtype_name(t.dtype));
  out += ",\"shape\":";
  append_dims(out, t.shape);
  if (t.storage) {
    out += ",\"storage\":";
    append_json_string(out, *t.storage);
  }
  if (t.storage_bytes) {
    out += ",\"storage_bytes\":";
    append_json_int(out, *t.storage_bytes);
  }
  if (t.storage_offset) {
    out += ",\"storage_offset\":";
    append_json_int(out, *t.storage_offset);
  }
  out += ",\"stride\":";
  append_dims(out, t.stride);
  out += '}';
}

// What the direct path does not cover: unknown fields (their keys merge into
// the sorted order) and kwargs not in key order. Rare; printed through JSON.
bool needs_generic_path(const Node& n) {
  const NodeAttrs& attrs = n.attrs();
  if (!attrs.extra.is_null())
    return true;
  for (size_t i = 1; i < attrs.kwargs.size(); ++i)
    if (!(attrs.kwargs[i - 1].first < attrs.kwargs[i].first))
      return true;
  for (const auto& m : n.val)
    if (m && !m->extra.is_null())
      return true;
  return false;
}

} // namespace

void append_json_string(std::string& out, std::string_view s) {
  for (unsigned char ch : s)
    if (ch < 0x20 || ch >= 0x80 || ch == '"' || ch == '\\') {
      out += nlohmann::json(std::string(s)).dump();
      return;
    }
  out += '"';
  out.append(s.data(), s.size());
  out += '"';
}

void append_json_int(std::string& out, int64_t v) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, static_cast<size_t>(r.ptr - buf));
}

void append_json_double(std::string& out, double v) {
  out += nlohmann::json(v).dump();
}

// Keys in sorted order: args, control_deps, is_view, kwargs, meta, mutates,
// name, op, tags, target, val.
void append_node_json(std::string& out, const Node& n, const Graph& g) {
  const NodeAttrs& attrs = n.attrs();
  if (needs_generic_path(n)) {
    out += node_to_json(n, g).dump();
    return;
  }
  out += "{\"args\":[";
  for (size_t i = 0; i < n.args.size(); ++i) {
    if (i)
      out += ',';
    append_value(out, n.args[i], g);
  }
  out += ']';
  if (!attrs.control_deps.empty()) {
    out += ",\"control_deps\":[";
    for (size_t i = 0; i < attrs.control_deps.size(); ++i) {
      if (i)
        out += ',';
      append_json_string(out, g.nodes[attrs.control_deps[i]].name);
    }
    out += ']';
  }
  if (n.is_view) {
    out += ",\"is_view\":";
    out += *n.is_view ? "true" : "false";
  }
  out += ",\"kwargs\":{";
  for (size_t i = 0; i < attrs.kwargs.size(); ++i) {
    if (i)
      out += ',';
    append_json_string(out, attrs.kwargs[i].first);
    out += ':';
    append_value(out, attrs.kwargs[i].second, g);
  }
  out += '}';
  if (!attrs.meta.is_null()) {
    out += ",\"meta\":";
    out += attrs.meta.dump();
  }
  if (attrs.mutates) {
    out += ",\"mutates\":[";
    for (size_t i = 0; i < attrs.mutates->size(); ++i) {
      if (i)
        out += ',';
      const MutatedArg& a = (*attrs.mutates)[i];
      if (a.position >= 0)
        append_json_int(out, a.position);
      else
        append_json_string(out, "kwarg:" + a.kwarg);
    }
    out += ']';
  }
  out += ",\"name\":";
  append_json_string(out, n.name);
  out += ",\"op\":";
  append_json_string(out, node_op_name(n.op));
  if (attrs.tags) {
    out += ",\"tags\":[";
    for (size_t i = 0; i < attrs.tags->size(); ++i) {
      if (i)
        out += ',';
      append_json_string(out, (*attrs.tags)[i]);
    }
    out += ']';
  }
  out += ",\"target\":";
  append_json_string(out, n.target);
  out += ",\"val\":";
  switch (n.val_kind) {
  case ValKind::Null:
    out += "null";
    break;
  case ValKind::Single:
    if (n.val.empty() || !n.val[0])
      out += "null";
    else
      append_meta(out, *n.val[0]);
    break;
  case ValKind::List:
    out += '[';
    for (size_t i = 0; i < n.val.size(); ++i) {
      if (i)
        out += ',';
      if (n.val[i])
        append_meta(out, *n.val[i]);
      else
        out += "null";
    }
    out += ']';
    break;
  }
  out += '}';
}

} // namespace osched
