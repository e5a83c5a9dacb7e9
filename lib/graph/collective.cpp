#include "graph/collective.h"

#include <array>

#include "graph/op_table.h"

namespace osched {
namespace {

struct Entry {
  std::string_view packet;
  CollectiveSignature sig;
};

constexpr std::array<Entry, 7> kCollectives = {{
    {"_c10d_functional.all_gather_into_tensor", {CollectiveKind::AllGather, false, 2}},
    {"_c10d_functional.all_gather_into_tensor_coalesced", {CollectiveKind::AllGather, true, 2}},
    {"_c10d_functional.reduce_scatter_tensor", {CollectiveKind::ReduceScatter, false, 3}},
    {"_c10d_functional.reduce_scatter_tensor_coalesced",
     {CollectiveKind::ReduceScatter, true, 3}},
    {"_c10d_functional.all_reduce", {CollectiveKind::AllReduce, false, 2}},
    {"_c10d_functional.all_reduce_coalesced", {CollectiveKind::AllReduce, true, 2}},
    {"_c10d_functional.all_to_all_single", {CollectiveKind::AllToAll, false, 3}},
}};

}  // namespace

std::string_view collective_kind_name(CollectiveKind k) {
  switch (k) {
    case CollectiveKind::AllGather: return "all_gather";
    case CollectiveKind::ReduceScatter: return "reduce_scatter";
    case CollectiveKind::AllReduce: return "all_reduce";
    case CollectiveKind::AllToAll: return "all_to_all";
  }
  return "unknown";
}

std::optional<CollectiveSignature> collective_signature(std::string_view target) {
  auto p = overload_packet(target);
  for (const auto& e : kCollectives)
    if (e.packet == p) return e.sig;
  return std::nullopt;
}

bool is_collective_node(const Node& n) {
  return n.op == NodeOp::CallFunction && collective_signature(n.target).has_value();
}

bool is_wait_node(const Node& n) {
  return n.op == NodeOp::CallFunction && overload_packet(n.target) == "_c10d_functional.wait_tensor";
}

std::optional<std::string> collective_group_name(const Node& n) {
  auto sig = collective_signature(n.target);
  if (!sig) return std::nullopt;
  const Value* v = n.kwarg("group_name");
  if (!v && sig->group_name_pos < n.args.size()) v = &n.args[sig->group_name_pos];
  if (!v) return std::nullopt;
  if (v->kind == Value::Kind::String) return v->s;
  if (v->kind == Value::Kind::Int) return std::to_string(v->i);
  return std::nullopt;
}

}  // namespace osched
