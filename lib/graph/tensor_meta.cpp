#include "graph/tensor_meta.h"

#include <deque>
#include <functional>
#include <mutex>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace osched {

namespace {
struct SymbolTable {
  std::mutex mu;
  std::deque<std::string> names; // stable addresses
  std::unordered_map<std::string, int32_t> ids;
};
SymbolTable& symbols() {
  static SymbolTable t;
  return t;
}
} // namespace

int32_t intern_symbol(std::string_view name) {
  // Per-thread caches answer repeats without the lock: a graph with
  // symbolic sizes names the same few symbols in millions of dims, read and
  // written on two threads at once.
  struct Cached {
    const std::string* name = nullptr;
    int32_t id = -1;
  };
  constexpr size_t kSlots = 256;
  thread_local Cached cache[kSlots];
  Cached& slot = cache[std::hash<std::string_view>{}(name) & (kSlots - 1)];
  if (slot.name && *slot.name == name)
    return slot.id;
  SymbolTable& t = symbols();
  std::lock_guard<std::mutex> lock(t.mu);
  auto [it, fresh] = t.ids.emplace(std::string(name), static_cast<int32_t>(t.names.size()));
  if (fresh)
    t.names.emplace_back(name);
  slot = {&t.names[static_cast<size_t>(it->second)], it->second};
  return it->second;
}

const std::string& symbol_name(int32_t id) {
  static const std::string none;
  if (id < 0)
    return none;
  // Names never move (a deque), so each thread keeps what it has looked up.
  thread_local std::vector<const std::string*> known;
  const size_t at = static_cast<size_t>(id);
  if (at < known.size() && known[at])
    return *known[at];
  const std::string* found = nullptr;
  {
    SymbolTable& t = symbols();
    std::lock_guard<std::mutex> lock(t.mu);
    found = &t.names[at];
  }
  if (known.size() <= at)
    known.resize(at + 1, nullptr);
  known[at] = found;
  return *found;
}

int64_t TensorMeta::numel() const {
  int64_t n = 1;
  for (const auto& d : shape)
    n *= d.hint_or_zero();
  return n;
}

int64_t TensorMeta::nbytes() const {
  return numel() * dtype_itemsize(dtype);
}

int64_t TensorMeta::allocation_bytes() const {
  if (storage_bytes)
    return *storage_bytes;
  if (numel() == 0)
    return 0;
  if (stride.size() != shape.size())
    return nbytes();
  int64_t span = 1;
  for (size_t i = 0; i < shape.size(); ++i)
    span += (shape[i].hint_or_zero() - 1) * stride[i].hint_or_zero();
  return span * dtype_itemsize(dtype);
}

std::string TensorMeta::size_fault() const {
  const int64_t item = dtype_itemsize(dtype);
  int64_t n = 1;
  for (const auto& d : shape)
    if (__builtin_mul_overflow(n, d.hint_or_zero(), &n) || n > kMaxTensorBytes)
      return "shape";
  int64_t bytes = 0;
  if (__builtin_mul_overflow(n, item, &bytes) || bytes > kMaxTensorBytes)
    return "shape";
  if (storage_bytes && *storage_bytes > kMaxTensorBytes)
    return "storage_bytes";
  if (n == 0 || stride.size() != shape.size())
    return "";
  int64_t span = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    int64_t step = 0;
    if (__builtin_mul_overflow(shape[i].hint_or_zero() - 1, stride[i].hint_or_zero(), &step) ||
        __builtin_add_overflow(span, step, &span) || span > kMaxTensorBytes)
      return "stride";
  }
  if (__builtin_mul_overflow(span, item, &span) || span > kMaxTensorBytes)
    return "stride";
  return "";
}

bool TensorMeta::has_unbacked_dims() const {
  for (const auto& d : shape)
    if (!d.is_known())
      return true;
  for (const auto& d : stride)
    if (!d.is_known())
      return true;
  return false;
}

} // namespace osched
