#include "cost/flops.h"

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
  std::string_view p = overload_packet(n.target);
  const TensorMeta* out = n.output();
  if (p == "aten.mm" || p == "aten._scaled_mm")
    return mm_flops(arg_meta(g, n, 0), arg_meta(g, n, 1));
  if (p == "aten.addmm")
    return mm_flops(arg_meta(g, n, 1), arg_meta(g, n, 2));
  if (p == "aten.bmm")
    return bmm_flops(arg_meta(g, n, 0), arg_meta(g, n, 1));
  if (p == "aten.baddbmm")
    return bmm_flops(arg_meta(g, n, 1), arg_meta(g, n, 2));
  if (p == "aten._grouped_mm" || p == "aten._scaled_grouped_mm") {
    // Upper bound: as if every group used the whole token dimension.
    const TensorMeta* a = arg_meta(g, n, 0);
    const TensorMeta* b = arg_meta(g, n, 1);
    if (!a || !b || !out)
      return 0;
    return 2.0 * static_cast<double>(out->numel()) * dim(a, -1);
  }
  if (p == "aten.convolution" || p == "aten._convolution" || p == "aten.cudnn_convolution" ||
      p == "aten._slow_conv2d_forward" || p == "aten.cudnn_convolution_transpose") {
    bool transposed = p == "aten.cudnn_convolution_transpose";
    if ((p == "aten.convolution" || p == "aten._convolution") && n.args.size() > 6 &&
        n.args[6].kind == Value::Kind::Bool)
      transposed = n.args[6].b;
    return conv_flops(arg_meta(g, n, 0), arg_meta(g, n, 1), out, transposed);
  }
  if (p == "aten.convolution_backward") {
    // grad_input and grad_weight each cost about one forward convolution.
    const TensorMeta* grad_out = arg_meta(g, n, 0);
    const TensorMeta* x = arg_meta(g, n, 1);
    const TensorMeta* w = arg_meta(g, n, 2);
    return 2.0 * conv_flops(x, w, grad_out, false);
  }
  bool attention_fwd = p == "aten._scaled_dot_product_efficient_attention" ||
                       p == "aten._scaled_dot_product_flash_attention" ||
                       p == "aten._scaled_dot_product_cudnn_attention" ||
                       p == "aten._scaled_dot_product_flash_attention_for_cpu" ||
                       p == "aten._scaled_dot_product_fused_attention_overrideable" ||
                       p == "higher_order.flex_attention"; // dense bound: the block mask is opaque
  if (attention_fwd)
    return sdpa_forward_flops(arg_meta(g, n, 0), arg_meta(g, n, 1), arg_meta(g, n, 2));
  if (p == "aten._flash_attention_forward" || p == "aten._efficient_attention_forward") {
    // [b, s, h, d] layout: swap to [b, h, s, d] dims.
    const TensorMeta* q = arg_meta(g, n, 0);
    const TensorMeta* k = arg_meta(g, n, 1);
    const TensorMeta* v = arg_meta(g, n, 2);
    double b = dim(q, 0), sq = dim(q, 1), h = dim(q, 2), d = dim(q, 3), sk = dim(k, 1),
           dv = dim(v, 3);
    return 2.0 * b * h * sq * sk * (d + dv);
  }
  bool attention_bwd = p.size() > 9 && p.substr(p.size() - 9) == "_backward" &&
                       p.find("attention") != std::string_view::npos;
  if (attention_bwd) {
    // Backward runs four matmuls of the forward's size (dq, dk, dv, dscores).
    size_t q =
        (p == "aten._flash_attention_backward" || p == "aten._efficient_attention_backward" ||
         p.find("_scaled_dot_product") != std::string_view::npos)
            ? 1
            : 0;
    const TensorMeta* qm = arg_meta(g, n, q);
    const TensorMeta* km = arg_meta(g, n, q + 1);
    const TensorMeta* vm = arg_meta(g, n, q + 2);
    if (p == "aten._flash_attention_backward" || p == "aten._efficient_attention_backward") {
      double b = dim(qm, 0), sq = dim(qm, 1), h = dim(qm, 2), d = dim(qm, 3), sk = dim(km, 1),
             dv = dim(vm, 3);
      return 2.0 * (2.0 * b * h * sq * sk * (d + dv));
    }
    return 2.0 * sdpa_forward_flops(qm, km, vm);
  }
  return 0;
}

} // namespace osched
