#include "ops/op_table.h"
#include "ops/op_writes.h"

#include "ops/target_traits.h"

#include <algorithm>
#include <array>

namespace osched {
namespace {

// Operators with a FLOP formula in torch.utils.flop_counter's registry.
constexpr std::array<std::string_view, 29> kComputePackets = {
    "aten.mm",
    "aten.addmm",
    "aten.bmm",
    "aten.baddbmm",
    "aten._scaled_mm",
    "aten._grouped_mm",
    "aten._scaled_grouped_mm",
    "aten.convolution",
    "aten._convolution",
    "aten.cudnn_convolution",
    "aten._slow_conv2d_forward",
    "aten.convolution_backward",
    "aten._scaled_dot_product_efficient_attention",
    "aten._scaled_dot_product_efficient_attention_backward",
    "aten._scaled_dot_product_flash_attention",
    "aten._scaled_dot_product_flash_attention_backward",
    "aten._scaled_dot_product_cudnn_attention",
    "aten._scaled_dot_product_cudnn_attention_backward",
    "aten._scaled_dot_product_flash_attention_for_cpu",
    "aten._scaled_dot_product_flash_attention_for_cpu_backward",
    "aten._efficient_attention_forward",
    "aten._efficient_attention_backward",
    "aten._flash_attention_forward",
    "aten._flash_attention_backward",
    "aten._scaled_dot_product_fused_attention_overrideable",
    "aten._scaled_dot_product_fused_attention_overrideable_backward",
    "aten.cudnn_convolution_transpose",
    "higher_order.flex_attention",
    "higher_order.flex_attention_backward",
};

// Views the schemas (ops/op_writes.h) cannot name: FX's getitem on a
// multi-output node (exporters may keep it as a node).
constexpr std::array<std::string_view, 3> kViewPackets = {
    "getitem",
    "operator.getitem",
    "_operator.getitem",
};

// Ops whose schema says their output may alias the input, which in the
// graphs that print them copy: each returns self only when nothing is to
// be done (the layout, device or dtype already right), and a graph keeps
// such a call because something is.
constexpr std::array<std::string_view, 11> kCopyingAliasPackets = {
    "aten.contiguous",                  // copies unless already contiguous
    "aten.to",                          // copies unless dtype and device already match
    "aten.cpu",                         // copies unless already on the CPU
    "aten.cuda",                        // copies unless already on the GPU
    "aten.pin_memory",                  // copies into pinned memory
    "aten.coalesce",                    // a sparse tensor's coalesced copy
    "aten.resolve_conj",                // materializes a conjugate view
    "aten.resolve_neg",                 // materializes a negative view
    "aten._autocast_to_full_precision", // casts under autocast
    "aten._autocast_to_reduced_precision",
    "aten.as_tensor", // copies unless dtype and device match
};

// Ops that read only a tensor's metadata (sizes, strides), never its data.
constexpr std::array<std::string_view, 10> kMetadataPackets = {
    "aten.sym_size",      "aten.sym_stride",     "aten.sym_numel", "aten.sym_storage_offset",
    "aten.size",          "aten.stride",         "aten.numel",     "aten.dim",
    "aten.is_contiguous", "aten.storage_offset",
};

constexpr std::array<std::string_view, 63> kPointwisePackets = {
    "prims.fma", // inductor_prims.py: (a * b) + c, one rounding
    "aten.add",
    "aten.sub",
    "aten.mul",
    "aten.div",
    "aten.neg",
    "aten.relu",
    "aten.gelu",
    "aten.silu",
    "aten.sigmoid",
    "aten.tanh",
    "aten.exp",
    "aten.log",
    "aten.rsqrt",
    "aten.sqrt",
    "aten.pow",
    "aten.where",
    "aten.abs",
    "aten.reciprocal",
    "aten.clamp",
    "aten.clamp_min",
    "aten.clamp_max",
    "aten.maximum",
    "aten.minimum",
    "aten.eq",
    "aten.ne",
    "aten.lt",
    "aten.le",
    "aten.gt",
    "aten.ge",
    "aten.logical_and",
    "aten.logical_or",
    "aten.logical_not",
    "aten.bitwise_and",
    "aten.bitwise_or",
    "aten.sin",
    "aten.cos",
    "aten.erf",
    "aten.log1p",
    "aten.expm1",
    "aten.sign",
    "aten.floor",
    "aten.ceil",
    "aten.round",
    "aten.trunc",
    "aten.fmod",
    "aten.remainder",
    "aten.lerp",
    "aten.addcmul",
    "aten.addcdiv",
    "aten.gelu_backward",
    "aten.silu_backward",
    "aten.sigmoid_backward",
    "aten.tanh_backward",
    "aten.threshold_backward",
    "aten.hardtanh",
    "aten.leaky_relu",
    "aten.masked_fill",
    "aten.fill",
    "aten.copy",
    "prims.convert_element_type",
    "aten.isnan",
    "aten.rsub",
};

template <size_t N> bool contains(const std::array<std::string_view, N>& arr, std::string_view v) {
  return std::find(arr.begin(), arr.end(), v) != arr.end();
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
  return contains(kComputePackets, overload_packet(t));
}
bool is_view_target(std::string_view t) {
  const std::string_view p = overload_packet(t);
  if (contains(kCopyingAliasPackets, p))
    return false;
  return is_schema_view(p) || contains(kViewPackets, p);
}
bool is_pointwise_target(std::string_view t) {
  return contains(kPointwisePackets, overload_packet(t));
}

bool is_metadata_target(std::string_view t) {
  return contains(kMetadataPackets, overload_packet(t));
}

bool is_metadata_node(const Node& n) {
  return n.op == NodeOp::CallFunction && target_has(n.target, target_bit::kMetadata);
}

bool is_getitem_target(std::string_view t) {
  return t == "getitem" || t == "operator.getitem" || t == "_operator.getitem";
}

bool is_reduction_target(std::string_view t) {
  const std::string_view p = overload_packet(t);
  return p == "aten.sum" || p == "aten.mean" || p == "aten.amax" || p == "aten.amin" ||
         p == "aten.prod" || p == "aten.var" || p == "aten.any" || p == "aten.all";
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
