#include "graph/tensor_meta.h"

namespace osched {

int64_t TensorMeta::numel() const {
  int64_t n = 1;
  for (const auto& d : shape) n *= d.hint_or_zero();
  return n;
}

int64_t TensorMeta::nbytes() const { return numel() * dtype_itemsize(dtype); }

int64_t TensorMeta::allocation_bytes() const {
  if (storage_bytes) return *storage_bytes;
  if (numel() == 0) return 0;
  if (stride.size() != shape.size()) return nbytes();
  int64_t span = 1;
  for (size_t i = 0; i < shape.size(); ++i)
    span += (shape[i].hint_or_zero() - 1) * stride[i].hint_or_zero();
  return span * dtype_itemsize(dtype);
}

bool TensorMeta::has_unbacked_dims() const {
  for (const auto& d : shape)
    if (!d.is_known()) return true;
  for (const auto& d : stride)
    if (!d.is_known()) return true;
  return false;
}

}  // namespace osched
