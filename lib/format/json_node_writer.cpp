#include "format/json_node_writer.h"
#include "graph/nonfinite.h"

#include <algorithm>
#include <charconv>

#include "format/json_io.h"
#include "format/node_fields.h"

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
    if (!std::isfinite(v.f)) {
      out += "{\"float\":\"";
      out += nonfinite_name(v.f);
      out += "\"}";
      return;
    }
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

namespace {

template <typename List, typename Append>
void append_list(std::string& out, const List& items, Append append) {
  out += '[';
  for (size_t i = 0; i < items.size(); ++i) {
    if (i)
      out += ',';
    append(items[i]);
  }
  out += ']';
}

[[gnu::always_inline]] inline void append_field(std::string& out, const NodeField& f, const Node& n,
                                                const Graph& g) {
  const NodeAttrs& attrs = n.attrs();
  switch (f.kind) {
  case NodeFieldKind::Name:
    append_json_string(out, n.name);
    return;
  case NodeFieldKind::OpName:
    append_json_string(out, node_op_name(n.op));
    return;
  case NodeFieldKind::Text:
    append_json_string(out, f.text.get(n));
    return;
  case NodeFieldKind::ValueList:
    append_list(out, n.args, [&](const Value& v) { append_value(out, v, g); });
    return;
  case NodeFieldKind::ValueMap:
    out += '{';
    for (size_t i = 0; i < attrs.kwargs.size(); ++i) {
      if (i)
        out += ',';
      append_json_string(out, attrs.kwargs[i].first);
      out += ':';
      append_value(out, attrs.kwargs[i].second, g);
    }
    out += '}';
    return;
  case NodeFieldKind::TensorMetas:
    if (n.val_kind == ValKind::List)
      append_list(out, n.val, [&](const MetaRef& m) {
        if (m)
          append_meta(out, *m);
        else
          out += "null";
      });
    else if (n.val_kind == ValKind::Single && !n.val.empty() && n.val[0])
      append_meta(out, *n.val[0]);
    else
      out += "null";
    return;
  case NodeFieldKind::TextList:
    append_list(out, *f.text_list.get(n),
                [&](const std::string& t) { append_json_string(out, t); });
    return;
  case NodeFieldKind::Flag:
    out += *f.flag.get(n) ? "true" : "false";
    return;
  case NodeFieldKind::MutatedArgs:
    append_list(out, *attrs.mutates, [&](const MutatedArg& a) {
      if (a.position >= 0)
        append_json_int(out, a.position);
      else
        append_json_string(out, "kwarg:" + a.kwarg);
    });
    return;
  case NodeFieldKind::NodeNames:
    append_list(out, attrs.control_deps,
                [&](NodeId d) { append_json_string(out, g.nodes[d].name); });
    return;
  case NodeFieldKind::AnyJson:
    out += f.any_json.get(n).dump();
    return;
  }
}

// "key": made at compile time: one append per field.
struct QuotedKey {
  char text[32] = {};
  size_t size = 0;
  constexpr explicit QuotedKey(std::string_view key) {
    text[size++] = '"';
    for (char c : key)
      text[size++] = c;
    text[size++] = '"';
    text[size++] = ':';
  }
};

} // namespace

// Keys in sorted order, as the general path's JSON object has them.
void append_node_json(std::string& out, const Node& n, const Graph& g) {
  if (needs_generic_path(n)) {
    out += node_to_json(n, g).dump();
    return;
  }
  char sep = '{';
  for_each_node_field<kNodeFieldsByKey>([&](auto row) {
    constexpr const NodeField& f = kNodeFields[decltype(row)::value];
    if (!node_field_written(f, n))
      return;
    static constexpr QuotedKey key(f.key);
    out += sep;
    sep = ',';
    out.append(key.text, key.size);
    append_field(out, f, n, g);
  });
  out += '}';
}

} // namespace osched
