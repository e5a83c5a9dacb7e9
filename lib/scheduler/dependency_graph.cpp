#include "scheduler/dependency_graph.h"

#include <algorithm>
#include <string>
#include <unordered_map>

#include "graph/dedupe.h"
#include "ops/collective_info.h"

namespace osched {

std::vector<std::pair<NodeId, NodeId>> group_order_edges(const Graph& g) {
  std::vector<std::pair<NodeId, NodeId>> edges;
  std::unordered_map<std::string, NodeId> last_in_group;
  for (NodeId i = 0; i < g.size(); ++i) {
    auto c = decode_collective(g, i);
    if (!c)
      continue;
    auto [it, fresh] = last_in_group.try_emplace(c->group, i);
    if (!fresh) {
      edges.emplace_back(it->second, i);
      it->second = i;
    }
  }
  return edges;
}

DependencyGraph::DependencyGraph(const Graph& g,
                                 const std::vector<std::pair<NodeId, NodeId>>& extra_edges,
                                 const InputLists* data_inputs) {
  const NodeId n = g.size();
  // The extra edges by their later node, in the order given.
  std::vector<std::pair<NodeId, NodeId>> extra; // (after, before)
  extra.reserve(extra_edges.size());
  for (const auto& [before, after] : extra_edges)
    extra.emplace_back(after, before);
  std::stable_sort(extra.begin(), extra.end(),
                   [](const auto& x, const auto& y) { return x.first < y.first; });
  offsets_in_.reserve(n + 1);
  offsets_in_.push_back(0);
  std::vector<NodeId> ins; // reused: no allocation per node
  size_t next_extra = 0;
  for (NodeId i = 0; i < n; ++i) {
    if (data_inputs) { // the same list node_inputs_into makes
      auto [b, e] = data_inputs->of(i);
      ins.assign(b, e);
      append_control_deps(g.nodes[i], ins);
    } else {
      node_inputs_into(g.nodes[i], ins);
    }
    if (next_extra < extra.size() && extra[next_extra].first == i) {
      for (; next_extra < extra.size() && extra[next_extra].first == i; ++next_extra)
        ins.push_back(extra[next_extra].second);
      dedupe_keep_order(ins);
    }
    in_.insert(in_.end(), ins.begin(), ins.end());
    offsets_in_.push_back(static_cast<int64_t>(in_.size()));
  }
  offsets_out_.assign(n + 1, 0);
  for (NodeId v : in_)
    offsets_out_[v + 1]++;
  for (NodeId i = 0; i < n; ++i)
    offsets_out_[i + 1] += offsets_out_[i];
  out_.resize(in_.size());
  std::vector<int64_t> fill(offsets_out_.begin(), offsets_out_.end() - 1);
  for (NodeId i = 0; i < n; ++i) {
    auto [b, e] = inputs(i);
    for (auto p = b; p != e; ++p)
      out_[fill[*p]++] = i;
  }
  mark_.assign(n, 0);
}

bool DependencyGraph::is_ancestor(NodeId a, NodeId b) const {
  if (a >= b)
    return false;
  bool found = false;
  walk_ancestors(
      b, [&](NodeId v) { return !found && v >= a; },
      [&](NodeId v) {
        if (v == a)
          found = true;
      });
  return found;
}

bool DependencyGraph::is_ancestor_bounded(NodeId a, NodeId b,
                                          const std::vector<NodeId>& latest) const {
  if (a >= b || a < 0 || a > latest[static_cast<size_t>(b)])
    return false;
  // A node whose latest class ancestor is `a` descends from it; one whose
  // latest comes before `a` cannot.
  if (latest[static_cast<size_t>(b)] == a)
    return true;
  bool found = false;
  walk_ancestors(
      b,
      [&](NodeId v) {
        if (v == a || latest[static_cast<size_t>(v)] == a)
          found = true;
        return !found && a < latest[static_cast<size_t>(v)];
      },
      [](NodeId) {});
  return found;
}

std::vector<NodeId> latest_ancestors_in(const DependencyGraph& dg,
                                        const std::vector<char>& member) {
  std::vector<NodeId> latest(static_cast<size_t>(dg.size()), -1);
  // A member input is the latest member among its own ancestors.
  for (NodeId v = 0; v < dg.size(); ++v) {
    NodeId m = -1;
    auto [b, e] = dg.inputs(v);
    for (auto p = b; p != e; ++p)
      m = std::max(m, member[static_cast<size_t>(*p)] ? *p : latest[static_cast<size_t>(*p)]);
    latest[static_cast<size_t>(v)] = m;
  }
  return latest;
}

std::optional<bool> DependencyGraph::is_ancestor_within(NodeId a, NodeId b, int64_t max_visits,
                                                        int64_t& visits) const {
  if (a >= b)
    return false;
  bool found = false, exhausted = false;
  walk_ancestors(
      b, [&](NodeId v) { return !found && !exhausted && v >= a; },
      [&](NodeId v) {
        if (v == a)
          found = true;
        if (++visits > max_visits)
          exhausted = true;
      });
  if (found)
    return true;
  if (exhausted)
    return std::nullopt;
  return false;
}

} // namespace osched
