#pragma once
// Node name -> node index for Graph::find. An open-addressing table of
// (hash, index) slots: names are not copied (the table reads them from the
// nodes), so building it costs no allocation per node and 8 bytes per slot,
// and a permutation of the nodes only renumbers the slots.

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace osched {

struct Node;
using NodeId = int32_t;

class NameIndex {
public:
  // The first node of each name wins.
  void build(const std::vector<Node>& nodes);
  // Empties the table, sized for `n` names.
  void reserve(size_t n);
  // Adds node `id` under its name; false (and nothing added) when the name
  // is there already. At most the reserved number of names.
  bool insert(const std::vector<Node>& nodes, NodeId id);
  // A name's hash, its slot fetched into cache: readers call it as soon as a
  // node's name is known and insert(nodes, id, hash) once the node is read,
  // so the table's cache miss overlaps with reading the node.
  uint32_t prefetch(std::string_view name) const;
  bool insert(const std::vector<Node>& nodes, NodeId id, uint32_t hash) {
    return insert_hashed(nodes, id, hash);
  }
  // Adds nodes [lo, hi) in order, as insert() one by one would, up to the
  // first whose name is there already: its id is returned (hi when all were
  // added). The table is far larger than the caches, so slots are fetched a
  // few names ahead.
  NodeId insert_range(const std::vector<Node>& nodes, NodeId lo, NodeId hi);
  std::optional<NodeId> find(const std::vector<Node>& nodes, std::string_view name) const;
  // After node i moved to new_index[i].
  void remap(const std::vector<NodeId>& new_index);
  size_t size() const { return count_; } // distinct names

private:
  struct Slot {
    uint32_t hash = 0;
    NodeId id = -1; // -1: empty
  };
  bool insert_hashed(const std::vector<Node>& nodes, NodeId id, uint32_t hash);

  std::vector<Slot> slots_;
  size_t count_ = 0;
};

} // namespace osched
