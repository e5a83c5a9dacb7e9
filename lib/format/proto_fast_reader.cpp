#include "format/proto_fast_reader.h"
#include "format/node_fields.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <deque>
#include <limits>
#include <string>
#include <unordered_map>

#include "format/sized_nodes.h"
#include "text/json_limits.h"

namespace osched {
namespace {

// In the JSON form a node's argument sits inside the graph, its node list,
// the node and the args list (or kwargs object): a list or reference there
// is at level 5.
constexpr int kArgLevel = 5;

// Wire types (protobuf encoding).
constexpr uint32_t kVarint = 0;
constexpr uint32_t kFixed64 = 1;
constexpr uint32_t kLen = 2;
constexpr uint32_t kFixed32 = 5;

// Field numbers of graph.proto's messages used below.
namespace field {
constexpr uint32_t kGraphNodes = 8;
} // namespace field

// Field numbers a message's items are counted for, before its lists are
// sized: every field of Node, Value, ValueList and TensorMeta.
constexpr uint32_t kCountedFields = 16;
static_assert(kNodeProtoLimit <= kCountedFields, "a node field the counts miss");

// A cursor over one message's bytes; every read checks the bounds.
class Wire {
public:
  Wire() = default;
  Wire(const uint8_t* p, const uint8_t* end) : p_(p), end_(end) {}

  bool done() const { return p_ == end_; }
  const uint8_t* at() const { return p_; }
  const uint8_t* end() const { return end_; }

  bool varint(uint64_t& v) {
    if (p_ < end_ && *p_ < 0x80) {
      v = *p_++;
      return true;
    }
    uint64_t r = 0;
    for (int shift = 0; shift < 64; shift += 7) { // at most ten bytes
      if (p_ == end_)
        return false;
      const uint8_t b = *p_++;
      r |= static_cast<uint64_t>(b & 0x7f) << shift;
      if (b < 0x80) {
        v = r;
        return true;
      }
    }
    return false;
  }

  bool tag(uint32_t& field, uint32_t& type) {
    uint64_t v = 0;
    if (!varint(v) || v > std::numeric_limits<uint32_t>::max())
      return false;
    field = static_cast<uint32_t>(v >> 3);
    type = static_cast<uint32_t>(v & 7);
    return field != 0;
  }

  // A length-delimited field's bytes.
  bool len(Wire& sub) {
    uint64_t n = 0;
    if (!varint(n) || n > static_cast<uint64_t>(end_ - p_))
      return false;
    sub = Wire(p_, p_ + n);
    p_ += n;
    return true;
  }

  // A string field; only ASCII (protobuf checks UTF-8: the message readers
  // take the rest).
  bool str(std::string_view& out) {
    Wire sub;
    if (!len(sub))
      return false;
    const size_t n = static_cast<size_t>(sub.end_ - sub.p_);
    uint8_t high = 0;
    for (size_t i = 0; i < n; ++i)
      high |= sub.p_[i];
    if (high & 0x80)
      return false;
    out = std::string_view(reinterpret_cast<const char*>(sub.p_), n);
    return true;
  }

  bool fixed64(uint64_t& v) {
    if (end_ - p_ < 8)
      return false;
    std::memcpy(&v, p_, 8);
    p_ += 8;
    return true;
  }

  bool skip(uint32_t type) {
    uint64_t v = 0;
    Wire sub;
    switch (type) {
    case kVarint:
      return varint(v);
    case kFixed64:
      return fixed64(v);
    case kLen:
      return len(sub);
    case kFixed32:
      if (end_ - p_ < 4)
        return false;
      p_ += 4;
      return true;
    default: // groups: not in this format
      return false;
    }
  }

  // How many times each field number below kCountedFields occurs (the lists
  // are sized before they are read).
  bool count_fields(uint32_t (&counts)[kCountedFields]) const {
    Wire w = *this;
    std::fill(std::begin(counts), std::end(counts), 0);
    while (!w.done()) {
      uint32_t f = 0, t = 0;
      if (!w.tag(f, t) || !w.skip(t))
        return false;
      if (f < kCountedFields)
        ++counts[f];
    }
    return true;
  }

private:
  const uint8_t* p_ = nullptr;
  const uint8_t* end_ = nullptr;
};

// Each field of `fields` (bit per field number) at most once; false when
// `field` is one of them and was seen before.
bool first_time(uint32_t field, uint32_t singular, uint32_t& seen) {
  const uint32_t bit = field < 32 ? uint32_t{1} << field : 0;
  if (!(singular & bit))
    return true;
  if (seen & bit)
    return false;
  seen |= bit;
  return true;
}

constexpr uint32_t bits(std::initializer_list<uint32_t> fields) {
  uint32_t b = 0;
  for (uint32_t f : fields)
    b |= uint32_t{1} << f;
  return b;
}

// NodeRef and SymDim alike: 1 a name, 2 an optional int64 (`number`: -1
// while absent; a negative one declines).
bool read_name_and_number(Wire w, std::string_view& name, int64_t& number) {
  uint32_t seen = 0;
  number = -1;
  while (!w.done()) {
    uint32_t f = 0, t = 0;
    uint64_t v = 0;
    if (!w.tag(f, t) || !first_time(f, bits({1, 2}), seen))
      return false;
    if (f == 1) {
      if (t != kLen || !w.str(name))
        return false;
    } else if (f == 2) {
      if (t != kVarint || !w.varint(v) || static_cast<int64_t>(v) < 0)
        return false;
      number = static_cast<int64_t>(v);
    } else {
      return false;
    }
  }
  return true;
}

// Reads one node at a time into its slot: the model the general path builds
// from the node's message.
class NodeDecoder {
public:
  NodeDecoder(std::vector<Node>& nodes, const uint8_t* bytes, bool defer_unknown)
      : nodes_(nodes), bytes_(bytes), names_(nodes, defer_unknown) {}

  RangeNames& names() { return names_; }

  bool read(size_t begin, size_t end, NodeId at) {
    current_ = at;
    return read_node(Wire(bytes_ + begin, bytes_ + end), nodes_[static_cast<size_t>(at)]) &&
           names_.add(at);
  }

private:
  std::vector<Node>& nodes_;
  const uint8_t* bytes_;
  RangeNames names_;
  InternedString last_device_;
  NodeId current_ = 0;
  static constexpr size_t kMaxSeenMetas = 4096;
  std::deque<std::string> seen_meta_keys_; // stable: the map's keys view them
  std::unordered_map<std::string_view, MetaRef> seen_metas_;

  // The fields read once: every row's flag, a row's value when it is not
  // repeated, and the unknown fields' JSON.
  static constexpr uint32_t singular_fields() {
    uint32_t b = uint32_t{1} << kNodeExtraProto;
    for (const NodeField& f : kNodeFields) {
      if (f.proto_flag)
        b |= uint32_t{1} << f.proto_flag;
      if (f.kind == NodeFieldKind::Name || f.kind == NodeFieldKind::OpName ||
          f.kind == NodeFieldKind::Text || f.kind == NodeFieldKind::Flag ||
          f.kind == NodeFieldKind::AnyJson)
        b |= uint32_t{1} << f.proto;
    }
    return b;
  }
  bool read_node(Wire w, Node& n) {
    uint32_t counts[kCountedFields];
    if (!w.count_fields(counts))
      return false;
    reserve_lists(n, counts);
    constexpr uint32_t singular = singular_fields();
    uint32_t seen = 0;
    uint64_t val_kind = 0;
    // Rows by index: whose flag said present, and whose value was read.
    uint32_t flagged = 0, listed = 0;
    while (!w.done()) {
      uint32_t num = 0, t = 0;
      if (!w.tag(num, t) || !first_time(num, singular, seen))
        return false;
      if (num == kNodeExtraProto) { // embedded JSON: the message readers keep it
        std::string_view s;
        if (t != kLen || !w.str(s) || !s.empty())
          return false;
        continue;
      }
      const int row = node_field_of_number(num);
      if (row < 0 || !visit_node_field(static_cast<size_t>(row), [&](auto r) {
            constexpr size_t i = decltype(r)::value;
            constexpr const NodeField& f = kNodeFields[i];
            if (f.proto_flag && num == f.proto_flag) {
              uint64_t v = 0;
              if (t != kVarint || !w.varint(v))
                return false;
              if constexpr (f.kind == NodeFieldKind::TensorMetas) {
                val_kind = v;
                return v <= 2;
              }
              if (v != 0)
                flagged |= uint32_t{1} << i;
              return true;
            }
            listed |= uint32_t{1} << i;
            return t == (f.kind == NodeFieldKind::Flag ? kVarint : kLen) &&
                   read_field(f, w, n, counts);
          }))
        return false;
    }
    // Without a required field the message readers word the error.
    if ((listed & kRequiredNodeFields) != kRequiredNodeFields)
      return false;
    // Items without their list's flag: the message readers drop them; a
    // flag without items: an empty list.
    bool flags_kept = true;
    for_each_node_field<kNodeFieldRows>([&](auto r) {
      constexpr size_t i = decltype(r)::value;
      constexpr const NodeField& f = kNodeFields[i];
      if constexpr (f.proto_flag && f.kind != NodeFieldKind::TensorMetas) {
        if (listed & ~flagged & (uint32_t{1} << i))
          flags_kept = false;
        else if (flagged & ~listed & (uint32_t{1} << i)) {
          if constexpr (f.kind == NodeFieldKind::TextList)
            f.text_list.edit(n).emplace();
          else
            n.edit_attrs().mutates.emplace();
        }
      }
    });
    if (!flags_kept)
      return false;
    if (sort_kwargs(n))
      return false; // a key given twice: the general path keeps the last one
    switch (val_kind) {
    case 1: // single: exactly one entry, with its meta (else: the message readers)
      if (n.val.size() != 1 || !n.val[0])
        return false;
      n.val_kind = ValKind::Single;
      return true;
    case 2:
      n.val_kind = ValKind::List;
      return true;
    default:
      return n.val.empty();
    }
  }

  // Room for the repeated fields' items, counted before reading.
  static void reserve_lists(Node& n, const uint32_t (&counts)[kCountedFields]) {
    for_each_node_field<kNodeFieldRows>([&](auto r) {
      constexpr const NodeField& f = kNodeFields[decltype(r)::value];
      if constexpr (f.kind == NodeFieldKind::ValueList)
        n.args.reserve(counts[f.proto]);
      if constexpr (f.kind == NodeFieldKind::TensorMetas)
        n.val.reserve(counts[f.proto]);
      if constexpr (f.kind == NodeFieldKind::ValueMap)
        if (counts[f.proto] > 0)
          n.edit_attrs().kwargs.reserve(counts[f.proto]);
      if constexpr (f.kind == NodeFieldKind::NodeNames)
        if (counts[f.proto] > 0)
          n.edit_attrs().control_deps.reserve(counts[f.proto]);
    });
  }

  // One value field of a row (one item of a repeated one).
  [[gnu::always_inline]] bool read_field(const NodeField& f, Wire& w, Node& n,
                                         const uint32_t (&counts)[kCountedFields]) {
    std::string_view s;
    Wire sub;
    switch (f.kind) {
    case NodeFieldKind::Name:
      if (!w.str(s) || s.empty())
        return false;
      n.name.assign(s);
      names_.named(current_);
      return true;
    case NodeFieldKind::OpName: {
      if (!w.str(s))
        return false;
      const std::optional<NodeOp> op = parse_node_op(s);
      if (!op)
        return false;
      n.op = *op;
      return true;
    }
    case NodeFieldKind::Text:
      if (!w.str(s))
        return false;
      f.text.edit(n) = s;
      return true;
    case NodeFieldKind::ValueList:
      return w.len(sub) && read_value(sub, n.args.emplace_back(), kArgLevel);
    case NodeFieldKind::ValueMap:
      return w.len(sub) && read_kwarg(sub, n);
    case NodeFieldKind::TensorMetas:
      return w.len(sub) && read_maybe_meta(sub, n.val);
    case NodeFieldKind::TextList: {
      if (!w.str(s))
        return false;
      auto& list = f.text_list.edit(n);
      if (!list) {
        list.emplace();
        list->reserve(counts[f.proto]);
      }
      list->emplace_back(s);
      return true;
    }
    case NodeFieldKind::Flag: {
      uint64_t v = 0;
      if (!w.varint(v))
        return false;
      f.flag.edit(n) = v != 0;
      return true;
    }
    case NodeFieldKind::MutatedArgs: {
      auto& list = n.edit_attrs().mutates;
      if (!list) {
        list.emplace();
        list->reserve(counts[f.proto]);
      }
      return w.len(sub) && read_mutated(sub, list->emplace_back());
    }
    case NodeFieldKind::NodeNames:
      return w.str(s) && names_.control_dep(s, current_);
    case NodeFieldKind::AnyJson: // embedded JSON: the message readers keep it
      return w.str(s) && s.empty();
    }
    return false;
  }

  // Value: oneof 1 null_value, 2 bool_value, 3 int_value, 4 float_value,
  // 5 string_value, 6 list_value, 7 node_ref; none set: null.
  // `level`: where a list or reference would sit in the JSON form's nesting;
  // past its limit (and for non-finite floats, which JSON cannot hold) the
  // general reader words the error, and the recursion here stays bounded.
  bool read_value(Wire w, Value& out, int level) {
    if (w.done())
      return true;
    uint32_t f = 0, t = 0;
    if (!w.tag(f, t))
      return false;
    uint64_t v = 0;
    std::string_view s;
    Wire sub;
    bool ok = false;
    switch (f) {
    case 1:
      ok = t == kVarint && w.varint(v);
      break;
    case 2:
      ok = t == kVarint && w.varint(v);
      out = Value::boolean(v != 0);
      break;
    case 3:
      ok = t == kVarint && w.varint(v);
      out = Value::integer(static_cast<int64_t>(v));
      break;
    case 4: {
      ok = t == kFixed64 && w.fixed64(v);
      double d = 0;
      std::memcpy(&d, &v, sizeof d);
      if (std::isnan(d)) // one NaN, whatever its bits: every reader and writer agrees
        d = std::numeric_limits<double>::quiet_NaN();
      out = Value::real(d); // inf and nan too (graph/nonfinite.h)
      break;
    }
    case 5:
      ok = t == kLen && w.str(s);
      out = Value::string(std::string(s));
      break;
    case 6:
      ok = t == kLen && level <= kMaxJsonDepth && w.len(sub) && read_list(sub, out, level);
      break;
    case 7:
      ok = t == kLen && level <= kMaxJsonDepth && w.len(sub) && read_ref(sub, out);
      break;
    default:
      return false;
    }
    return ok && w.done(); // a second member of the oneof: the message readers
  }

  // ValueList: 1 items.
  bool read_list(Wire w, Value& out, int level) {
    uint32_t counts[kCountedFields];
    if (!w.count_fields(counts))
      return false;
    out.kind = Value::Kind::List;
    std::vector<Value>& items = out.edit_items();
    items.reserve(counts[1]);
    while (!w.done()) {
      uint32_t f = 0, t = 0;
      Wire sub;
      if (!w.tag(f, t) || f != 1 || t != kLen || !w.len(sub) ||
          !read_value(sub, items.emplace_back(), level + 1))
        return false;
    }
    return true;
  }

  // NodeRef: 1 node, 2 index (optional).
  bool read_ref(Wire w, Value& out) {
    std::string_view name;
    int64_t index = -1;
    if (!read_name_and_number(w, name, index) || index > std::numeric_limits<int32_t>::max())
      return false;
    return names_.ref(name, static_cast<int32_t>(index), current_, out);
  }

  // Kwarg: 1 key, 2 value.
  bool read_kwarg(Wire w, Node& n) {
    std::string_view key;
    Wire value;
    uint32_t seen = 0;
    while (!w.done()) {
      uint32_t f = 0, t = 0;
      if (!w.tag(f, t) || !first_time(f, bits({1, 2}), seen) || t != kLen)
        return false;
      if (f == 1 ? !w.str(key) : f == 2 ? !w.len(value) : true)
        return false;
    }
    auto& kv = n.edit_attrs().kwargs.emplace_back(std::string(key), Value());
    return read_value(value, kv.second, kArgLevel);
  }

  // MaybeTensorMeta: 1 meta (absent: a null entry). A graph repeats a few
  // dozen metas, and equal bytes decode to the same meta: bytes seen before
  // are answered from a cache without decoding, hashing dims or interning.
  bool read_maybe_meta(Wire w, MetaList& val) {
    if (w.done()) {
      val.emplace_back();
      return true;
    }
    const std::string_view bytes(reinterpret_cast<const char*>(w.at()),
                                 static_cast<size_t>(w.end() - w.at()));
    if (auto hit = seen_metas_.find(bytes); hit != seen_metas_.end()) {
      val.push_back(hit->second);
      return true;
    }
    uint32_t f = 0, t = 0;
    Wire sub;
    TensorMeta m;
    if (!w.tag(f, t) || f != 1 || t != kLen || !w.len(sub) || !w.done() || !read_meta(sub, m))
      return false;
    const MetaRef ref(m);
    val.push_back(ref);
    // Keys are copies: the input's pages may be let go (done_with). A graph
    // of all-different metas stops filling the cache at its cap.
    if (seen_metas_.size() < kMaxSeenMetas)
      seen_metas_.emplace(seen_meta_keys_.emplace_back(bytes), ref);
    return true;
  }

  // TensorMeta: 1 shape, 2 stride, 3 dtype, 4 device, 5 storage,
  // 6 storage_offset, 7 storage_bytes, 8 extra_json.
  bool read_meta(Wire w, TensorMeta& m) {
    uint32_t counts[kCountedFields];
    if (!w.count_fields(counts))
      return false;
    m.shape.reserve(counts[1]);
    m.stride.reserve(counts[2]);
    uint32_t seen = 0;
    std::string_view dtype;
    while (!w.done()) {
      uint32_t f = 0, t = 0;
      if (!w.tag(f, t) || !first_time(f, bits({3, 4, 5, 6, 7, 8}), seen))
        return false;
      if (t != (f == 6 || f == 7 ? kVarint : kLen))
        return false;
      std::string_view s;
      uint64_t v = 0;
      Wire sub;
      switch (f) {
      case 1:
      case 2:
        if (!w.len(sub) || !read_dim(sub, (f == 1 ? m.shape : m.stride).emplace_back()))
          return false;
        break;
      case 3:
        if (!w.str(dtype))
          return false;
        break;
      case 4:
        if (!w.str(s))
          return false;
        // Interning locks: the last device read is reused (most are one).
        if (last_device_ != s)
          last_device_ = s;
        m.device = last_device_;
        break;
      case 5:
        if (!w.str(s))
          return false;
        m.storage = std::string(s);
        break;
      case 6:
      case 7:
        if (!w.varint(v) || static_cast<int64_t>(v) < 0)
          return false;
        (f == 6 ? m.storage_offset : m.storage_bytes) = static_cast<int64_t>(v);
        break;
      case 8:
        if (!w.str(s) || !s.empty())
          return false;
        break;
      default:
        return false;
      }
    }
    const std::optional<DType> parsed = parse_dtype(dtype);
    if (!parsed || m.shape.size() != m.stride.size())
      return false;
    m.dtype = *parsed;
    return true;
  }

  // Dim: oneof 1 value, 2 sym (SymDim: 1 name, 2 hint, optional); none set:
  // the value 0.
  static bool read_dim(Wire w, Dim& d) {
    if (w.done())
      return true;
    uint32_t f = 0, t = 0;
    uint64_t v = 0;
    if (!w.tag(f, t))
      return false;
    if (f == 1) {
      if (t != kVarint || !w.varint(v))
        return false;
      d.value = static_cast<int64_t>(v);
    } else if (f == 2) {
      Wire sym;
      if (t != kLen || !w.len(sym) || !read_sym(sym, d))
        return false;
    } else {
      return false;
    }
    return w.done() && d.value >= 0;
  }

  static bool read_sym(Wire w, Dim& d) {
    std::string_view name;
    int64_t hint = -1;
    if (!read_name_and_number(w, name, hint) || name.empty())
      return false;
    d.has_hint = hint >= 0;
    d.value = d.has_hint ? hint : 0;
    d.sym_id = intern_symbol(std::string(name));
    return true;
  }

  // MutatedArg: oneof 1 position, 2 kwarg; none set: position 0.
  static bool read_mutated(Wire w, MutatedArg& a) {
    a.position = 0;
    if (w.done())
      return true;
    uint32_t f = 0, t = 0;
    uint64_t v = 0;
    std::string_view s;
    if (!w.tag(f, t))
      return false;
    if (f == 1) {
      if (t != kVarint || !w.varint(v) || static_cast<int64_t>(v) < 0 ||
          static_cast<int64_t>(v) > std::numeric_limits<int32_t>::max())
        return false;
      a.position = static_cast<int32_t>(v);
    } else if (f == 2) {
      if (t != kLen || !w.str(s) || s.empty())
        return false;
      a.position = -1;
      a.kwarg = std::string(s);
    } else {
      return false;
    }
    return w.done();
  }
};

} // namespace

std::optional<ProtoFastNodes>
read_proto_nodes_fast(std::string_view bytes, size_t parallel_min_nodes,
                      const std::function<void(size_t, size_t)>& done_with) {
  const auto* base = reinterpret_cast<const uint8_t*>(bytes.data());
  if (bytes.size() > static_cast<size_t>(std::numeric_limits<int32_t>::max()))
    return std::nullopt; // past protobuf's own limit: the message readers' error
  ProtoFastNodes out;
  // The nodes' spans, counted first so the list is allocated once (8 bytes
  // a node: protobuf input is under 2 GiB); the other top-level fields,
  // copied as they are, make the header message.
  size_t node_count = 0;
  for (Wire w(base, base + bytes.size()); !w.done();) {
    uint32_t f = 0, t = 0;
    if (!w.tag(f, t) || !w.skip(t))
      return std::nullopt;
    node_count += f == field::kGraphNodes && t == kLen;
  }
  std::vector<std::pair<uint32_t, uint32_t>> spans;
  spans.reserve(node_count);
  Wire w(base, base + bytes.size());
  while (!w.done()) {
    const uint8_t* field_start = w.at();
    uint32_t f = 0, t = 0;
    if (!w.tag(f, t))
      return std::nullopt;
    if (f == field::kGraphNodes && t == kLen) {
      Wire node;
      if (!w.len(node))
        return std::nullopt;
      spans.emplace_back(static_cast<uint32_t>(node.at() - base),
                         static_cast<uint32_t>(node.end() - base));
    } else {
      if (!w.skip(t))
        return std::nullopt;
      out.header.append(reinterpret_cast<const char*>(field_start),
                        static_cast<size_t>(w.at() - field_start));
    }
  }
  size_nodes(out.nodes, spans.size(), spans.size() >= parallel_min_nodes);
  std::optional<NameIndex> names =
      read_node_spans(spans, parallel_min_nodes, done_with, [&](bool defer_unknown) {
        return NodeDecoder(out.nodes, base, defer_unknown);
      });
  if (!names)
    return std::nullopt;
  out.names = std::move(*names);
  return out;
}

} // namespace osched
