// Shape rules for matmuls, grouped matmuls.

#include "fx/shape_rules.h"

#include <algorithm>
#include <array>
#include <string_view>
#include <unordered_map>

#include "ops/collective.h"
#include "ops/op_table.h"

namespace osched::shape_rules {

namespace {

// torch's _grouped_mm: 2-D x 3-D -> [M, N]; 3-D x 2-D -> [M, N]; 3-D x 3-D
// -> [G, M, N]; 2-D x 2-D (a weight gradient) -> [groups of offs, M, N].
std::optional<InferredVal> grouped_mm(const Ctx& c) {
  const TensorMeta* a = c.meta(0);
  const TensorMeta* b = c.meta(1);
  if (!a || !b)
    return std::nullopt;
  std::vector<Dim> shape;
  const size_t ra = a->shape.size(), rb = b->shape.size();
  if (ra == 2 && rb == 3) {
    shape = {a->shape[0], b->shape[2]};
  } else if (ra == 3 && rb == 2) {
    shape = {a->shape[1], b->shape[1]};
  } else if (ra == 3 && rb == 3) {
    shape = {a->shape[0], a->shape[1], b->shape[2]};
  } else if (ra == 2 && rb == 2) {
    const TensorMeta* offs = c.meta(2);
    if (!offs || offs->shape.size() != 1)
      return std::nullopt;
    shape = {offs->shape[0], a->shape[0], b->shape[1]};
  } else {
    return std::nullopt;
  }
  DType dtype = dtype_value(c.arg(4, "out_dtype")).value_or(a->dtype);
  return single(fresh(std::move(shape), dtype, a->device));
}

} // namespace

std::optional<InferredVal> matmul(const Ctx& c, std::string_view p, const TensorMeta*) {
  size_t a_pos = (p == "aten.addmm" || p == "aten.baddbmm") ? 1 : 0;
  const TensorMeta* a = c.meta(a_pos);
  const TensorMeta* b = c.meta(a_pos + 1);
  if (!a || !b || a->shape.size() < 2 || b->shape.size() < 2)
    return std::nullopt;
  std::vector<Dim> shape(a->shape.begin(), a->shape.end() - 1);
  shape.push_back(b->shape.back());
  DType dtype = a->dtype;
  if (auto d = dtype_value(c.arg(p == "aten._scaled_mm" ? 5 : 99, "out_dtype")))
    dtype = *d;
  return single(fresh(std::move(shape), dtype, a->device));
}

// aten._grouped_mm
std::optional<InferredVal> rule_grouped_mm(const Ctx& c, std::string_view, const TensorMeta*) {
  return grouped_mm(c);
}

} // namespace osched::shape_rules
