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

} // namespace osched
