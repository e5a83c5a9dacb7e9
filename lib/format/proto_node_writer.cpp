#include "format/proto_node_writer.h"
#include "format/node_fields.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <numeric>
#include <string_view>

#include <nlohmann/json.hpp>

namespace osched {
namespace {

constexpr uint32_t kVarint = 0;
constexpr uint32_t kFixed64 = 1;
constexpr uint32_t kLen = 2;

// Fields in number order, as protobuf's serializer writes them. Proto3
// fields without presence are left out at their default (0, "", false);
// fields with presence (optional, oneof members, messages, repeated
// elements) are written whenever set, defaults included.
class Encoder {
public:
  explicit Encoder(std::string& out) : out_(out) {}

  void varint(uint64_t v) {
    char buf[10];
    size_t n = 0;
    while (v >= 0x80) {
      buf[n++] = static_cast<char>(v | 0x80);
      v >>= 7;
    }
    buf[n++] = static_cast<char>(v);
    out_.append(buf, n);
  }
  void tag(uint32_t field, uint32_t type) { varint((uint64_t{field} << 3) | type); }

  void int_field(uint32_t field, int64_t v) { // written even at 0
    tag(field, kVarint);
    varint(static_cast<uint64_t>(v));
  }
  void string_field(uint32_t field, std::string_view s) { // written even empty
    tag(field, kLen);
    varint(s.size());
    out_.append(s);
  }
  void nonempty_string_field(uint32_t field, std::string_view s) {
    if (!s.empty())
      string_field(field, s);
  }
  void double_field(uint32_t field, double d) {
    tag(field, kFixed64);
    char buf[8];
    std::memcpy(buf, &d, 8);
    out_.append(buf, 8);
  }

  // A nested message: its length is patched in once its body is written
  // (one byte is kept for it; longer lengths move the body).
  size_t begin(uint32_t field) {
    tag(field, kLen);
    out_ += '\0';
    return out_.size();
  }
  void end(size_t body_start) {
    const size_t len = out_.size() - body_start;
    if (len < 0x80) {
      out_[body_start - 1] = static_cast<char>(len);
      return;
    }
    char buf[10];
    size_t n = 0;
    size_t v = len;
    while (v >= 0x80) {
      buf[n++] = static_cast<char>(v | 0x80);
      v >>= 7;
    }
    buf[n++] = static_cast<char>(v);
    out_.replace(body_start - 1, 1, buf, n);
  }

private:
  std::string& out_;
};

// Value: oneof 1 null_value, 2 bool_value, 3 int_value, 4 float_value,
// 5 string_value, 6 list_value (ValueList: 1 items), 7 node_ref (NodeRef:
// 1 node, 2 index).
void write_value(Encoder& e, uint32_t field, const Value& v, const Graph& g) {
  const size_t at = e.begin(field);
  switch (v.kind) {
  case Value::Kind::Null:
    e.int_field(1, 1);
    break;
  case Value::Kind::Bool:
    e.int_field(2, v.b ? 1 : 0);
    break;
  case Value::Kind::Int:
    e.int_field(3, v.i);
    break;
  case Value::Kind::Float:
    e.double_field(4, v.f);
    break;
  case Value::Kind::String:
    e.string_field(5, v.str());
    break;
  case Value::Kind::List: {
    const size_t list = e.begin(6);
    for (const Value& item : v.items())
      write_value(e, 1, item, g);
    e.end(list);
    break;
  }
  case Value::Kind::NodeRef: {
    const size_t ref = e.begin(7);
    e.nonempty_string_field(1, g.nodes[static_cast<size_t>(v.i)].name);
    if (v.ref_output >= 0)
      e.int_field(2, v.ref_output);
    e.end(ref);
    break;
  }
  }
  e.end(at);
}

// Dim: oneof 1 value, 2 sym (SymDim: 1 name, 2 hint).
void write_dim(Encoder& e, uint32_t field, const Dim& d) {
  const size_t at = e.begin(field);
  if (!d.is_symbolic()) {
    e.int_field(1, d.value);
  } else {
    const size_t sym = e.begin(2);
    e.nonempty_string_field(1, d.sym());
    if (d.has_hint)
      e.int_field(2, d.value);
    e.end(sym);
  }
  e.end(at);
}

// Unknown fields as the general path stores them: canonical JSON of what is
// left once the known keys are taken out.
template <size_t N>
void write_extra(Encoder& e, uint32_t field, const nlohmann::json& extra,
                 const std::array<std::string_view, N>& known) {
  if (extra.is_null())
    return;
  nlohmann::json rest = extra;
  if (rest.is_object())
    for (std::string_view k : known)
      rest.erase(std::string(k));
  if (!rest.empty())
    e.nonempty_string_field(field, rest.dump());
}

// TensorMeta: 1 shape, 2 stride, 3 dtype, 4 device, 5 storage,
// 6 storage_offset, 7 storage_bytes, 8 extra_json.
void write_meta(Encoder& e, uint32_t field, const TensorMeta& t) {
  const size_t at = e.begin(field);
  for (const Dim& d : t.shape)
    write_dim(e, 1, d);
  for (const Dim& d : t.stride)
    write_dim(e, 2, d);
  e.nonempty_string_field(3, dtype_name(t.dtype));
  e.nonempty_string_field(4, t.device.str());
  if (t.storage)
    e.string_field(5, *t.storage);
  if (t.storage_offset)
    e.int_field(6, *t.storage_offset);
  if (t.storage_bytes)
    e.int_field(7, *t.storage_bytes);
  constexpr std::array<std::string_view, 7> kMetaKeys = {
      "shape", "stride", "dtype", "device", "storage", "storage_offset", "storage_bytes"};
  write_extra(e, 8, t.extra, kMetaKeys);
  e.end(at);
}

} // namespace

namespace {

[[gnu::always_inline]] inline void write_field(Encoder& e, const NodeField& f, const Node& n,
                                               const Graph& g) {
  const NodeAttrs& attrs = n.attrs();
  switch (f.kind) {
  case NodeFieldKind::Name:
    e.nonempty_string_field(f.proto, n.name);
    return;
  case NodeFieldKind::OpName:
    e.nonempty_string_field(f.proto, node_op_name(n.op));
    return;
  case NodeFieldKind::Text:
    e.nonempty_string_field(f.proto, f.text.get(n));
    return;
  case NodeFieldKind::ValueList:
    for (const Value& a : n.args)
      write_value(e, f.proto, a, g);
    return;
  case NodeFieldKind::ValueMap: {
    // Keys in sorted order, as the general path's JSON object has them; of
    // a repeated key the last value (Kwarg: 1 key, 2 value).
    std::vector<size_t> order(attrs.kwargs.size());
    std::iota(order.begin(), order.end(), size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      return attrs.kwargs[a].first < attrs.kwargs[b].first;
    });
    for (size_t k = 0; k < order.size(); ++k) {
      if (k + 1 < order.size() && attrs.kwargs[order[k]].first == attrs.kwargs[order[k + 1]].first)
        continue;
      const size_t kw = e.begin(f.proto);
      e.nonempty_string_field(1, attrs.kwargs[order[k]].first);
      write_value(e, 2, attrs.kwargs[order[k]].second, g);
      e.end(kw);
    }
    return;
  }
  case NodeFieldKind::TensorMetas:
    // ValKind: 0 null, 1 single, 2 list; MaybeTensorMeta: 1 meta.
    if (n.val_kind == ValKind::List) {
      e.int_field(f.proto_flag, 2);
      for (const auto& m : n.val) {
        const size_t slot = e.begin(f.proto);
        if (m)
          write_meta(e, 1, *m);
        e.end(slot);
      }
    } else if (n.val_kind == ValKind::Single && !n.val.empty() && n.val[0]) {
      e.int_field(f.proto_flag, 1);
      const size_t slot = e.begin(f.proto);
      write_meta(e, 1, *n.val[0]);
      e.end(slot);
    }
    return;
  case NodeFieldKind::TextList:
    e.int_field(f.proto_flag, 1);
    for (const std::string& t : *f.text_list.get(n))
      e.string_field(f.proto, t);
    return;
  case NodeFieldKind::Flag:
    e.int_field(f.proto, *f.flag.get(n) ? 1 : 0);
    return;
  case NodeFieldKind::MutatedArgs:
    e.int_field(f.proto_flag, 1);
    for (const MutatedArg& a : *attrs.mutates) { // MutatedArg: oneof 1 position, 2 kwarg
      const size_t m = e.begin(f.proto);
      if (a.position >= 0)
        e.int_field(1, a.position);
      else
        e.string_field(2, a.kwarg);
      e.end(m);
    }
    return;
  case NodeFieldKind::NodeNames:
    for (NodeId d : attrs.control_deps)
      e.string_field(f.proto, g.nodes[static_cast<size_t>(d)].name);
    return;
  case NodeFieldKind::AnyJson:
    e.nonempty_string_field(f.proto, f.any_json.get(n).dump());
    return;
  }
}

} // namespace

// Fields in number order, the unknown ones at theirs.
void append_node_proto(std::string& out, const Node& n, const Graph& g) {
  Encoder e(out);
  const size_t at = e.begin(8);
  bool extra_written = false;
  for_each_node_field<kNodeFieldsByNumber>([&](auto row) {
    constexpr const NodeField& f = kNodeFields[decltype(row)::value];
    if (first_proto_number(f) > kNodeExtraProto && !extra_written) {
      write_extra(e, kNodeExtraProto, n.attrs().extra, kNodeFieldKeys);
      extra_written = true;
    }
    if (node_field_written(f, n))
      write_field(e, f, n, g);
  });
  if (!extra_written)
    write_extra(e, kNodeExtraProto, n.attrs().extra, kNodeFieldKeys);
  e.end(at);
}

} // namespace osched
