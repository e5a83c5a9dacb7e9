#pragma once
// What an op is, from its op registry row (ops/op_registry.h) and its
// schema (ops/op_writes.h): compute (a FLOP formula), a view, pointwise, a
// reduction, a metadata read. Exporter-provided `tags`/`is_view` on a node
// take precedence.

#include <string_view>

#include "graph/graph.h"

namespace osched {

// "aten.mm.default" -> "aten.mm" (the overload packet).
std::string_view overload_packet(std::string_view target);

bool is_compute_target(std::string_view target);
bool is_view_target(std::string_view target);
bool is_pointwise_target(std::string_view target);
// sum, mean, amax, amin, prod, var, any, all.
bool is_reduction_target(std::string_view target);
// sym_size, sym_stride, ...: read sizes known when the input is issued.
bool is_metadata_target(std::string_view target);
bool is_getitem_target(std::string_view target);
// Python-level work on sizes and flags (operator.*, sym_sum, runtime
// asserts on SymInts): no GPU kernel.
bool is_host_only_target(std::string_view target);
// Ops whose result is a Python scalar, SymInt or None, never a tensor
// (sym_size, operator.mul on sizes, _assert_scalar, .item(), ...).
bool is_scalar_result_target(std::string_view target);
// A GPU kernel of its own: a call that is not a view, a selection, a
// metadata read, host-only work, a collective or its wait.
bool is_kernel_node(const Node& n);

// Node-level answers that honour the node's own tags / is_view.
bool is_compute_node(const Node& n);
bool is_view_node(const Node& n);
bool is_pointwise_node(const Node& n);
bool is_metadata_node(const Node& n);
inline bool is_cheap_node(const Node& n) {
  return is_view_node(n) || is_pointwise_node(n);
}

} // namespace osched
