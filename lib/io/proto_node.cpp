#include "io/proto_node.h"

#include <algorithm>
#include <climits>

namespace osched {
namespace {

namespace pb = ::overlap_sched::pb;

void value_to_proto(const Value& v, const Graph& g, pb::Value* out) {
  switch (v.kind) {
  case Value::Kind::Null:
    out->set_null_value(true);
    return;
  case Value::Kind::Bool:
    out->set_bool_value(v.b);
    return;
  case Value::Kind::Int:
    out->set_int_value(v.i);
    return;
  case Value::Kind::Float:
    out->set_float_value(v.f);
    return;
  case Value::Kind::String:
    out->set_string_value(v.s);
    return;
  case Value::Kind::List: {
    auto* list = out->mutable_list_value();
    for (const Value& item : v.list)
      value_to_proto(item, g, list->add_items());
    return;
  }
  case Value::Kind::NodeRef: {
    auto* ref = out->mutable_node_ref();
    ref->set_node(g.nodes[v.i].name);
    if (v.ref_output >= 0)
      ref->set_index(v.ref_output);
    return;
  }
  }
}

void dim_to_proto(const Dim& d, pb::Dim* out) {
  if (!d.is_symbolic()) {
    out->set_value(d.value);
    return;
  }
  out->mutable_sym()->set_name(d.sym());
  if (d.has_hint)
    out->mutable_sym()->set_hint(d.value);
}

// Unknown fields as the general path stores them: canonical JSON of what is
// left once the known keys are set and taken out.
void set_extra(const nlohmann::json& extra, std::initializer_list<const char*> known,
               std::string* out) {
  if (extra.is_null())
    return;
  nlohmann::json rest = extra;
  if (rest.is_object())
    for (const char* k : known)
      rest.erase(k);
  if (!rest.empty())
    *out = rest.dump();
}

void meta_to_proto(const TensorMeta& t, pb::TensorMeta* out) {
  for (const Dim& d : t.shape)
    dim_to_proto(d, out->add_shape());
  for (const Dim& d : t.stride)
    dim_to_proto(d, out->add_stride());
  out->set_dtype(std::string(dtype_name(t.dtype)));
  out->set_device(t.device.str());
  if (t.storage)
    out->set_storage(*t.storage);
  if (t.storage_offset)
    out->set_storage_offset(*t.storage_offset);
  if (t.storage_bytes)
    out->set_storage_bytes(*t.storage_bytes);
  set_extra(t.extra,
            {"shape", "stride", "dtype", "device", "storage", "storage_offset", "storage_bytes"},
            out->mutable_extra_json());
}

// ---- reading ----------------------------------------------------------------

bool value_from_proto(const pb::Value& v, const NodeNames& names, Value& out) {
  switch (v.kind_case()) {
  case pb::Value::kBoolValue:
    out = Value::boolean(v.bool_value());
    return true;
  case pb::Value::kIntValue:
    out = Value::integer(v.int_value());
    return true;
  case pb::Value::kFloatValue:
    out = Value::real(v.float_value());
    return true;
  case pb::Value::kStringValue:
    out = Value::string(v.string_value());
    return true;
  case pb::Value::kListValue:
    out.kind = Value::Kind::List;
    out.list.resize(static_cast<size_t>(v.list_value().items_size()));
    for (int i = 0; i < v.list_value().items_size(); ++i)
      if (!value_from_proto(v.list_value().items(i), names, out.list[static_cast<size_t>(i)]))
        return false;
    return true;
  case pb::Value::kNodeRef: {
    const auto& r = v.node_ref();
    if (r.has_index() && (r.index() < 0 || r.index() > std::numeric_limits<int32_t>::max()))
      return false;
    const std::optional<NodeId> id = names.find(r.node());
    if (!id)
      return false;
    out = Value::node_ref(*id, r.has_index() ? static_cast<int32_t>(r.index()) : -1);
    return true;
  }
  default: // null, or no kind at all
    return true;
  }
}

bool dim_from_proto(const pb::Dim& d, Dim& out) {
  if (d.kind_case() == pb::Dim::kSym) {
    if (d.sym().name().empty())
      return false;
    out.sym_id = intern_symbol(d.sym().name());
    out.has_hint = d.sym().has_hint();
    out.value = out.has_hint ? d.sym().hint() : 0;
  } else {
    out.value = d.value();
  }
  return out.value >= 0;
}

bool meta_from_proto(const pb::TensorMeta& m, TensorMeta& t) {
  if (!m.extra_json().empty() || m.shape_size() != m.stride_size())
    return false;
  t.shape.resize(static_cast<size_t>(m.shape_size()));
  t.stride.resize(static_cast<size_t>(m.stride_size()));
  for (int i = 0; i < m.shape_size(); ++i)
    if (!dim_from_proto(m.shape(i), t.shape[static_cast<size_t>(i)]) ||
        !dim_from_proto(m.stride(i), t.stride[static_cast<size_t>(i)]))
      return false;
  auto dtype = parse_dtype(m.dtype());
  if (!dtype)
    return false;
  t.dtype = *dtype;
  t.device = m.device();
  if (m.has_storage())
    t.storage = m.storage();
  if (m.has_storage_offset()) {
    if (m.storage_offset() < 0)
      return false;
    t.storage_offset = m.storage_offset();
  }
  if (m.has_storage_bytes()) {
    if (m.storage_bytes() < 0)
      return false;
    t.storage_bytes = m.storage_bytes();
  }
  return true;
}

} // namespace

void node_to_proto(const Node& n, const Graph& g, pb::Node* out) {
  out->set_name(n.name);
  out->set_op(std::string(node_op_name(n.op)));
  out->set_target(n.target);
  for (const Value& a : n.args)
    value_to_proto(a, g, out->add_args());
  // Keys in sorted order, as the JSON object of the general path has them.
  std::vector<size_t> order(n.kwargs.size());
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return n.kwargs[a].first < n.kwargs[b].first; });
  for (size_t k = 0; k < order.size(); ++k) {
    // A repeated key: the JSON object keeps the last value at its place.
    if (k + 1 < order.size() && n.kwargs[order[k]].first == n.kwargs[order[k + 1]].first)
      continue;
    auto* kw = out->add_kwargs();
    kw->set_key(n.kwargs[order[k]].first);
    value_to_proto(n.kwargs[order[k]].second, g, kw->mutable_value());
  }
  if (n.val_kind == ValKind::List) {
    out->set_val_kind(pb::VAL_LIST);
    for (const auto& m : n.val) {
      auto* slot = out->add_val();
      if (m)
        meta_to_proto(*m, slot->mutable_meta());
    }
  } else if (n.val_kind == ValKind::Single && !n.val.empty() && n.val[0]) {
    out->set_val_kind(pb::VAL_SINGLE);
    meta_to_proto(*n.val[0], out->add_val()->mutable_meta());
  }
  if (n.tags) {
    out->set_has_tags(true);
    for (const std::string& t : *n.tags)
      out->add_tags(t);
  }
  if (n.is_view)
    out->set_is_view(*n.is_view);
  if (n.mutates) {
    out->set_has_mutates(true);
    for (const MutatedArg& a : *n.mutates) {
      auto* m = out->add_mutates();
      if (a.position >= 0)
        m->set_position(a.position);
      else
        m->set_kwarg(a.kwarg);
    }
  }
  for (NodeId d : n.control_deps)
    out->add_control_deps(g.nodes[d].name);
  if (!n.meta.is_null())
    out->set_meta_json(n.meta.dump());
  set_extra(n.extra,
            {"name", "op", "target", "args", "kwargs", "val", "tags", "is_view", "mutates",
             "control_deps", "meta"},
            out->mutable_extra_json());
}

bool node_from_proto(const pb::Node& in, std::vector<Node>& nodes, NodeNames& names) {
  if (!in.meta_json().empty() || !in.extra_json().empty() || in.name().empty())
    return false;
  auto op = parse_node_op(in.op());
  if (!op)
    return false;
  Node& n = nodes.emplace_back();
  n.name = in.name();
  n.op = *op;
  n.target = in.target();
  n.args.resize(static_cast<size_t>(in.args_size()));
  for (int i = 0; i < in.args_size(); ++i)
    if (!value_from_proto(in.args(i), names, n.args[static_cast<size_t>(i)]))
      return false;
  n.kwargs.reserve(static_cast<size_t>(in.kwargs_size()));
  for (const auto& kv : in.kwargs()) {
    n.kwargs.emplace_back(kv.key(), Value());
    if (!value_from_proto(kv.value(), names, n.kwargs.back().second))
      return false;
  }
  std::sort(n.kwargs.begin(), n.kwargs.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  for (size_t i = 1; i < n.kwargs.size(); ++i)
    if (n.kwargs[i - 1].first == n.kwargs[i].first)
      return false; // the general path keeps the last one
  if (in.val_kind() == pb::VAL_LIST) {
    n.val_kind = ValKind::List;
    n.val.resize(static_cast<size_t>(in.val_size()));
    for (int i = 0; i < in.val_size(); ++i)
      if (in.val(i).has_meta() &&
          !meta_from_proto(in.val(i).meta(), n.val[static_cast<size_t>(i)].emplace()))
        return false;
  } else if (in.val_kind() == pb::VAL_SINGLE && in.val_size() > 0 && in.val(0).has_meta()) {
    n.val_kind = ValKind::Single;
    if (!meta_from_proto(in.val(0).meta(), n.val.emplace_back().emplace()))
      return false;
  }
  if (in.has_tags())
    n.tags.emplace(in.tags().begin(), in.tags().end());
  if (in.has_is_view())
    n.is_view = in.is_view();
  if (in.has_mutates()) {
    n.mutates.emplace();
    for (const auto& m : in.mutates()) {
      MutatedArg a;
      if (m.which_case() == pb::MutatedArg::kKwarg) {
        if (m.kwarg().empty())
          return false;
        a.kwarg = m.kwarg();
      } else {
        if (m.position() < 0 || m.position() > INT32_MAX)
          return false;
        a.position = static_cast<int32_t>(m.position());
      }
      n.mutates->push_back(std::move(a));
    }
  }
  for (const std::string& d : in.control_deps()) {
    const std::optional<NodeId> id = names.find(d);
    if (!id)
      return false;
    n.control_deps.push_back(*id);
  }
  return names.index.insert(nodes, static_cast<NodeId>(nodes.size() - 1));
}

} // namespace osched
