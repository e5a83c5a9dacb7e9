#include "ops/op_registry.h"

#include <unordered_map>

namespace osched {
namespace {

using C = OpClass;
using F = FlopFormula;
using S = ShapeRule;

// One row per packet (tests/test_op_registry.cpp checks it).
constexpr OpRow kOps[] = {
    // Compute: a FLOP formula in torch.utils.flop_counter's registry, or, for
    // the grouped matmuls, the overridable fused attention and the cuDNN
    // transposed convolution, which it does not count, the formula of their
    // plain form (tests/check_op_registry.py).
    {"aten.mm", C::Compute, F::Mm, S::Matmul},
    {"aten.addmm", C::Compute, F::Addmm, S::Matmul},
    {"aten.bmm", C::Compute, F::Bmm, S::Matmul},
    {"aten.baddbmm", C::Compute, F::Baddbmm, S::Matmul},
    {"aten._scaled_mm", C::Compute, F::Mm, S::Matmul},
    {"aten._grouped_mm", C::Compute, F::GroupedMm, S::GroupedMm},
    {"aten._scaled_grouped_mm", C::Compute, F::GroupedMm, S::None},
    {"aten.convolution", C::Compute, F::ConvolutionGeneric, S::None},
    {"aten._convolution", C::Compute, F::ConvolutionGeneric, S::None},
    {"aten.cudnn_convolution", C::Compute, F::Convolution, S::None},
    {"aten._slow_conv2d_forward", C::Compute, F::Convolution, S::None},
    {"aten.convolution_overrideable", C::Compute, F::ConvolutionGeneric, S::None},
    {"aten.convolution_backward", C::Compute, F::ConvolutionBackward, S::None},
    {"aten._scaled_dot_product_efficient_attention", C::Compute, F::Attention, S::None},
    {"aten._scaled_dot_product_efficient_attention_backward", C::Compute, F::AttentionBackward,
     S::None},
    {"aten._scaled_dot_product_flash_attention", C::Compute, F::Attention, S::None},
    {"aten._scaled_dot_product_flash_attention_backward", C::Compute, F::AttentionBackward,
     S::None},
    {"aten._scaled_dot_product_cudnn_attention", C::Compute, F::Attention, S::None},
    {"aten._scaled_dot_product_cudnn_attention_backward", C::Compute, F::AttentionBackward,
     S::None},
    {"aten._scaled_dot_product_flash_attention_for_cpu", C::Compute, F::Attention, S::None},
    {"aten._scaled_dot_product_flash_attention_for_cpu_backward", C::Compute, F::AttentionBackward,
     S::None},
    {"aten._efficient_attention_forward", C::Compute, F::AttentionBshd, S::None},
    {"aten._efficient_attention_backward", C::Compute, F::AttentionBshdBackward, S::None},
    {"aten._flash_attention_forward", C::Compute, F::AttentionBshd, S::None},
    {"aten._flash_attention_backward", C::Compute, F::AttentionBshdBackward, S::None},
    {"aten._scaled_dot_product_fused_attention_overrideable", C::Compute, F::Attention, S::None},
    {"aten._scaled_dot_product_fused_attention_overrideable_backward", C::Compute,
     F::AttentionBackward, S::None},
    {"aten.cudnn_convolution_transpose", C::Compute, F::ConvolutionTranspose, S::None},
    {"higher_order.flex_attention", C::Compute, F::Attention, S::None},
    {"higher_order.flex_attention_backward", C::Compute, F::FlexAttentionBackward, S::None},
    // Views the schemas (ops/op_writes.h) cannot name: FX's getitem on a
    // multi-output node (exporters may keep it as a node).
    {"getitem", C::View, F::None, S::None},
    {"operator.getitem", C::View, F::None, S::None},
    {"_operator.getitem", C::View, F::None, S::None},
    // Ops whose schema says their output may alias the input, which in the
    // graphs that print them copy: each returns self only when nothing is to
    // be done (the layout, device or dtype already right), and a graph keeps
    // such a call because something is.
    {"aten.contiguous", C::CopyingAlias, F::None, S::SameShape}, // copies unless already contiguous
    {"aten.to", C::CopyingAlias, F::None,
     S::Convert},                                    // copies unless dtype and device already match
    {"aten.cpu", C::CopyingAlias, F::None, S::None}, // copies unless already on the CPU
    {"aten.cuda", C::CopyingAlias, F::None, S::None},         // copies unless already on the GPU
    {"aten.pin_memory", C::CopyingAlias, F::None, S::None},   // copies into pinned memory
    {"aten.coalesce", C::CopyingAlias, F::None, S::None},     // a sparse tensor's coalesced copy
    {"aten.resolve_conj", C::CopyingAlias, F::None, S::Conj}, // materializes a conjugate view
    {"aten.resolve_neg", C::CopyingAlias, F::None, S::Conj},  // materializes a negative view
    {"aten._autocast_to_full_precision", C::CopyingAlias, F::None, S::None}, // casts under autocast
    {"aten._autocast_to_reduced_precision", C::CopyingAlias, F::None, S::None},
    {"aten.as_tensor", C::CopyingAlias, F::None, S::None}, // copies unless dtype and device match
    // Ops that read only a tensor's metadata (sizes, strides), never its data.
    {"aten.sym_size", C::Metadata, F::None, S::None},
    {"aten.sym_stride", C::Metadata, F::None, S::None},
    {"aten.sym_numel", C::Metadata, F::None, S::None},
    {"aten.sym_storage_offset", C::Metadata, F::None, S::None},
    {"aten.size", C::Metadata, F::None, S::None},
    {"aten.stride", C::Metadata, F::None, S::None},
    {"aten.numel", C::Metadata, F::None, S::None},
    {"aten.dim", C::Metadata, F::None, S::None},
    {"aten.is_contiguous", C::Metadata, F::None, S::None},
    {"aten.storage_offset", C::Metadata, F::None, S::None},
    // Pointwise.
    {"prims.fma", C::Pointwise, F::None, S::None}, // inductor_prims.py: (a * b) + c, one rounding
    {"aten.add", C::Pointwise, F::None, S::None},
    {"aten.sub", C::Pointwise, F::None, S::None},
    {"aten.mul", C::Pointwise, F::None, S::None},
    {"aten.div", C::Pointwise, F::None, S::None},
    {"aten.neg", C::Pointwise, F::None, S::None},
    {"aten.relu", C::Pointwise, F::None, S::None},
    {"aten.gelu", C::Pointwise, F::None, S::None},
    {"aten.silu", C::Pointwise, F::None, S::None},
    {"aten.sigmoid", C::Pointwise, F::None, S::None},
    {"aten.tanh", C::Pointwise, F::None, S::None},
    {"aten.exp", C::Pointwise, F::None, S::None},
    {"aten.log", C::Pointwise, F::None, S::None},
    {"aten.rsqrt", C::Pointwise, F::None, S::None},
    {"aten.sqrt", C::Pointwise, F::None, S::None},
    {"aten.pow", C::Pointwise, F::None, S::None},
    {"aten.where", C::Pointwise, F::None, S::None},
    {"aten.abs", C::Pointwise, F::None, S::None},
    {"aten.reciprocal", C::Pointwise, F::None, S::None},
    {"aten.clamp", C::Pointwise, F::None, S::None},
    {"aten.clamp_min", C::Pointwise, F::None, S::None},
    {"aten.clamp_max", C::Pointwise, F::None, S::None},
    {"aten.maximum", C::Pointwise, F::None, S::None},
    {"aten.minimum", C::Pointwise, F::None, S::None},
    {"aten.eq", C::Pointwise, F::None, S::None},
    {"aten.ne", C::Pointwise, F::None, S::None},
    {"aten.lt", C::Pointwise, F::None, S::None},
    {"aten.le", C::Pointwise, F::None, S::None},
    {"aten.gt", C::Pointwise, F::None, S::None},
    {"aten.ge", C::Pointwise, F::None, S::None},
    {"aten.logical_and", C::Pointwise, F::None, S::None},
    {"aten.logical_or", C::Pointwise, F::None, S::None},
    {"aten.logical_not", C::Pointwise, F::None, S::None},
    {"aten.bitwise_and", C::Pointwise, F::None, S::None},
    {"aten.bitwise_or", C::Pointwise, F::None, S::None},
    {"aten.sin", C::Pointwise, F::None, S::None},
    {"aten.cos", C::Pointwise, F::None, S::None},
    {"aten.erf", C::Pointwise, F::None, S::None},
    {"aten.log1p", C::Pointwise, F::None, S::None},
    {"aten.expm1", C::Pointwise, F::None, S::None},
    {"aten.sign", C::Pointwise, F::None, S::None},
    {"aten.floor", C::Pointwise, F::None, S::None},
    {"aten.ceil", C::Pointwise, F::None, S::None},
    {"aten.round", C::Pointwise, F::None, S::None},
    {"aten.trunc", C::Pointwise, F::None, S::None},
    {"aten.fmod", C::Pointwise, F::None, S::None},
    {"aten.remainder", C::Pointwise, F::None, S::None},
    {"aten.lerp", C::Pointwise, F::None, S::None},
    {"aten.addcmul", C::Pointwise, F::None, S::None},
    {"aten.addcdiv", C::Pointwise, F::None, S::None},
    {"aten.gelu_backward", C::Pointwise, F::None, S::SameShape},
    {"aten.silu_backward", C::Pointwise, F::None, S::SameShape},
    {"aten.sigmoid_backward", C::Pointwise, F::None, S::SameShape},
    {"aten.tanh_backward", C::Pointwise, F::None, S::SameShape},
    {"aten.threshold_backward", C::Pointwise, F::None, S::SameShape},
    {"aten.hardtanh", C::Pointwise, F::None, S::None},
    {"aten.leaky_relu", C::Pointwise, F::None, S::None},
    {"aten.masked_fill", C::Pointwise, F::None, S::SameShape},
    {"aten.fill", C::Pointwise, F::None, S::SameShape},
    {"aten.copy", C::Pointwise, F::None, S::SameShape},
    {"prims.convert_element_type", C::Pointwise, F::None, S::Convert},
    {"aten.isnan", C::Pointwise, F::None, S::None},
    {"aten.rsub", C::Pointwise, F::None, S::None},
    // Reductions.
    {"aten.sum", C::Reduction, F::None, S::None},
    {"aten.mean", C::Reduction, F::None, S::None},
    {"aten.amax", C::Reduction, F::None, S::None},
    {"aten.amin", C::Reduction, F::None, S::None},
    {"aten.prod", C::Reduction, F::None, S::None},
    {"aten.var", C::Reduction, F::None, S::None},
    {"aten.any", C::Reduction, F::None, S::None},
    {"aten.all", C::Reduction, F::None, S::None},
    // Ops with a shape rule and no class of their own.
    {"aten._to_copy", C::Other, F::None, S::Convert},
    {"aten.index_put", C::Other, F::None, S::SameShape},
    {"aten.index_put_", C::Other, F::None, S::SameShape},
    {"aten._unsafe_index_put", C::Other, F::None, S::SameShape},
    {"aten.scatter", C::Other, F::None, S::SameShape},
    {"aten.scatter_add", C::Other, F::None, S::SameShape},
    {"aten.index_copy", C::Other, F::None, S::SameShape},
    {"aten.slice_scatter", C::Other, F::None,
     S::SameShape}, // self with src written into part of it
    {"aten.select_scatter", C::Other, F::None, S::SameShape},
    {"aten.diagonal_scatter", C::Other, F::None, S::SameShape},
    {"aten.as_strided_scatter", C::Other, F::None, S::SameShape},
    {"aten.clone", C::Other, F::None, S::SameShape},
    {"aten.detach", C::Other, F::None, S::SameShape},
    {"aten.alias", C::Other, F::None, S::SameShape},
    {"aten.copy_", C::Other, F::None, S::SameShape},
    {"aten.fill_", C::Other, F::None, S::SameShape},
    {"aten.zeros_like", C::Other, F::None, S::SameShape},
    {"aten.ones_like", C::Other, F::None, S::SameShape},
    {"aten.empty_like", C::Other, F::None, S::SameShape},
    {"aten.full_like", C::Other, F::None, S::SameShape},
    {"aten.rand_like", C::Other, F::None, S::SameShape},
    {"aten.randn_like", C::Other, F::None, S::SameShape},
    {"aten.lift_fresh_copy", C::Other, F::None, S::SameShape},
    {"aten.bernoulli", C::Other, F::None, S::SameShape},
    {"aten._softmax", C::Other, F::None, S::SameShape},
    {"aten._log_softmax", C::Other, F::None, S::SameShape},
    {"aten._softmax_backward_data", C::Other, F::None, S::SameShape},
    {"aten._log_softmax_backward_data", C::Other, F::None, S::SameShape},
    {"aten.softmax", C::Other, F::None, S::SameShape},
    {"aten.dropout", C::Other, F::None, S::SameShape},
    {"aten.tril", C::Other, F::None, S::SameShape},
    {"aten.triu", C::Other, F::None, S::SameShape},
    {"aten.view", C::Other, F::None, S::ViewLike},
    {"aten.reshape", C::Other, F::None, S::ViewLike},
    {"aten._unsafe_view", C::Other, F::None, S::ViewLike},
    {"aten._reshape_alias", C::Other, F::None, S::ViewLike},
    {"aten.matmul", C::Other, F::None, S::Matmul},
    {"aten.max", C::Other, F::None, S::ValuesAndIndices},
    {"aten.min", C::Other, F::None, S::ValuesAndIndices},
    {"aten.median", C::Other, F::None, S::ValuesAndIndices},
    {"aten.mode", C::Other, F::None, S::ValuesAndIndices},
    {"aten.split", C::Other, F::None, S::Split},
    {"aten.split_with_sizes", C::Other, F::None, S::Split},
    {"aten.chunk", C::Other, F::None, S::Split},
    {"aten.unbind", C::Other, F::None, S::Split},
    {"aten.full", C::Other, F::None, S::Full},
    {"aten.zeros", C::Other, F::None, S::Full},
    {"aten.ones", C::Other, F::None, S::Full},
    {"aten.empty", C::Other, F::None, S::Full},
    {"aten.empty_strided", C::Other, F::None, S::Full},
    {"aten.randn", C::Other, F::None, S::Full},
    {"aten.rand", C::Other, F::None, S::Full},
    {"aten.cat", C::Other, F::None, S::Cat},
    {"aten.stack", C::Other, F::None, S::Stack},
    {"aten.new_empty", C::Other, F::None, S::NewEmpty},
    {"aten.new_zeros", C::Other, F::None, S::NewEmpty},
    {"aten.new_ones", C::Other, F::None, S::NewEmpty},
    {"aten.new_full", C::Other, F::None, S::NewEmpty},
    {"aten.new_empty_strided", C::Other, F::None, S::NewEmpty},
    {"aten.permute", C::Other, F::None, S::Permute},
    {"aten.t", C::Other, F::None, S::Transpose},
    {"aten.transpose", C::Other, F::None, S::Transpose},
    {"aten.expand", C::Other, F::None, S::Expand},
    {"aten.unsqueeze", C::Other, F::None, S::Unsqueeze},
    {"aten.squeeze", C::Other, F::None, S::Squeeze},
    {"aten.slice", C::Other, F::None, S::Slice},
    {"aten.narrow", C::Other, F::None, S::Slice},
    {"aten.select", C::Other, F::None, S::Select},
    {"aten.embedding", C::Other, F::None, S::Embedding},
    {"aten.native_layer_norm", C::Other, F::None, S::LayerNorm},
    {"aten.native_layer_norm_backward", C::Other, F::None, S::LayerNormBackward},
    {"aten.select_backward", C::Other, F::None, S::IntoInputSizes},
    {"aten.slice_backward", C::Other, F::None, S::IntoInputSizes},
    {"aten.diagonal_backward", C::Other, F::None, S::IntoInputSizes},
    {"aten.native_dropout", C::Other, F::None, S::Dropout},
    {"aten.view_as_complex", C::Other, F::None, S::ViewAsComplex},
    {"aten.view_as_real", C::Other, F::None, S::ViewAsReal},
    {"aten._conj", C::Other, F::None, S::Conj},
    {"aten.conj", C::Other, F::None, S::Conj},
    {"aten._neg_view", C::Other, F::None, S::Conj},
    {"aten.conj_physical", C::Other, F::None, S::Conj},
    {"aten.embedding_dense_backward", C::Other, F::None, S::EmbeddingDenseBackward},
    {"aten.constant_pad_nd", C::Other, F::None, S::ConstantPadNd},
    {"aten.index", C::Other, F::None, S::Index},
    {"aten.gather", C::Other, F::None, S::Gather},
    {"aten.topk", C::Other, F::None, S::TopK},
    {"aten.sort", C::Other, F::None, S::Sort},
    {"aten.histc", C::Other, F::None, S::Histc},
    {"aten.cumsum", C::Other, F::None, S::Cumsum},
    {"aten.cumprod", C::Other, F::None, S::Cumsum},
    {"prims.device_put", C::Other, F::None, S::DevicePut},
};

} // namespace

const OpRow* find_op(std::string_view packet) {
  static const auto* index = [] {
    auto* m = new std::unordered_map<std::string_view, const OpRow*>;
    for (const OpRow& r : kOps)
      m->emplace(r.packet, &r);
    return m;
  }();
  const auto it = index->find(packet);
  return it == index->end() ? nullptr : it->second;
}

OpRows all_ops() {
  return {std::begin(kOps), std::end(kOps)};
}

} // namespace osched
