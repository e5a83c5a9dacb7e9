// Shape rules for collectives.

#include "fx/shape_rules.h"

#include <algorithm>
#include <array>
#include <string_view>
#include <unordered_map>

#include "ops/collective.h"
#include "ops/op_table.h"

namespace osched::shape_rules {

std::optional<InferredVal> collective(const Ctx& c, const CollectiveSignature& sig) {
  int64_t group_size = 0;
  if (auto s = collective_group_size_arg(c.n))
    group_size = *s;
  else if (auto r = collective_ranks(c.n))
    group_size = static_cast<int64_t>(r->size());
  auto transform = [&](const TensorMeta& in) -> std::optional<TensorMeta> {
    std::vector<Dim> shape = in.shape;
    if (sig.kind == CollectiveKind::AllGather || sig.kind == CollectiveKind::ReduceScatter) {
      if (shape.empty() || group_size <= 0)
        return std::nullopt;
      shape[0] = sig.kind == CollectiveKind::AllGather ? dim_mul(shape[0], group_size)
                                                       : dim_div(shape[0], group_size);
    } else if (sig.kind == CollectiveKind::AllToAll && !shape.empty()) {
      if (auto splits = c.dims(c.arg(1, "output_split_sizes")); splits && !splits->empty()) {
        Dim sum = Dim::of(0);
        for (const auto& d : *splits)
          sum = dim_add(sum, d);
        shape[0] = sum;
      }
    }
    return fresh(std::move(shape), in.dtype, in.device);
  };
  const Value* input = c.arg(0);
  if (!input)
    return std::nullopt;
  if (!sig.coalesced) {
    const TensorMeta* in = c.meta(0);
    if (!in)
      return std::nullopt;
    auto out = transform(*in);
    if (!out)
      return std::nullopt;
    return single(std::move(*out));
  }
  if (input->kind != Value::Kind::List)
    return std::nullopt;
  std::vector<std::optional<TensorMeta>> outs;
  for (const auto& item : input->items()) {
    const TensorMeta* in = item.is_ref() ? ref_meta(c.g, item) : nullptr;
    if (!in)
      return std::nullopt;
    outs.push_back(transform(*in));
  }
  return multi(std::move(outs));
}

} // namespace osched::shape_rules
