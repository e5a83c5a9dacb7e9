#include "cost/flops.h"

#include "ops/op_registry.h"
#include "ops/op_table.h"

namespace osched {
namespace {

int64_t dim(const TensorMeta* t, int i) {
  if (!t)
    return 0;
  int n = static_cast<int>(t->shape.size());
  if (i < 0)
    i += n;
  return (i >= 0 && i < n) ? t->shape[i].hint_or_zero() : 0;
}

const TensorMeta* arg_meta(const Graph& g, const Node& n, size_t i) {
  return i < n.args.size() ? ref_meta(g, n.args[i]) : nullptr;
}

double mm_flops(const TensorMeta* a, const TensorMeta* b) {
  // [m, k] @ [k, n]
  return 2.0 * dim(a, 0) * dim(a, 1) * dim(b, 1);
}

double bmm_flops(const TensorMeta* a, const TensorMeta* b) {
  // [b, m, k] @ [b, k, n]
  return 2.0 * dim(a, 0) * dim(a, 1) * dim(a, 2) * dim(b, 2);
}

// q: [b, h, s_q, d], k: [b, h, s_k, d], v: [b, h, s_k, d_v]
double sdpa_forward_flops(const TensorMeta* q, const TensorMeta* k, const TensorMeta* v) {
  double b = dim(q, 0), h = dim(q, 1), sq = dim(q, 2), d = dim(q, 3), sk = dim(k, 2),
         dv = dim(v, 3);
  return 2.0 * b * h * sq * sk * d + 2.0 * b * h * sq * sk * dv;
}

// The same with q, k, v as [b, s, h, d] (the flash and efficient kernels).
double bshd_attention_flops(const TensorMeta* q, const TensorMeta* k, const TensorMeta* v) {
  double b = dim(q, 0), sq = dim(q, 1), h = dim(q, 2), d = dim(q, 3), sk = dim(k, 1),
         dv = dim(v, 3);
  return 2.0 * b * h * sq * sk * (d + dv);
}

double conv_flops(const TensorMeta* x, const TensorMeta* w, const TensorMeta* out,
                  bool transposed) {
  if (!x || !w || !out || w->shape.size() < 3)
    return 0;
  double kernel = 1;
  for (size_t i = 2; i < w->shape.size(); ++i)
    kernel *= w->shape[i].hint_or_zero();
  double cout = dim(w, 0), cin_per_group = dim(w, 1);
  const TensorMeta* spatial = transposed ? x : out;
  double flops = 2.0 * dim(spatial, 0) * kernel * cout * cin_per_group;
  for (size_t i = 2; i < spatial->shape.size(); ++i)
    flops *= spatial->shape[i].hint_or_zero();
  return flops;
}

} // namespace

double count_flops(const Graph& g, NodeId id) {
  const Node& n = g.nodes[id];
  const OpRow* row = find_op(overload_packet(n.target));
  if (!row)
    return 0;
  const TensorMeta* out = n.output();
  auto arg = [&](size_t i) { return arg_meta(g, n, i); };
  switch (row->flops) {
  case FlopFormula::None:
    return 0;
  case FlopFormula::Mm:
    return mm_flops(arg(0), arg(1));
  case FlopFormula::Addmm:
    return mm_flops(arg(1), arg(2));
  case FlopFormula::Bmm:
    return bmm_flops(arg(0), arg(1));
  case FlopFormula::Baddbmm:
    return bmm_flops(arg(1), arg(2));
  case FlopFormula::GroupedMm: {
    // Upper bound: as if every group used the whole token dimension.
    const TensorMeta* a = arg(0);
    if (!a || !arg(1) || !out)
      return 0;
    return 2.0 * static_cast<double>(out->numel()) * dim(a, -1);
  }
  case FlopFormula::Convolution:
    return conv_flops(arg(0), arg(1), out, false);
  case FlopFormula::ConvolutionGeneric: {
    const bool transposed = n.args.size() > 6 && n.args[6].kind == Value::Kind::Bool && n.args[6].b;
    return conv_flops(arg(0), arg(1), out, transposed);
  }
  case FlopFormula::ConvolutionTranspose:
    return conv_flops(arg(0), arg(1), out, true);
  case FlopFormula::ConvolutionBackward:
    // grad_input and grad_weight each cost about one forward convolution.
    return 2.0 * conv_flops(arg(1), arg(2), arg(0), false);
  case FlopFormula::Attention: // flex: a dense bound, the block mask is opaque
    return sdpa_forward_flops(arg(0), arg(1), arg(2));
  case FlopFormula::AttentionBshd:
    return bshd_attention_flops(arg(0), arg(1), arg(2));
  // Backward runs four matmuls of the forward's size (dq, dk, dv, dscores).
  case FlopFormula::AttentionBackward:
    return 2.0 * sdpa_forward_flops(arg(1), arg(2), arg(3));
  case FlopFormula::AttentionBshdBackward:
    return 2.0 * bshd_attention_flops(arg(1), arg(2), arg(3));
  case FlopFormula::FlexAttentionBackward:
    return 2.0 * sdpa_forward_flops(arg(0), arg(1), arg(2));
  }
  return 0;
}

} // namespace osched
