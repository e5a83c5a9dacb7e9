#pragma once
// The edges the scheduler must respect: data references, control deps, and
// any extra orders (in-place writes, a group's issue order when it is to be
// kept). Ancestor queries walk backwards on demand with a reusable visit
// stamp: O(N) memory, never O(N²).

#include <cstdint>
#include <optional>
#include <vector>

#include "graph/graph.h"

namespace osched {

// (earlier, later) for consecutive collectives of each process group: the
// edges that keep a group's issue order (--preserve-group-order).
std::vector<std::pair<NodeId, NodeId>> group_order_edges(const Graph& g);

class DependencyGraph {
public:
  // `extra` adds edges (before, after) with before < after, e.g. the orders
  // in-place writes impose (memory/write_order.h).
  // `data_inputs`, when given, are g's (build_input_lists(g, false)): the
  // references are then not read from the nodes again.
  explicit DependencyGraph(const Graph& g, const std::vector<std::pair<NodeId, NodeId>>& extra = {},
                           const InputLists* data_inputs = nullptr);

  NodeId size() const { return static_cast<NodeId>(offsets_in_.size() - 1); }
  std::pair<const NodeId*, const NodeId*> inputs(NodeId n) const {
    return {in_.data() + offsets_in_[n], in_.data() + offsets_in_[n + 1]};
  }
  std::pair<const NodeId*, const NodeId*> users(NodeId n) const {
    return {out_.data() + offsets_out_[n], out_.data() + offsets_out_[n + 1]};
  }
  int32_t num_inputs(NodeId n) const {
    return static_cast<int32_t>(offsets_in_[n + 1] - offsets_in_[n]);
  }
  int32_t num_users(NodeId n) const {
    return static_cast<int32_t>(offsets_out_[n + 1] - offsets_out_[n]);
  }

  // Is `a` an ancestor of `b`? Nodes are in a topological order, so only
  // nodes between a and b can be on a path.
  bool is_ancestor(NodeId a, NodeId b) const;
  // The same, giving up (nullopt) after visiting `max_visits` nodes; adds the
  // nodes visited to `visits`.
  std::optional<bool> is_ancestor_within(NodeId a, NodeId b, int64_t max_visits,
                                         int64_t& visits) const;

  // The same for `a` in a class of nodes, where latest[v] is the latest
  // member of that class among v's ancestors (latest_ancestors_in): the
  // walk enters only nodes whose bound admits `a`, so most queries about a
  // far-off `a` end at once. False when either id is negative.
  bool is_ancestor_bounded(NodeId a, NodeId b, const std::vector<NodeId>& latest) const;

  // Calls visit(n) for every ancestor of `target` for which enter(n) is true;
  // the walk does not continue past nodes where enter is false.
  template <typename Enter, typename Visit>
  void walk_ancestors(NodeId target, Enter&& enter, Visit&& visit) const {
    ++stamp_;
    stack_.clear();
    stack_.push_back(target);
    while (!stack_.empty()) {
      NodeId v = stack_.back();
      stack_.pop_back();
      auto [b, e] = inputs(v);
      for (auto p = b; p != e; ++p) {
        if (mark_[*p] == stamp_)
          continue;
        mark_[*p] = stamp_;
        if (!enter(*p))
          continue;
        visit(*p);
        stack_.push_back(*p);
      }
    }
  }

private:
  std::vector<int64_t> offsets_in_, offsets_out_;
  std::vector<NodeId> in_, out_;
  mutable std::vector<uint32_t> mark_;
  mutable uint32_t stamp_ = 0;
  mutable std::vector<NodeId> stack_;
};

// Per node: the largest id among its ancestors with member[id] set; -1 when
// none. One pass in id order (a topological order).
std::vector<NodeId> latest_ancestors_in(const DependencyGraph& dg, const std::vector<char>& member);

} // namespace osched
