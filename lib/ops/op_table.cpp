#include "ops/op_table.h"

#include <algorithm>

#include "ops/op_registry.h"
#include "ops/op_writes.h"
#include "ops/target_traits.h"

namespace osched {
namespace {

OpClass class_of(std::string_view target) {
  const OpRow* row = find_op(overload_packet(target));
  return row ? row->cls : OpClass::Other;
}

} // namespace

std::string_view overload_packet(std::string_view target) {
  auto first = target.find('.');
  if (first == std::string_view::npos)
    return target;
  auto second = target.find('.', first + 1);
  if (second == std::string_view::npos)
    return target;
  return target.substr(0, second);
}

bool is_compute_target(std::string_view t) {
  return class_of(t) == OpClass::Compute;
}
bool is_view_target(std::string_view t) {
  const OpClass c = class_of(t);
  if (c == OpClass::CopyingAlias)
    return false;
  return c == OpClass::View || is_schema_view(overload_packet(t));
}
bool is_pointwise_target(std::string_view t) {
  return class_of(t) == OpClass::Pointwise;
}

bool is_metadata_target(std::string_view t) {
  return class_of(t) == OpClass::Metadata;
}

bool is_metadata_node(const Node& n) {
  return n.op == NodeOp::CallFunction && target_has(n.target, target_bit::kMetadata);
}

bool is_getitem_target(std::string_view t) {
  return t == "getitem" || t == "operator.getitem" || t == "_operator.getitem";
}

bool is_reduction_target(std::string_view t) {
  return class_of(t) == OpClass::Reduction;
}

bool is_host_only_target(std::string_view t) {
  auto starts = [&](std::string_view p) { return t.substr(0, p.size()) == p; };
  return starts("operator.") || starts("_operator.") || starts("math.") || starts("torch.sym_") ||
         starts("sym_") || starts("aten._assert_scalar") || starts("aten.sym_constrain_range") ||
         starts("aten._functional_sym_constrain_range") || starts("aten._assert_async");
}

bool is_scalar_result_target(std::string_view t) {
  // Host-only work, size reads, and the device-to-host reads that make a
  // Python number of a tensor.
  return is_host_only_target(t) || is_metadata_target(t) ||
         t.substr(0, 24) == "aten._local_scalar_dense" || t == "aten.item.default";
}

bool is_kernel_node(const Node& n) {
  return n.op == NodeOp::CallFunction && !is_view_node(n) && !is_getitem_target(n.target) &&
         !is_metadata_node(n) && !is_host_only_target(n.target) &&
         !target_has(n.target, target_bit::kWait) && !target_has(n.target, target_bit::kCollective);
}

bool is_compute_node(const Node& n) {
  return n.op == NodeOp::CallFunction && target_has(n.target, target_bit::kCompute);
}

bool is_view_node(const Node& n) {
  if (n.op != NodeOp::CallFunction)
    return false;
  if (n.is_view)
    return *n.is_view;
  return target_has(n.target, target_bit::kView);
}

bool is_pointwise_node(const Node& n) {
  const NodeAttrs& attrs = n.attrs();
  if (n.op != NodeOp::CallFunction)
    return false;
  if (attrs.tags)
    return std::find(attrs.tags->begin(), attrs.tags->end(), "pointwise") != attrs.tags->end();
  return target_has(n.target, target_bit::kPointwise);
}

} // namespace osched
