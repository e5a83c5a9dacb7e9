// Shape rules for attention: SDPA, flash and efficient kernels, flex.

#include "fx/shape_rules.h"

#include <algorithm>
#include <array>
#include <string_view>
#include <unordered_map>

#include "ops/collective.h"
#include "ops/op_table.h"

namespace osched::shape_rules {

namespace {

// A backward's gradients: one like each input, in order.
std::vector<std::optional<TensorMeta>> gradients_like(const std::vector<const TensorMeta*>& ins) {
  std::vector<std::optional<TensorMeta>> outs;
  for (const auto* m : ins) { // empty_like(query), ... (flash, cudnn)
    TensorMeta g = fresh(m->shape, m->dtype, m->device);
    g.stride = preserved_strides(*m);
    outs.push_back(std::move(g));
  }
  return outs;
}

// Attention's output: the query's shape with the value's last dim, laid out
// as the query is.
TensorMeta attention_output(const TensorMeta& q, const TensorMeta& v) {
  std::vector<Dim> shape = q.shape;
  shape.back() = v.shape.back();
  TensorMeta out = fresh(shape, q.dtype, q.device);
  out.stride = matching_layout(q, shape);
  return out;
}

} // namespace

std::optional<InferredVal> attention(const Ctx& c, std::string_view p) {
  const bool backward = p.find("backward") != std::string_view::npos;
  const TensorMeta* q = c.meta(backward ? 1 : 0);
  const TensorMeta* k = c.meta(backward ? 2 : 1);
  const TensorMeta* v = c.meta(backward ? 3 : 2);
  if (!q || !k || !v || q->shape.size() < 2)
    return std::nullopt;
  std::vector<std::optional<TensorMeta>> outs;
  if (backward) {
    outs = gradients_like({q, k, v});
    if (p.find("efficient") != std::string_view::npos) {
      // empty_permuted(..., (0, 2, 1, 3)): [B, H, S, D] stored as [B, S, H, D].
      for (auto& g : outs)
        if (g && g->shape.size() == 4 && concrete_numel(g->shape)) {
          const std::vector<Dim> physical = {g->shape[0], g->shape[2], g->shape[1], g->shape[3]};
          const std::vector<Dim> st = contiguous_strides(physical);
          g->stride = {st[0], st[2], st[1], st[3]};
        }
      outs.emplace_back();
    }
    return multi(std::move(outs));
  }
  if (p == "aten._scaled_dot_product_flash_attention_for_cpu") {
    // (empty_like(query), logsumexp empty([B, L, H]).transpose(1, 2))
    if (q->shape.size() < 3 || !concrete_numel(q->shape))
      return std::nullopt;
    TensorMeta out = fresh(q->shape, q->dtype, q->device);
    out.stride = preserved_strides(*q);
    const Dim& heads = q->shape[1];
    const Dim& length = q->shape[2];
    TensorMeta lse = fresh({q->shape[0], heads, length}, DType::Float32, q->device);
    lse.stride = {Dim::of(heads.value * length.value), Dim::of(1), Dim::of(heads.value)};
    if (q->dtype == DType::Float64)
      lse.dtype = DType::Float64;
    return multi({std::move(out), std::move(lse)});
  }
  outs.push_back(attention_output(*q, *v));
  std::vector<Dim> lse(q->shape.begin(), q->shape.end() - 1);
  if (p == "aten._scaled_dot_product_cudnn_attention") {
    // (out, lse [B, H, S, 1], -, -, max_q, max_k, seed [], offset [], -)
    lse.push_back(Dim::of(1));
    outs.push_back(fresh(lse, DType::Float32, q->device));
    outs.emplace_back();
    outs.emplace_back();
    outs.emplace_back();
    outs.emplace_back();
    outs.push_back(fresh({}, DType::Int64, q->device));
    outs.push_back(fresh({}, DType::Int64, q->device));
    outs.emplace_back();
    return multi(std::move(outs));
  }
  outs.push_back(fresh(lse, DType::Float32, q->device));
  size_t total = p.find("efficient") != std::string_view::npos ? 4 : 9;
  while (outs.size() < total)
    outs.emplace_back();
  return multi(std::move(outs));
}

// flex_attention(q, k, v, score_mod, block_mask, scale, kernel_options,
// ...) -> (out [B, H, Lq, Dv], logsumexp [B, H, Lq], max [B, H, Lq]);
// its backward (q, k, v, out, lse, grad_out, grad_lse, ...) -> (dq, dk, dv,
// grads of score_mod's captured buffers).
std::optional<InferredVal> flex_attention(const Ctx& c, bool backward) {
  const TensorMeta* q = c.meta(0);
  const TensorMeta* k = c.meta(1);
  const TensorMeta* v = c.meta(2);
  if (!q || !k || !v || q->shape.size() != 4 || v->shape.empty())
    return std::nullopt;
  std::vector<std::optional<TensorMeta>> outs;
  if (backward) {
    outs = gradients_like({q, k, v});
    outs.emplace_back();
    return multi(std::move(outs));
  }
  outs.push_back(attention_output(*q, *v));
  std::vector<Dim> stat(q->shape.begin(), q->shape.end() - 1);
  outs.push_back(fresh(stat, DType::Float32, q->device));
  outs.push_back(fresh(stat, DType::Float32, q->device));
  return multi(std::move(outs));
}

} // namespace osched::shape_rules
