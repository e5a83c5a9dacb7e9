#include "sim/simulate.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <string>

#include "ops/collective_info.h"
#include "ops/op_table.h"

namespace osched {

std::vector<NodeId> identity_order(size_t n) {
  std::vector<NodeId> order(n);
  std::iota(order.begin(), order.end(), 0);
  return order;
}

SimulationResult simulate_step(const Graph& g, const RuntimeTable& rt,
                               const std::vector<NodeId>& order) {
  return simulate_step(g, rt, order, {});
}

SimulationResult simulate_step(const Graph& g, const RuntimeTable& rt,
                               const std::vector<NodeId>& order,
                               const std::vector<MergedCollective>& merged,
                               std::vector<SimEvent>* events) {
  return simulate_step(make_simulation_plan(g, rt), order, merged, events);
}

SimulationPlan make_simulation_plan(const Graph& g, const RuntimeTable& rt) {
  using Role = SimulationPlan::Role;
  SimulationPlan p;
  const size_t n = g.nodes.size();
  p.role.assign(n, Role::Passive);
  p.ms = rt.ms;
  p.group.assign(n, -1);
  std::map<std::string, int32_t> groups;
  std::string name;                   // reused: asked of every collective
  std::vector<NodeId> selects(n, -1); // getitem -> the node it selects from
  for (NodeId v = 0; v < g.size(); ++v) {
    const Node& node = g.nodes[v];
    // A collective as decode_collective tells one, without sizing it.
    if (node.op == NodeOp::CallFunction && collective_signature(node.target)) {
      p.role[v] = Role::Collective;
      if (!collective_group_name_into(node, name))
        name.clear();
      p.group[v] = groups.try_emplace(name, static_cast<int32_t>(groups.size())).first->second;
      p.collectives.push_back(v);
    } else if (is_metadata_node(node)) {
      // Reads no data: never blocks.
    } else if (is_getitem_target(node.target)) {
      // A selected output of an in-flight collective is still in flight.
      if (!node.args.empty() && node.args[0].is_ref())
        selects[v] = static_cast<NodeId>(node.args[0].i);
    } else {
      p.role[v] = is_compute_node(node) ? Role::Compute : Role::Reader;
    }
  }
  p.groups = static_cast<int32_t>(groups.size());
  p.group_names.resize(groups.size());
  for (const auto& [name, index] : groups)
    p.group_names[static_cast<size_t>(index)] = name;
  p.blocks_offset.assign(n + 1, 0);
  for (NodeId v = 0; v < g.size(); ++v) {
    if (p.role[v] == Role::Reader || p.role[v] == Role::Compute)
      for_each_data_input(g.nodes[v], [&](NodeId in) {
        const NodeId src = selects[in] >= 0 ? selects[in] : in;
        if (p.role[src] == Role::Collective)
          p.blocks_on.push_back(src);
      });
    p.blocks_offset[v + 1] = static_cast<int64_t>(p.blocks_on.size());
  }
  return p;
}

SimulationPlan permute_plan(const SimulationPlan& plan, const std::vector<NodeId>& order) {
  const size_t n = order.size();
  std::vector<NodeId> position(n, -1);
  for (size_t i = 0; i < n; ++i)
    position[order[i]] = static_cast<NodeId>(i);
  SimulationPlan p;
  p.role.resize(n);
  p.ms.resize(n);
  p.group.resize(n);
  p.blocks_offset.assign(n + 1, 0);
  p.blocks_on.reserve(plan.blocks_on.size());
  for (size_t i = 0; i < n; ++i) {
    const NodeId v = order[i];
    p.role[i] = plan.role[v];
    p.ms[i] = plan.ms[v];
    // Stream numbers only tell the streams apart; their order does not matter.
    p.group[i] = plan.group[v];
    for (int64_t k = plan.blocks_offset[v]; k < plan.blocks_offset[v + 1]; ++k)
      p.blocks_on.push_back(position[plan.blocks_on[static_cast<size_t>(k)]]);
    p.blocks_offset[i + 1] = static_cast<int64_t>(p.blocks_on.size());
    if (p.role[i] == SimulationPlan::Role::Collective)
      p.collectives.push_back(static_cast<NodeId>(i));
  }
  p.groups = plan.groups;
  p.group_names = plan.group_names;
  return p;
}

SimulationResult simulate_step(const SimulationPlan& plan, const std::vector<NodeId>& order,
                               const std::vector<MergedCollective>& merged,
                               std::vector<SimEvent>* events) {
  using Role = SimulationPlan::Role;
  const size_t n = plan.role.size();
  // Each merged member stands for the merged collective, held at its last
  // start (-1: not merged). Only the last start issues it.
  std::vector<NodeId> stands_for;
  std::vector<double> merged_ms, issue_ms, done_ms;
  std::vector<NodeId> waited_at;
  std::vector<bool> removed;
  if (!merged.empty()) {
    std::vector<NodeId> position(n, -1);
    for (size_t i = 0; i < order.size(); ++i)
      position[order[i]] = static_cast<NodeId>(i);
    stands_for.assign(n, -1);
    merged_ms.assign(n, 0);
    issue_ms.assign(n, 0);
    done_ms.assign(n, 0);
    waited_at.assign(n, -1);
    removed.assign(n, false);
    for (const MergedCollective& m : merged) {
      NodeId last = m.starts.front();
      for (NodeId s : m.starts)
        if (position[s] > position[last])
          last = s;
      if (m.issued_by >= 0)
        last = m.issued_by;
      for (NodeId s : m.starts)
        stands_for[s] = last;
      merged_ms[last] = m.ms;
      issue_ms[last] = m.issue_ms;
      done_ms[last] = m.done_ms;
      waited_at[last] = m.waited_at;
      for (NodeId v : m.removed)
        removed[v] = true;
    }
  }
  auto rep = [&](NodeId v) { return stands_for.empty() || stands_for[v] < 0 ? v : stands_for[v]; };
  SimulationResult r;
  r.collective_exposed_ms.assign(n, 0.0);
  std::vector<double> finish(n, -1.0); // collective end times
  std::vector<double> stream_free(static_cast<size_t>(plan.groups), 0.0);
  double t = 0;
  auto block_on = [&](NodeId coll, NodeId reader) {
    if (finish[coll] > t) {
      if (events)
        events->push_back({SimEvent::Kind::ExposedWait, reader, coll, t, finish[coll]});
      r.collective_exposed_ms[coll] += finish[coll] - t;
      r.exposed_comm_ms += finish[coll] - t;
      t = finish[coll];
    }
    finish[coll] = -1;                           // later readers find it complete
    if (!done_ms.empty() && done_ms[coll] > 0) { // a merged collective's copy-out
      t += done_ms[coll];
      r.compute_ms += done_ms[coll];
    }
  };
  for (NodeId v : order) {
    switch (plan.role[v]) {
    case Role::Passive:
      break;
    case Role::Collective: {
      if (rep(v) != v)
        break; // issued by the merged collective's last start
      const bool is_merged = !stands_for.empty() && stands_for[v] == v;
      if (is_merged) { // its copy-in runs first
        t += issue_ms[v];
        r.compute_ms += issue_ms[v];
      }
      double& free = stream_free[static_cast<size_t>(plan.group[v])];
      const double start = std::max(t, free);
      free = finish[v] = start + (is_merged ? merged_ms[v] : plan.ms[v]);
      if (events)
        events->push_back({SimEvent::Kind::Collective, v, -1, start, finish[v]});
      break;
    }
    case Role::Reader:
    case Role::Compute:
      // A reader of an in-flight collective (a wait, or any direct user of
      // an unschedulable one) blocks until it completes. Repeats are
      // harmless: a collective waited on is complete after.
      for (int64_t i = plan.blocks_offset[v]; i < plan.blocks_offset[v + 1]; ++i) {
        const NodeId src = rep(plan.blocks_on[static_cast<size_t>(i)]);
        // A merged collective is waited on once, where the merged wait goes.
        if (!waited_at.empty() && waited_at[src] >= 0 && waited_at[src] != v)
          continue;
        if (finish[src] >= 0)
          block_on(src, v);
      }
      // Every node with a runtime runs on the compute stream: the one cost
      // table the scheduler also hides collectives behind.
      if (!removed.empty() && removed[v])
        break; // the rewrite deletes it
      if (plan.role[v] == Role::Compute || plan.ms[v] > 0) {
        if (events)
          events->push_back({SimEvent::Kind::Compute, v, -1, t, t + plan.ms[v]});
        t += plan.ms[v];
        r.compute_ms += plan.ms[v];
      }
      break;
    }
  }
  // Collectives nobody waited on still finish before the step ends.
  for (NodeId v : plan.collectives)
    if (finish[v] >= 0)
      block_on(v, -1);
  r.step_ms = t;
  return r;
}

double critical_path_ms(const Graph& g, const RuntimeTable& rt,
                        const std::vector<double>* earliest_start, std::vector<double>* done_out) {
  // done[v]: earliest time v's output is usable by a reader that blocks;
  // issued[v]: by one that does not (a metadata read, a collective taking an
  // in-flight result), which for a collective is its start.
  std::vector<double> done(g.nodes.size(), 0.0), issued(g.nodes.size(), 0.0);
  double longest = 0;
  for (NodeId v = 0; v < g.size(); ++v) {
    const Node& n = g.nodes[v];
    auto latest = [&](const std::vector<double>& of) {
      double t = 0;
      for_each_data_input(n, [&](NodeId in) { t = std::max(t, of[in]); });
      return t;
    };
    if (is_collective_node(n)) {
      issued[v] = latest(issued);
      if (earliest_start)
        issued[v] = std::max(issued[v], (*earliest_start)[static_cast<size_t>(v)]);
      done[v] = issued[v] + rt.ms[v];
    } else if (is_metadata_node(n)) {
      issued[v] = done[v] = latest(issued);
    } else if (is_getitem_target(n.target) && !n.args.empty() && n.args[0].is_ref()) {
      // A selected output of an in-flight collective is still in flight.
      issued[v] = issued[n.args[0].i];
      done[v] = done[n.args[0].i];
    } else {
      done[v] = latest(done) + rt.ms[v]; // compute, or another node given a runtime
      issued[v] = done[v];
    }
    longest = std::max(longest, done[v]);
  }
  if (done_out)
    *done_out = std::move(done);
  return longest;
}

} // namespace osched
