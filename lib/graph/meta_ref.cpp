#include "graph/meta_ref.h"

#include <array>
#include <cstdint>
#include <deque>
#include <mutex>
#include <unordered_map>

namespace osched {

namespace {

uint64_t mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  return h * 0xff51afd7ed558ccdULL;
}

uint64_t hash_dims(uint64_t h, const DimVector& dims) {
  h = mix(h, dims.size());
  for (const Dim& d : dims)
    h = mix(mix(h, static_cast<uint64_t>(d.value)),
            (static_cast<uint64_t>(static_cast<uint32_t>(d.sym_id)) << 1) | d.has_hint);
  return h;
}

uint64_t hash_meta(const TensorMeta& m) {
  uint64_t h = hash_dims(0, m.shape);
  h = hash_dims(h, m.stride);
  h = mix(h, static_cast<uint64_t>(m.dtype));
  // The interned entry's address names the device; it only picks a bucket.
  h = mix(h, reinterpret_cast<uintptr_t>(&m.device.str()));
  h = mix(h, static_cast<uint64_t>(m.storage_offset.value_or(-1)));
  h = mix(h, static_cast<uint64_t>(m.storage_bytes.value_or(-1)));
  if (m.storage)
    h = mix(h, std::hash<std::string>()(*m.storage));
  return h; // `extra` is rare: left to the equality test
}

bool same_dims(const DimVector& a, const DimVector& b) {
  if (a.size() != b.size())
    return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].value != b[i].value || a[i].sym_id != b[i].sym_id || a[i].has_hint != b[i].has_hint)
      return false;
  return true;
}

// Exact: JSON numbers 1 and 1.0 compare equal in nlohmann::json but are
// written differently, so unknown fields are compared as their text.
bool same_meta(const TensorMeta& a, const TensorMeta& b) {
  return a.dtype == b.dtype && a.device == b.device && same_dims(a.shape, b.shape) &&
         same_dims(a.stride, b.stride) && a.storage_offset == b.storage_offset &&
         a.storage_bytes == b.storage_bytes && a.storage == b.storage &&
         a.extra.is_null() == b.extra.is_null() &&
         (a.extra.is_null() || a.extra.dump() == b.extra.dump());
}

struct Shard {
  std::mutex mu;
  std::unordered_multimap<uint64_t, const TensorMeta*> by_hash;
  std::deque<TensorMeta> store; // stable addresses
};

// Sharded so the parallel readers rarely wait on each other.
constexpr size_t kShards = 16;
std::array<Shard, kShards>& shards() {
  static std::array<Shard, kShards> s;
  return s;
}

} // namespace

const TensorMeta& intern_meta(const TensorMeta& m) {
  const uint64_t h = hash_meta(m);
  // A per-thread cache answers repeats without a lock: the few dozen metas
  // of a graph come back on every node, on two reader threads at once.
  struct Cached {
    uint64_t hash = 0;
    const TensorMeta* meta = nullptr;
  };
  constexpr size_t kSlots = 256;
  thread_local Cached cache[kSlots];
  Cached& slot = cache[h & (kSlots - 1)];
  if (slot.meta && slot.hash == h && same_meta(*slot.meta, m))
    return *slot.meta;
  Shard& shard = shards()[(h >> 59) % kShards];
  std::lock_guard<std::mutex> lock(shard.mu);
  const TensorMeta* found = nullptr;
  auto [first, last] = shard.by_hash.equal_range(h);
  for (auto it = first; it != last && !found; ++it)
    if (same_meta(*it->second, m))
      found = it->second;
  if (!found) {
    found = &shard.store.emplace_back(m);
    shard.by_hash.emplace(h, found);
  }
  slot = {h, found};
  return *found;
}

} // namespace osched
