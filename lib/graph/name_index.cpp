#include "graph/name_index.h"

#include <algorithm>
#include <functional>

#include "graph/graph.h"

namespace osched {
namespace {

uint32_t hash_name(std::string_view name) {
  const size_t h = std::hash<std::string_view>{}(name);
  return static_cast<uint32_t>(h ^ (h >> 32));
}

} // namespace

void NameIndex::build(const std::vector<Node>& nodes) {
  reserve(nodes.size());
  const NodeId n = static_cast<NodeId>(nodes.size());
  for (NodeId at = 0; (at = insert_range(nodes, at, n)) < n;)
    ++at; // a repeated name: the first node keeps it
}

void NameIndex::reserve(size_t n) {
  size_t capacity = 16;
  while (capacity < 2 * n)
    capacity *= 2;
  slots_.assign(capacity, Slot{});
  count_ = 0;
}

bool NameIndex::insert(const std::vector<Node>& nodes, NodeId id) {
  return insert_hashed(nodes, id, hash_name(nodes[static_cast<size_t>(id)].name));
}

uint32_t NameIndex::prefetch(std::string_view name) const {
  const uint32_t h = hash_name(name);
  if (!slots_.empty())
    __builtin_prefetch(&slots_[h & (slots_.size() - 1)], 1);
  return h;
}

bool NameIndex::insert_hashed(const std::vector<Node>& nodes, NodeId id, uint32_t h) {
  const size_t mask = slots_.size() - 1;
  const std::string_view name = nodes[static_cast<size_t>(id)].name;
  for (size_t s = h & mask;; s = (s + 1) & mask) {
    Slot& slot = slots_[s];
    if (slot.id < 0) {
      slot = {h, id};
      ++count_;
      return true;
    }
    if (slot.hash == h && nodes[static_cast<size_t>(slot.id)].name == name)
      return false;
  }
}

NodeId NameIndex::insert_range(const std::vector<Node>& nodes, NodeId lo, NodeId hi) {
  constexpr NodeId kAhead = 8; // a power of two
  const size_t mask = slots_.size() - 1;
  uint32_t ahead[kAhead];
  auto fetch = [&](NodeId id) {
    const uint32_t h = hash_name(nodes[static_cast<size_t>(id)].name);
    ahead[id & (kAhead - 1)] = h;
    __builtin_prefetch(&slots_[h & mask], 1);
  };
  for (NodeId id = lo; id < std::min(hi, lo + kAhead); ++id)
    fetch(id);
  for (NodeId id = lo; id < hi; ++id) {
    const uint32_t h = ahead[id & (kAhead - 1)];
    if (id + kAhead < hi)
      fetch(id + kAhead);
    if (!insert_hashed(nodes, id, h))
      return id;
  }
  return hi;
}

std::optional<NodeId> NameIndex::find(const std::vector<Node>& nodes, std::string_view name) const {
  if (slots_.empty())
    return std::nullopt;
  const size_t mask = slots_.size() - 1;
  const uint32_t h = hash_name(name);
  for (size_t s = h & mask;; s = (s + 1) & mask) {
    const Slot& slot = slots_[s];
    if (slot.id < 0)
      return std::nullopt;
    if (slot.hash == h && static_cast<size_t>(slot.id) < nodes.size() &&
        nodes[static_cast<size_t>(slot.id)].name == name)
      return slot.id;
  }
}

void NameIndex::remap(const std::vector<NodeId>& new_index) {
  for (Slot& slot : slots_)
    if (slot.id >= 0)
      slot.id = new_index[static_cast<size_t>(slot.id)];
}

} // namespace osched
