#include "io/validate.h"

#include <string>
#include <unordered_set>

#include "graph/collective.h"
#include "io/graph_error.h"

namespace osched {
namespace {

void check_control_deps(const Graph& g, bool require_order) {
  const NodeId n = g.size();
  // Data references always point backwards (the reader enforces it), so only
  // control deps can close a cycle. Kahn's algorithm over both edge kinds.
  InputLists ins = build_input_lists(g, true);
  UserLists users = build_user_lists(g, ins);
  std::vector<int32_t> indeg(n);
  for (NodeId i = 0; i < n; ++i) indeg[i] = static_cast<int32_t>(ins.count(i));
  std::vector<NodeId> stack;
  for (NodeId i = 0; i < n; ++i)
    if (indeg[i] == 0) stack.push_back(i);
  NodeId done = 0;
  while (!stack.empty()) {
    NodeId v = stack.back();
    stack.pop_back();
    ++done;
    auto [b, e] = users.of(v);
    for (auto p = b; p != e; ++p)
      if (--indeg[*p] == 0) stack.push_back(*p);
  }
  if (done != n) {
    // Walk backwards along unfinished inputs until a node repeats: that is a cycle.
    NodeId start = 0;
    while (indeg[start] == 0) ++start;
    std::vector<NodeId> path;
    std::vector<int32_t> pos(n, -1);
    NodeId cur = start;
    while (pos[cur] < 0) {
      pos[cur] = static_cast<int32_t>(path.size());
      path.push_back(cur);
      auto [b, e] = ins.of(cur);
      for (auto p = b; p != e; ++p)
        if (indeg[*p] > 0) { cur = *p; break; }
    }
    std::string cycle;
    for (size_t i = path.size(); i-- > static_cast<size_t>(pos[cur]);)
      cycle += "'" + g.nodes[path[i]].name + "' -> ";
    cycle += "'" + g.nodes[path.back()].name + "'";
    throw GraphError(g.nodes[cur].name, "control_deps", "cycle through control deps: " + cycle);
  }
  if (!require_order) return;
  for (NodeId i = 0; i < n; ++i)
    for (NodeId d : g.nodes[i].control_deps)
      if (d >= i)
        throw GraphError(g.nodes[i].name, "control_deps",
                         "depends on '" + g.nodes[d].name +
                             "' which comes later; nodes must be listed in a topological order");
}

}  // namespace

void validate_graph(const Graph& g, bool require_topological_order) {
  if (g.world_size < 1) throw GraphError("", "world_size", "must be >= 1");
  if (g.rank < 0 || g.rank >= g.world_size)
    throw GraphError("", "rank", "must be in [0, world_size)");
  for (const auto& [name, pg] : g.process_groups) {
    std::unordered_set<int64_t> seen;
    for (int64_t r : pg.ranks) {
      if (r >= g.world_size)
        throw GraphError("", "process_groups." + name + ".ranks",
                         "rank " + std::to_string(r) + " is not below world_size");
      if (!seen.insert(r).second)
        throw GraphError("", "process_groups." + name + ".ranks",
                         "rank " + std::to_string(r) + " listed twice");
    }
  }

  if (g.nodes.empty()) throw GraphError("", "nodes", "missing output node (graph is empty)");
  std::unordered_set<std::string> names;
  NodeId outputs = 0;
  for (NodeId i = 0; i < g.size(); ++i) {
    const Node& n = g.nodes[i];
    if (!names.insert(n.name).second) throw GraphError(n.name, "name", "duplicate node name");
    if (n.op == NodeOp::Output) {
      ++outputs;
      if (require_topological_order && i != g.size() - 1)
        throw GraphError(n.name, "op", "the output node must be the last node");
    }
    if (is_collective_node(n)) {
      auto group = collective_group_name(n);
      if (!group) throw GraphError(n.name, "group_name", "missing or not a string");
      auto it = g.process_groups.find(*group);
      if (it == g.process_groups.end())
        throw GraphError(n.name, "group_name", "process group '" + *group + "' is not declared in process_groups");
      auto sig = collective_signature(n.target);
      if (sig->kind == CollectiveKind::AllGather || sig->kind == CollectiveKind::ReduceScatter) {
        const Value* gs = n.kwarg("group_size");
        size_t pos = sig->group_name_pos - 1;
        if (!gs && pos < n.args.size()) gs = &n.args[pos];
        if (gs && gs->kind == Value::Kind::Int &&
            gs->i != static_cast<int64_t>(it->second.ranks.size()))
          throw GraphError(n.name, "group_size",
                           std::to_string(gs->i) + " does not match process group '" + *group +
                               "' of " + std::to_string(it->second.ranks.size()) + " ranks");
      }
      if (n.args.empty() || !(n.args[0].is_ref() || n.args[0].kind == Value::Kind::List))
        throw GraphError(n.name, "args[0]", "a collective's input must be a node reference");
    }
    if (is_wait_node(n) && (n.args.empty() || !n.args[0].is_ref()))
      throw GraphError(n.name, "args[0]", "wait_tensor's argument must be a node reference");
  }
  if (outputs == 0) throw GraphError("", "nodes", "missing output node");
  if (outputs > 1) throw GraphError(g.nodes.back().name, "op", "more than one output node");
  check_control_deps(g, require_topological_order);
}

}  // namespace osched
