#include "scheduler/lower_bound.h"

#include <algorithm>
#include <map>

#include "ops/collective.h"
#include "sim/simulate.h"

namespace osched {

StepLowerBound step_lower_bound(const Graph& g, const RuntimeTable& rt, double critical_path_ms,
                                int64_t work_limit) {
  return step_lower_bound(g, make_simulation_plan(g, rt), critical_path_ms, work_limit);
}

StepLowerBound step_lower_bound(const Graph& g, const SimulationPlan& plan, double critical_path_ms,
                                int64_t work_limit) {
  using Role = SimulationPlan::Role;
  const size_t n = g.nodes.size();
  StepLowerBound b;
  b.critical_path_ms = critical_path_ms;
  // The compute stream's nodes, as the simulation runs them.
  std::vector<char> on_stream(n, 0);
  int64_t stream_nodes = 0;
  for (size_t v = 0; v < n; ++v)
    if (plan.role[v] == Role::Compute || (plan.role[v] == Role::Reader && plan.ms[v] > 0)) {
      on_stream[v] = 1;
      ++stream_nodes;
      b.compute_ms += plan.ms[v];
    }
  std::map<std::string, double> per_group, blocking_per_group;
  const InputLists inputs = build_input_lists(g); // data and control: every order keeps them
  const UserLists users = build_user_lists(g, inputs);
  if (work_limit < 0)
    work_limit = 2 * static_cast<int64_t>(n + inputs.inputs.size()) + (int64_t{1} << 20);
  // Nodes that block on each collective (the simulation's readers of it),
  // grouped by collective.
  std::vector<std::pair<NodeId, NodeId>> blocked_by; // (collective, reader)
  for (size_t v = 0; v < n; ++v)
    for (int64_t k = plan.blocks_offset[v]; k < plan.blocks_offset[v + 1]; ++k)
      blocked_by.emplace_back(plan.blocks_on[static_cast<size_t>(k)], static_cast<NodeId>(v));
  std::sort(blocked_by.begin(), blocked_by.end());
  std::vector<NodeId> readers(blocked_by.size());
  std::vector<size_t> readers_at(n + 1, 0);
  for (size_t i = 0; i < blocked_by.size(); ++i) {
    readers[i] = blocked_by[i].second;
    ++readers_at[static_cast<size_t>(blocked_by[i].first) + 1];
  }
  for (size_t v = 0; v < n; ++v)
    readers_at[v + 1] += readers_at[v];
  std::vector<uint32_t> seen(n, 0);
  uint32_t mark = 0;
  std::vector<NodeId> stack;
  int64_t work = 0;
  // Compute-stream nodes reachable from `from` along `edges` (marked with
  // the current mark, so the two walks of one collective share it).
  auto reach = [&](const NodeId* from, const NodeId* from_end, const auto& edges) {
    int64_t found = 0;
    stack.clear();
    for (const NodeId* s = from; s != from_end; ++s)
      if (seen[static_cast<size_t>(*s)] != mark) {
        seen[static_cast<size_t>(*s)] = mark;
        stack.push_back(*s);
      }
    while (!stack.empty()) {
      const NodeId v = stack.back();
      stack.pop_back();
      found += on_stream[static_cast<size_t>(v)];
      auto [b, e] = edges.of(v);
      for (const NodeId* w = b; w != e; ++w) {
        ++work;
        if (seen[static_cast<size_t>(*w)] != mark) {
          seen[static_cast<size_t>(*w)] = mark;
          stack.push_back(*w);
        }
      }
    }
    return found;
  };
  for (NodeId c : plan.collectives) {
    const std::string group = collective_group_name(g.nodes[static_cast<size_t>(c)]).value_or("");
    const double ms = plan.ms[static_cast<size_t>(c)];
    per_group[group] += ms;
    ++b.group_collectives[group];
    if (work > work_limit) {
      b.complete = false;
      continue;
    }
    ++mark;
    seen[static_cast<size_t>(c)] = mark;
    auto [ib, ie] = inputs.of(c);
    const int64_t before = reach(ib, ie, inputs);
    const NodeId* rb = readers.data() + readers_at[static_cast<size_t>(c)];
    const int64_t after = reach(rb, readers.data() + readers_at[static_cast<size_t>(c) + 1], users);
    if (before + after == stream_nodes)
      blocking_per_group[group] += ms;
  }
  b.group_comm_ms = per_group;
  for (const auto& [group, ms] : per_group)
    if (ms > b.busiest_group_comm_ms) {
      b.busiest_group_comm_ms = ms;
      b.busiest_group = group;
    }
  for (const auto& [group, ms] : blocking_per_group)
    b.blocking_comm_ms = std::max(b.blocking_comm_ms, ms);
  b.step_ms = std::max({b.compute_ms + b.blocking_comm_ms, b.busiest_group_comm_ms,
                        b.critical_path_ms, b.compute_ms});
  return b;
}

} // namespace osched
