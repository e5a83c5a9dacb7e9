#include "scheduler/simulate.h"

#include <algorithm>
#include <map>
#include <string>

#include "graph/collective_info.h"
#include "graph/op_table.h"

namespace osched {

SimulationResult simulate_step(const Graph& g, const RuntimeTable& rt,
                               const std::vector<NodeId>& order) {
  return simulate_step(g, rt, order, {});
}

SimulationResult simulate_step(const Graph& g, const RuntimeTable& rt,
                               const std::vector<NodeId>& order,
                               const std::vector<MergedCollective>& merged,
                               std::vector<SimEvent>* events) {
  // Each merged member stands for the merged collective, held at its last
  // start (-1: not merged). Only the last start issues it.
  std::vector<NodeId> stands_for;
  std::vector<double> merged_ms;
  if (!merged.empty()) {
    std::vector<NodeId> position(g.nodes.size(), -1);
    for (size_t i = 0; i < order.size(); ++i)
      position[order[i]] = static_cast<NodeId>(i);
    stands_for.assign(g.nodes.size(), -1);
    merged_ms.assign(g.nodes.size(), 0);
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
    }
  }
  auto rep = [&](NodeId v) { return stands_for.empty() || stands_for[v] < 0 ? v : stands_for[v]; };
  SimulationResult r;
  r.collective_exposed_ms.assign(g.nodes.size(), 0.0);
  std::vector<double> finish(g.nodes.size(), -1.0); // collective end times
  std::vector<NodeId> selects(g.nodes.size(), -1);  // getitem -> the node it selects from
  std::map<std::string, double> stream_free;
  double t = 0;
  auto block_on = [&](NodeId coll, NodeId reader) {
    if (finish[coll] > t) {
      if (events)
        events->push_back({SimEvent::Kind::ExposedWait, reader, coll, t, finish[coll]});
      r.collective_exposed_ms[coll] += finish[coll] - t;
      r.exposed_comm_ms += finish[coll] - t;
      t = finish[coll];
    }
    finish[coll] = -1; // later readers find it complete
  };
  for (NodeId v : order) {
    const Node& n = g.nodes[v];
    if (auto c = decode_collective(g, v)) {
      if (rep(v) != v)
        continue; // issued by the merged collective's last start
      const bool is_merged = !stands_for.empty() && stands_for[v] == v;
      double& free = stream_free[c->group];
      double start = std::max(t, free);
      free = finish[v] = start + (is_merged ? merged_ms[v] : rt.ms[v]);
      if (events)
        events->push_back({SimEvent::Kind::Collective, v, -1, start, finish[v]});
      continue;
    }
    // A reader of an in-flight collective (a wait, or any direct user of an
    // unschedulable one) blocks until it completes; metadata reads and
    // getitem selections do not touch the data.
    if (is_metadata_node(n))
      continue;
    if (is_getitem_target(n.target)) {
      // A selected output of an in-flight collective is still in flight.
      if (!n.args.empty() && n.args[0].is_ref())
        selects[v] = static_cast<NodeId>(n.args[0].i);
      continue;
    }
    // Repeats are harmless: a collective waited on is complete after.
    for_each_data_input(n, [&](NodeId in) {
      const NodeId src = rep(selects[in] >= 0 ? selects[in] : in);
      if (finish[src] >= 0)
        block_on(src, v);
    });
    if (is_compute_node(n)) {
      if (events)
        events->push_back({SimEvent::Kind::Compute, v, -1, t, t + rt.ms[v]});
      t += rt.ms[v];
      r.compute_ms += rt.ms[v];
    }
  }
  // Collectives nobody waited on still finish before the step ends.
  for (NodeId v = 0; v < g.size(); ++v)
    if (finish[v] >= 0)
      block_on(v, -1);
  r.step_ms = t;
  return r;
}

double critical_path_ms(const Graph& g, const RuntimeTable& rt) {
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
      done[v] = issued[v] + rt.ms[v];
    } else if (is_metadata_node(n)) {
      issued[v] = done[v] = latest(issued);
    } else if (is_getitem_target(n.target) && !n.args.empty() && n.args[0].is_ref()) {
      // A selected output of an in-flight collective is still in flight.
      issued[v] = issued[n.args[0].i];
      done[v] = done[n.args[0].i];
    } else {
      done[v] = latest(done) + (is_compute_node(n) ? rt.ms[v] : 0.0);
      issued[v] = done[v];
    }
    longest = std::max(longest, done[v]);
  }
  return longest;
}

} // namespace osched
