// Shape rules for indexing, gather, embeddings.

#include "fx/shape_rules.h"

#include <algorithm>
#include <array>
#include <string_view>
#include <unordered_map>

#include "ops/collective.h"
#include "ops/op_table.h"

namespace osched::shape_rules {

namespace {

// aten.index.Tensor(x, [idx or None, ...]): the index tensors broadcast
// together; their result dims replace the indexed dims in place when the
// indexed dims are adjacent, else lead. Boolean masks select a
// data-dependent count: no shape.
std::optional<InferredVal> index_tensor(const Ctx& c, const TensorMeta& x) {
  const Value* list = c.arg(1, "indices");
  if (!list || list->kind != Value::Kind::List || list->items().size() > x.shape.size())
    return std::nullopt;
  std::vector<const TensorMeta*> idx;
  std::vector<size_t> at;
  for (size_t i = 0; i < list->items().size(); ++i) {
    const Value& item = list->items()[i];
    if (item.kind == Value::Kind::Null)
      continue;
    const TensorMeta* m = item.is_ref() ? ref_meta(c.g, item) : nullptr;
    if (!m || m->dtype == DType::Bool || m->dtype == DType::UInt8)
      return std::nullopt;
    idx.push_back(m);
    at.push_back(i);
  }
  if (idx.empty())
    return std::nullopt;
  auto b = broadcast(idx);
  if (!b)
    return std::nullopt;
  const bool adjacent = at.back() - at.front() + 1 == at.size();
  std::vector<Dim> shape;
  if (adjacent)
    shape.assign(x.shape.begin(), x.shape.begin() + static_cast<long>(at.front()));
  else
    shape = *b;
  for (size_t i = adjacent ? at.front() : 0; i < x.shape.size(); ++i) {
    if (std::find(at.begin(), at.end(), i) != at.end()) {
      if (adjacent && i == at.front())
        shape.insert(shape.end(), b->begin(), b->end());
      continue;
    }
    shape.push_back(x.shape[i]);
  }
  return single(fresh(std::move(shape), x.dtype, x.device));
}

} // namespace

// aten.embedding
std::optional<InferredVal> rule_embedding(const Ctx& c, std::string_view, const TensorMeta* x) {
  const size_t rank = x->shape.size();
  const TensorMeta* idx = c.meta(1);
  if (!idx || rank != 2)
    return std::nullopt;
  std::vector<Dim> shape = idx->shape;
  shape.push_back(x->shape[1]);
  return single(fresh(std::move(shape), x->dtype, x->device));
}

// aten.embedding_dense_backward
std::optional<InferredVal> rule_embedding_dense_backward(const Ctx& c, std::string_view,
                                                         const TensorMeta* x) {
  const size_t rank = x->shape.size();
  auto rows = c.integer(2, "num_weights", std::nullopt);
  if (!rows || rank == 0)
    return std::nullopt;
  return single(fresh({Dim::of(*rows), x->shape.back()}, x->dtype, x->device));
}

// aten.index
std::optional<InferredVal> rule_index(const Ctx& c, std::string_view, const TensorMeta* x) {
  return index_tensor(c, *x);
}

// aten.gather
std::optional<InferredVal> rule_gather(const Ctx& c, std::string_view, const TensorMeta* x) {
  const TensorMeta* idx = c.meta(2);
  if (!idx)
    return std::nullopt;
  return single(fresh(idx->shape, x->dtype, x->device));
}

} // namespace osched::shape_rules
