#pragma once
// The op registry: every fact the tool keeps about an op packet
// ("aten.mm" for "aten.mm.default"), one row per packet. Its class decides
// how the scheduler and the cost models treat it (ops/op_table.h), its FLOP
// formula how the roofline costs it (cost/flops.h), its shape rule which
// rule family gives its output's metadata when a printed graph carries none
// (fx/shape_rules.h). A new op is one row here, plus the rule or formula
// where it needs a new one (docs/layout.md, "a new op").

#include <cstdint>
#include <string_view>

namespace osched {

enum class OpClass : uint8_t {
  Other,
  Compute,      // a FLOP formula (torch.utils.flop_counter's where it has one)
  View,         // a view the schemas cannot name (getitem on a multi-output node)
  CopyingAlias, // the schema says it may alias, but where a graph keeps it, it copies
  Metadata,     // reads sizes or strides, never data
  Pointwise,
  Reduction,
};

// torch.utils.flop_counter's formulas, by the operand layout they read.
enum class FlopFormula : uint8_t {
  None,
  Mm,      // [m, k] @ [k, n], operands 0 and 1
  Addmm,   // operands 1 and 2
  Bmm,     // [b, m, k] @ [b, k, n], operands 0 and 1
  Baddbmm, // operands 1 and 2
  GroupedMm,
  Convolution,          // input, weight, output spatial size
  ConvolutionGeneric,   // the same, or transposed when argument 6 (`transposed`) says so
  ConvolutionTranspose, // input spatial size
  ConvolutionBackward,
  Attention,             // q, k, v as [b, h, s, d], operands 0-2
  AttentionBackward,     // the same, operands 1-3 (after grad_out)
  AttentionBshd,         // q, k, v as [b, s, h, d], operands 0-2
  AttentionBshdBackward, // the same, operands 1-3
  FlexAttentionBackward, // q, k, v operands 0-2
};

// The shape rule families of fx/shape_rules.h, one value per rule.
enum class ShapeRule : uint8_t {
  None,
  Convert,
  SameShape,
  ViewLike,
  Matmul,
  ValuesAndIndices,
  Split,
  Full,
  Cat,
  Stack,
  NewEmpty,
  Permute,
  Transpose,
  Expand,
  Unsqueeze,
  Squeeze,
  Slice,
  Select,
  Embedding,
  LayerNorm,
  LayerNormBackward,
  IntoInputSizes,
  Dropout,
  ViewAsComplex,
  ViewAsReal,
  Conj,
  EmbeddingDenseBackward,
  GroupedMm,
  ConstantPadNd,
  Index,
  Gather,
  TopK,
  Sort,
  Histc,
  Cumsum,
  DevicePut,
};

struct OpRow {
  std::string_view packet;
  OpClass cls = OpClass::Other;
  FlopFormula flops = FlopFormula::None;
  ShapeRule shape = ShapeRule::None;
};

// The row of an overload packet, or nullptr for an op the registry does
// not know.
const OpRow* find_op(std::string_view packet);

// Every row, in the registry's order (tests, docs).
struct OpRows {
  const OpRow* begin;
  const OpRow* end;
};
OpRows all_ops();

} // namespace osched
