#include "format/proto_io.h"
#include "graph/nonfinite.h"
#include "text/chunked_render.h"

#include <cmath>

#include <nlohmann/json.hpp>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/wire_format_lite.h>

#include "format/json_io.h"
#include "format/node_fields.h"
#include "format/proto_fast_reader.h"
#include "format/proto_node_writer.h"
#include "graph.pb.h"
#include "text/json_limits.h"
#include "validate/graph_error.h"
#include "validate/validate.h"

namespace osched {
namespace {

using json = nlohmann::json;
namespace pb = ::overlap_sched::pb;

// JSON text carried in a protobuf field, held to the JSON form's limits:
// `level` is where its value lands in the JSON form (the document is 1), so
// what protobuf accepts converts to JSON that the JSON reader accepts.
json parse_extra(const std::string& text, const std::string& where, int level) {
  if (text.empty())
    return json::object();
  return parse_json_limited(text, where + ": malformed protobuf: embedded JSON",
                            kMaxJsonDepth + 1 - level);
}

// `level`: the level of the object the extra fields join.
void merge_extra(json& into, const std::string& text, const std::string& where, int level) {
  json extra = parse_extra(text, where, level);
  if (!extra.is_object())
    throw GraphError("", where, "malformed protobuf: extra_json is not an object");
  for (auto& [k, v] : extra.items())
    into[k] = v;
}

// A node argument as JSON; `level` is where a list or reference would sit
// in the JSON form (5 for an argument itself).
json value_from_pb(const pb::Value& v, int level, const std::string& node, const char* field) {
  switch (v.kind_case()) {
  case pb::Value::kBoolValue:
    return v.bool_value();
  case pb::Value::kIntValue:
    return v.int_value();
  case pb::Value::kFloatValue:
    if (!std::isfinite(v.float_value()))
      return {{std::string(kNonFiniteKey), std::string(nonfinite_name(v.float_value()))}};
    return v.float_value();
  case pb::Value::kStringValue:
    return v.string_value();
  case pb::Value::kListValue: {
    if (level > kMaxJsonDepth)
      throw GraphError(node, field,
                       "nested deeper than " + std::to_string(kMaxJsonDepth) + " levels");
    json a = json::array();
    for (const auto& item : v.list_value().items())
      a.push_back(value_from_pb(item, level + 1, node, field));
    return a;
  }
  case pb::Value::kNodeRef: {
    if (level > kMaxJsonDepth)
      throw GraphError(node, field,
                       "nested deeper than " + std::to_string(kMaxJsonDepth) + " levels");
    json r = {{"node", v.node_ref().node()}};
    if (v.node_ref().has_index())
      r["index"] = v.node_ref().index();
    return r;
  }
  default:
    return nullptr;
  }
}

void value_to_pb(const json& j, pb::Value* out) {
  switch (j.type()) {
  case json::value_t::null:
    out->set_null_value(true);
    break;
  case json::value_t::boolean:
    out->set_bool_value(j.get<bool>());
    break;
  case json::value_t::number_integer:
  case json::value_t::number_unsigned:
    out->set_int_value(j.get<int64_t>());
    break;
  case json::value_t::number_float:
    out->set_float_value(j.get<double>());
    break;
  case json::value_t::string:
    out->set_string_value(j.get<std::string>());
    break;
  case json::value_t::array: {
    auto* list = out->mutable_list_value();
    for (const auto& item : j)
      value_to_pb(item, list->add_items());
    break;
  }
  case json::value_t::object: {
    if (j.size() == 1 && j.contains(kNonFiniteKey) && j[std::string(kNonFiniteKey)].is_string())
      if (std::optional<double> d =
              parse_nonfinite(j[std::string(kNonFiniteKey)].get<std::string>())) {
        out->set_float_value(*d);
        break;
      }
    auto* ref = out->mutable_node_ref();
    ref->set_node(j["node"].get<std::string>());
    if (j.contains("index"))
      ref->set_index(j["index"].get<int64_t>());
    break;
  }
  default:
    out->set_null_value(true);
  }
}

json dim_from_pb(const pb::Dim& d) {
  if (d.kind_case() == pb::Dim::kSym) {
    json j = {{"sym", d.sym().name()}};
    if (d.sym().has_hint())
      j["hint"] = d.sym().hint();
    return j;
  }
  return d.value();
}

void dim_to_pb(const json& j, pb::Dim* out) {
  if (j.is_object()) {
    out->mutable_sym()->set_name(j["sym"].get<std::string>());
    if (j.contains("hint"))
      out->mutable_sym()->set_hint(j["hint"].get<int64_t>());
  } else {
    out->set_value(j.get<int64_t>());
  }
}

// `level`: the meta object's level in the JSON form.
json meta_from_pb(const pb::TensorMeta& m, const std::string& where, int level) {
  json j = json::object();
  merge_extra(j, m.extra_json(), where, level);
  json shape = json::array(), stride = json::array();
  for (const auto& d : m.shape())
    shape.push_back(dim_from_pb(d));
  for (const auto& d : m.stride())
    stride.push_back(dim_from_pb(d));
  j["shape"] = shape;
  j["stride"] = stride;
  j["dtype"] = m.dtype();
  j["device"] = m.device();
  if (m.has_storage())
    j["storage"] = m.storage();
  if (m.has_storage_offset())
    j["storage_offset"] = m.storage_offset();
  if (m.has_storage_bytes())
    j["storage_bytes"] = m.storage_bytes();
  return j;
}

void meta_to_pb(json j, pb::TensorMeta* out) {
  for (const auto& d : j["shape"])
    dim_to_pb(d, out->add_shape());
  for (const auto& d : j["stride"])
    dim_to_pb(d, out->add_stride());
  out->set_dtype(j["dtype"].get<std::string>());
  out->set_device(j["device"].get<std::string>());
  if (j.contains("storage"))
    out->set_storage(j["storage"].get<std::string>());
  if (j.contains("storage_offset"))
    out->set_storage_offset(j["storage_offset"].get<int64_t>());
  if (j.contains("storage_bytes"))
    out->set_storage_bytes(j["storage_bytes"].get<int64_t>());
  for (const char* k :
       {"shape", "stride", "dtype", "device", "storage", "storage_offset", "storage_bytes"})
    j.erase(k);
  if (!j.empty())
    out->set_extra_json(canonical_json(j));
}

// A row's value and flag fields in pb::Node, found once.
struct PbNodeField {
  const google::protobuf::FieldDescriptor* value;
  const google::protobuf::FieldDescriptor* flag; // null: none
};

const PbNodeField& pb_field(size_t row) {
  static const std::array<PbNodeField, kNodeFields.size()> fields = [] {
    std::array<PbNodeField, kNodeFields.size()> out{};
    const auto* d = pb::Node::descriptor();
    for (size_t i = 0; i < kNodeFields.size(); ++i)
      out[i] = {d->FindFieldByNumber(static_cast<int>(kNodeFields[i].proto)),
                kNodeFields[i].proto_flag
                    ? d->FindFieldByNumber(static_cast<int>(kNodeFields[i].proto_flag))
                    : nullptr};
    return out;
  }();
  return fields[row];
}

template <typename M> const M& item(const pb::Node& n, const PbNodeField& p, int i) {
  return static_cast<const M&>(n.GetReflection()->GetRepeatedMessage(n, p.value, i));
}
template <typename M> M* add_item(pb::Node* n, const PbNodeField& p) {
  return static_cast<M*>(n->GetReflection()->AddMessage(n, p.value));
}

json node_from_pb(const pb::Node& n) {
  const std::string where = "nodes." + n.name();
  const auto* r = n.GetReflection();
  json j = json::object();
  merge_extra(j, n.extra_json(), where, 3);
  for (size_t row = 0; row < kNodeFields.size(); ++row) {
    const NodeField& f = kNodeFields[row];
    const PbNodeField& p = pb_field(row);
    const std::string key(f.key);
    const int size = p.value->is_repeated() ? r->FieldSize(n, p.value) : 0;
    switch (f.kind) {
    case NodeFieldKind::Name:
    case NodeFieldKind::OpName:
    case NodeFieldKind::Text:
      j[key] = r->GetString(n, p.value);
      break;
    case NodeFieldKind::ValueList: {
      json a = json::array();
      for (int i = 0; i < size; ++i)
        a.push_back(value_from_pb(item<pb::Value>(n, p, i), 5, n.name(), key.c_str()));
      j[key] = a;
      break;
    }
    case NodeFieldKind::ValueMap: {
      json o = json::object();
      for (int i = 0; i < size; ++i) {
        const auto& kv = item<pb::Kwarg>(n, p, i);
        o[kv.key()] = value_from_pb(kv.value(), 5, n.name(), key.c_str());
      }
      j[key] = o;
      break;
    }
    case NodeFieldKind::TensorMetas: {
      const int kind = r->GetEnumValue(n, p.flag);
      if (kind == pb::VAL_SINGLE) {
        j[key] = size > 0 && item<pb::MaybeTensorMeta>(n, p, 0).has_meta()
                     ? meta_from_pb(item<pb::MaybeTensorMeta>(n, p, 0).meta(), where, 4)
                     : json();
      } else if (kind == pb::VAL_LIST) {
        json a = json::array();
        for (int i = 0; i < size; ++i) {
          const auto& m = item<pb::MaybeTensorMeta>(n, p, i);
          a.push_back(m.has_meta() ? meta_from_pb(m.meta(), where, 5) : json());
        }
        j[key] = a;
      } else {
        j[key] = nullptr;
      }
      break;
    }
    case NodeFieldKind::TextList:
    case NodeFieldKind::NodeNames:
      if (p.flag ? r->GetBool(n, p.flag) : size > 0) {
        json a = json::array();
        for (int i = 0; i < size; ++i)
          a.push_back(r->GetRepeatedString(n, p.value, i));
        j[key] = a;
      }
      break;
    case NodeFieldKind::Flag:
      if (r->HasField(n, p.value))
        j[key] = r->GetBool(n, p.value);
      break;
    case NodeFieldKind::MutatedArgs:
      if (r->GetBool(n, p.flag)) {
        json m = json::array();
        for (int i = 0; i < size; ++i) {
          const auto& a = item<pb::MutatedArg>(n, p, i);
          if (a.which_case() == pb::MutatedArg::kKwarg)
            m.push_back("kwarg:" + a.kwarg());
          else
            m.push_back(a.position());
        }
        j[key] = m;
      }
      break;
    case NodeFieldKind::AnyJson:
      if (const std::string text = r->GetString(n, p.value); !text.empty())
        j[key] = parse_extra(text, where + "." + key, 4);
      break;
    }
  }
  return j;
}

void node_to_pb(json j, pb::Node* out) {
  const auto* r = out->GetReflection();
  for (size_t row = 0; row < kNodeFields.size(); ++row) {
    const NodeField& f = kNodeFields[row];
    const auto it = j.find(std::string(f.key));
    if (it == j.end())
      continue;
    const json& v = *it;
    const PbNodeField& p = pb_field(row);
    switch (f.kind) {
    case NodeFieldKind::Name:
    case NodeFieldKind::OpName:
    case NodeFieldKind::Text:
      r->SetString(out, p.value, v.get<std::string>());
      break;
    case NodeFieldKind::ValueList:
      for (const auto& a : v)
        value_to_pb(a, add_item<pb::Value>(out, p));
      break;
    case NodeFieldKind::ValueMap:
      for (const auto& [k, x] : v.items()) {
        auto* kw = add_item<pb::Kwarg>(out, p);
        kw->set_key(k);
        value_to_pb(x, kw->mutable_value());
      }
      break;
    case NodeFieldKind::TensorMetas:
      if (v.is_array()) {
        r->SetEnumValue(out, p.flag, pb::VAL_LIST);
        for (const auto& m : v) {
          auto* slot = add_item<pb::MaybeTensorMeta>(out, p);
          if (!m.is_null())
            meta_to_pb(m, slot->mutable_meta());
        }
      } else if (v.is_object()) {
        r->SetEnumValue(out, p.flag, pb::VAL_SINGLE);
        meta_to_pb(v, add_item<pb::MaybeTensorMeta>(out, p)->mutable_meta());
      }
      break;
    case NodeFieldKind::TextList:
    case NodeFieldKind::NodeNames:
      if (p.flag)
        r->SetBool(out, p.flag, true);
      for (const auto& t : v)
        r->AddString(out, p.value, t.get<std::string>());
      break;
    case NodeFieldKind::Flag:
      r->SetBool(out, p.value, v.get<bool>());
      break;
    case NodeFieldKind::MutatedArgs:
      r->SetBool(out, p.flag, true);
      for (const auto& m : v) {
        auto* a = add_item<pb::MutatedArg>(out, p);
        if (m.is_string())
          a->set_kwarg(m.get<std::string>().substr(6));
        else
          a->set_position(m.get<int64_t>());
      }
      break;
    case NodeFieldKind::AnyJson:
      r->SetString(out, p.value, canonical_json(v));
      break;
    }
  }
  for (std::string_view k : kNodeFieldKeys)
    j.erase(std::string(k));
  if (!j.empty())
    out->set_extra_json(canonical_json(j));
}

} // namespace

namespace {

GraphError malformed() {
  return GraphError("", "", "malformed protobuf: cannot parse as overlap_sched.pb.Graph");
}

// The top-level fields other than the nodes, as the document the JSON
// reader's builder finishes a graph from.
json header_document(const std::string& header_bytes) {
  pb::Graph p;
  if (!p.ParseFromString(header_bytes))
    throw malformed();
  json doc = json::object();
  merge_extra(doc, p.extra_json(), "extra_json", 1);
  doc["format"] = p.format();
  doc["version"] = p.version();
  doc["name"] = p.name();
  doc["rank"] = p.rank();
  doc["world_size"] = p.world_size();
  json pgs = json::object();
  for (const auto& pg : p.process_groups()) {
    json g = json::object();
    merge_extra(g, pg.extra_json(), "process_groups." + pg.name(), 3);
    g["ranks"] = std::vector<int64_t>(pg.ranks().begin(), pg.ranks().end());
    pgs[pg.name()] = g;
  }
  doc["process_groups"] = pgs;
  if (!p.hardware_json().empty())
    doc["hardware"] = parse_extra(p.hardware_json(), "hardware", 2);
  doc["nodes"] = json::array();
  return doc;
}

// The general path: nodes are parsed as messages one at a time, each passes
// through a JSON value and the JSON reader's checks; the other fields are
// collected and parsed as a Graph message without nodes. So the whole graph
// never exists as a protobuf message or a JSON tree.
Graph read_proto_general(std::string_view bytes, const ReadOptions& opts) {
  namespace wire = google::protobuf::internal;
  google::protobuf::io::CodedInputStream in(reinterpret_cast<const uint8_t*>(bytes.data()),
                                            static_cast<int>(bytes.size()));
  in.SetTotalBytesLimit(INT32_MAX);
  // A list argument is two messages deep per level (Value, ValueList): room
  // for lists past the JSON form's limit, so those get its clear error
  // rather than "cannot parse"; still far from the stack's end.
  in.SetRecursionLimit(4 * kMaxJsonDepth);
  std::string header_bytes;
  google::protobuf::io::StringOutputStream header_stream(&header_bytes);
  JsonGraphBuilder builder(opts);
  pb::Node node;
  {
    google::protobuf::io::CodedOutputStream header(&header_stream);
    while (uint32_t tag = in.ReadTag()) {
      if (wire::WireFormatLite::GetTagFieldNumber(tag) == pb::Graph::kNodesFieldNumber &&
          wire::WireFormatLite::GetTagWireType(tag) ==
              wire::WireFormatLite::WIRETYPE_LENGTH_DELIMITED) {
        uint32_t length = 0;
        // A length of 2^31 or more would turn negative: PushLimit reads that as "no limit".
        if (!in.ReadVarint32(&length) || length > static_cast<uint32_t>(INT32_MAX) ||
            length > bytes.size())
          throw malformed();
        auto limit = in.PushLimit(static_cast<int>(length));
        node.Clear();
        if (!node.ParseFromCodedStream(&in) || !in.ConsumedEntireMessage())
          throw malformed();
        in.PopLimit(limit);
        builder.add_node(node_from_pb(node));
      } else if (!wire::WireFormatLite::SkipField(&in, tag, &header)) {
        throw malformed();
      }
    }
    if (!in.ConsumedEntireMessage())
      throw malformed();
  }
  return builder.finish(header_document(header_bytes));
}

// The fast path (proto_fast_reader.h), or nullopt where it gives up.
std::optional<Graph> read_proto_fast(const InputBytes& input, const ReadOptions& opts) {
  if (!opts.require_topological_order)
    return std::nullopt; // forward references are the general reader's
  std::optional<Graph> g;
  try {
    std::optional<ProtoFastNodes> fast =
        read_proto_nodes_fast(input.view(), kParallelReadMinNodes,
                              [&input](size_t begin, size_t end) { input.done_with(begin, end); });
    if (!fast)
      return std::nullopt;
    JsonGraphBuilder builder(opts);
    builder.adopt_nodes(std::move(fast->nodes), std::move(fast->names));
    g = builder.assemble(header_document(fast->header));
  } catch (const std::exception&) {
    return std::nullopt;
  }
  // Read, but invalid: the general reader would build the same graph and
  // find the same fault, so it is not read again.
  validate_graph(*g, true);
  return g;
}

} // namespace

Graph graph_from_proto_bytes(std::string_view bytes, const ReadOptions& opts) {
  return graph_from_proto_input(InputBytes::borrow(bytes), opts);
}

Graph graph_from_proto_input(const InputBytes& input, const ReadOptions& opts) {
  if (std::optional<Graph> g = read_proto_fast(input, opts))
    return std::move(*g);
  return read_proto_general(input.view(), opts);
}

namespace {

std::string serialize_deterministic(const google::protobuf::MessageLite& m) {
  std::string out;
  google::protobuf::io::StringOutputStream sos(&out);
  google::protobuf::io::CodedOutputStream cos(&sos);
  cos.SetSerializationDeterministic(true);
  m.SerializeToCodedStream(&cos);
  return out;
}

} // namespace

namespace {

void write_proto(const Graph& g, const std::function<void(std::string_view)>& emit, bool direct) {
  // Fields in number order, as one deterministic serialization of the whole
  // message would write them: 1-7, the nodes (8) one by one, then 9.
  json doc = graph_header_to_json(g);
  pb::Graph head;
  head.set_format(doc["format"].get<std::string>());
  head.set_version(doc["version"].get<int64_t>());
  head.set_name(doc["name"].get<std::string>());
  head.set_rank(doc["rank"].get<int64_t>());
  head.set_world_size(doc["world_size"].get<int64_t>());
  for (const auto& [name, pg] : doc["process_groups"].items()) {
    auto* out = head.add_process_groups();
    out->set_name(name);
    for (const auto& r : pg["ranks"])
      out->add_ranks(r.get<int64_t>());
    json extra = pg;
    extra.erase("ranks");
    if (!extra.empty())
      out->set_extra_json(canonical_json(extra));
  }
  if (doc.contains("hardware"))
    head.set_hardware_json(canonical_json(doc["hardware"]));
  emit(serialize_deterministic(head));

  namespace wire = google::protobuf::internal;
  const uint32_t tag = wire::WireFormatLite::MakeTag(
      pb::Graph::kNodesFieldNumber, wire::WireFormatLite::WIRETYPE_LENGTH_DELIMITED);
  // Chunks of nodes on two threads for big graphs (text/chunked_render.h).
  render_in_order(
      g.nodes.size(), kNodesPerChunk, kParallelWriteMinNodes,
      [&](size_t begin, size_t end_node, std::string& buffer) {
        std::string body;
        pb::Node node;
        for (size_t i = begin; i < end_node; ++i) {
          const Node& n = g.nodes[i];
          if (direct) {
            append_node_proto(buffer, n, g);
            continue;
          }
          node.Clear();
          node_to_pb(node_to_json(n, g), &node);
          body.clear();
          {
            google::protobuf::io::StringOutputStream sos(&body);
            google::protobuf::io::CodedOutputStream cos(&sos);
            cos.SetSerializationDeterministic(true);
            node.SerializeToCodedStream(&cos);
          }
          // Tag and length into a small array: a stream over `buffer` would
          // zero its whole spare capacity for every node.
          uint8_t head_bytes[16];
          uint8_t* end = google::protobuf::io::CodedOutputStream::WriteTagToArray(tag, head_bytes);
          end = google::protobuf::io::CodedOutputStream::WriteVarint32ToArray(
              static_cast<uint32_t>(body.size()), end);
          buffer.append(reinterpret_cast<const char*>(head_bytes),
                        static_cast<size_t>(end - head_bytes));
          buffer += body;
        }
      },
      emit);

  json extra = doc;
  for (const char* k :
       {"format", "version", "name", "rank", "world_size", "process_groups", "hardware"})
    extra.erase(k);
  if (!extra.empty()) {
    pb::Graph tail;
    tail.set_extra_json(canonical_json(extra));
    emit(serialize_deterministic(tail));
  }
}

} // namespace

void write_graph_proto(const Graph& g, const std::function<void(std::string_view)>& emit) {
  write_proto(g, emit, true);
}

std::string graph_to_proto_bytes(const Graph& g) {
  std::string out;
  write_graph_proto(g, [&](std::string_view piece) { out.append(piece); });
  return out;
}

std::string graph_to_proto_bytes_general(const Graph& g) {
  std::string out;
  write_proto(
      g, [&](std::string_view piece) { out.append(piece); }, false);
  return out;
}

Graph graph_from_proto_bytes_general(std::string_view bytes, const ReadOptions& opts) {
  return read_proto_general(bytes, opts);
}

} // namespace osched
