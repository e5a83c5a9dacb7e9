#pragma once

#include <cstddef>
#include <optional>

#include "graph/inline_vector.h"
#include "graph/tensor_meta.h"

namespace osched {

// Returns the process-wide shared copy of `m`, adding it on first sight.
// A graph's tensors repeat a few dozen metas (every layer has the same
// shapes), so nodes point at one copy instead of each holding ~200 bytes:
// on a 1M-node graph that is ~200 MB less to allocate and touch. Thread-safe;
// interned metas live until the process exits.
const TensorMeta& intern_meta(const TensorMeta& m);

// One output's metadata, or none: an optional<TensorMeta> that points at an
// interned copy. Read-only; to change a meta, copy it, edit the copy and
// assign it back.
class MetaRef {
public:
  MetaRef() = default;
  MetaRef(std::nullopt_t) {}
  MetaRef(const TensorMeta& m) : p_(&intern_meta(m)) {}
  MetaRef(const std::optional<TensorMeta>& m) : p_(m ? &intern_meta(*m) : nullptr) {}

  bool has_value() const { return p_ != nullptr; }
  explicit operator bool() const { return p_ != nullptr; }
  const TensorMeta& operator*() const { return *p_; }
  const TensorMeta* operator->() const { return p_; }
  const TensorMeta* get() const { return p_; }
  void reset() { p_ = nullptr; }
  std::optional<TensorMeta> as_optional() const {
    return p_ ? std::optional<TensorMeta>(*p_) : std::nullopt;
  }

  // Interning makes pointer identity value identity.
  friend bool operator==(MetaRef a, MetaRef b) { return a.p_ == b.p_; }
  friend bool operator!=(MetaRef a, MetaRef b) { return a.p_ != b.p_; }

private:
  const TensorMeta* p_ = nullptr;
};

// A node's outputs: almost always one, kept in place.
using MetaList = InlineVector<MetaRef, 1>;

} // namespace osched
