#include "cost/fusion.h"

#include <algorithm>
#include <numeric>
#include <set>
#include <string_view>
#include <utility>

#include "ops/op_table.h"

namespace osched {
namespace {

bool fusible(const Graph& g, NodeId v, const RuntimeTable& t) {
  const Node& n = g.nodes[v];
  if (n.op != NodeOp::CallFunction || is_compute_node(n))
    return false;
  if (is_view_node(n))
    return true;
  return is_kernel_node(n) && t.source[v] == RuntimeSource::Analytical &&
         (is_pointwise_node(n) || is_reduction_target(n.target.str()));
}

struct DisjointSets {
  std::vector<NodeId> parent;
  explicit DisjointSets(size_t n) : parent(n) { std::iota(parent.begin(), parent.end(), 0); }
  NodeId find(NodeId x) {
    while (parent[x] != x)
      x = parent[x] = parent[parent[x]];
    return x;
  }
  void join(NodeId a, NodeId b) {
    a = find(a);
    b = find(b);
    if (a != b)
      parent[std::max(a, b)] = std::min(a, b);
  }
};

} // namespace

size_t fuse_pointwise_costs(const Graph& g, const HardwareSpec& hw, RuntimeTable& table) {
  const size_t n = g.nodes.size();
  std::vector<bool> in_region(n);
  for (NodeId v = 0; v < g.size(); ++v)
    in_region[v] = fusible(g, v, table);
  DisjointSets sets(n);
  for (NodeId v = 0; v < g.size(); ++v)
    if (in_region[v])
      for_each_data_input(g.nodes[v], [&](NodeId u) {
        if (in_region[u])
          sets.join(u, v);
      });
  // Members of each region, in graph order (the root is its first node).
  std::vector<std::vector<NodeId>> members(n);
  for (NodeId v = 0; v < g.size(); ++v)
    if (in_region[v])
      members[sets.find(v)].push_back(v);
  const UserLists users = build_user_lists(g, build_input_lists(g, false));
  size_t fused = 0;
  for (NodeId root = 0; root < g.size(); ++root) {
    const std::vector<NodeId>& m = members[root];
    // The region's cost sits on one kernel chosen by name, not position,
    // so a reordered graph costs the same (schedule the output again and
    // its "before" is this run's "after").
    NodeId anchor = -1;
    size_t kernels = 0;
    for (NodeId v : m)
      if (is_kernel_node(g.nodes[v])) {
        if (anchor < 0 || g.nodes[v].name < g.nodes[anchor].name)
          anchor = v;
        ++kernels;
      }
    if (kernels < 2)
      continue;
    auto inside = [&](NodeId v) { return in_region[v] && sets.find(v) == root; };
    double bytes = 0;
    // Tensors entering: each (producer, output) once.
    std::set<std::pair<NodeId, int32_t>> entering;
    for (NodeId v : m) {
      auto add = [&](const Value& r) {
        const NodeId src = static_cast<NodeId>(r.i);
        if (inside(src) || !entering.emplace(src, r.ref_output).second)
          return;
        if (const TensorMeta* t = ref_meta(g, r))
          bytes += static_cast<double>(bytes_accessed(*t));
      };
      for (const auto& a : g.nodes[v].args)
        for_each_ref(a, add);
      for (const auto& kv : g.nodes[v].attrs().kwargs)
        for_each_ref(kv.second, add);
    }
    // Tensors leaving: kernel outputs read outside the region (views of
    // them are read through the view's users, counted at the kernel).
    for (NodeId v : m) {
      if (!is_kernel_node(g.nodes[v]))
        continue;
      bool leaves = false;
      for (auto [u, end] = users.of(v); u != end && !leaves; ++u)
        leaves = !inside(*u);
      // Read outside through a view of it.
      for (auto [u, end] = users.of(v); u != end && !leaves; ++u)
        if (inside(*u) && is_view_node(g.nodes[*u]))
          for (auto [w, wend] = users.of(*u); w != wend && !leaves; ++w)
            leaves = !inside(*w);
      if (leaves)
        for (const auto& meta : g.nodes[v].val)
          if (meta)
            bytes += static_cast<double>(bytes_accessed(*meta));
    }
    for (NodeId v : m)
      if (is_kernel_node(g.nodes[v]))
        table.ms[v] = 0;
    table.ms[anchor] = bytes / (hw.hbm_gbps * 1e9) * 1e3 + hw.kernel_launch_us * 1e-3;
    ++fused;
  }
  return fused;
}

} // namespace osched
