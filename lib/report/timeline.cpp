#include "report/timeline.h"

#include <algorithm>
#include <set>

#include "memory/memory_tracker.h"
#include "memory/storage_map.h"
#include "ops/collective_info.h"
#include "sim/simulate.h"

namespace osched {

Timeline build_timeline(const Graph& g, const RuntimeTable& rt, std::string label,
                        const AssumePure& pure) {
  const std::vector<NodeId> order = identity_order(g.nodes.size());
  std::vector<SimEvent> events;
  const SimulationResult sim = simulate_step(g, rt, order, {}, &events);
  Timeline t;
  t.label = std::move(label);
  t.step_ms = sim.step_ms;
  t.exposed_comm_ms = sim.exposed_comm_ms;
  std::set<std::string> groups;
  t.events.reserve(events.size());
  for (const SimEvent& e : events) {
    TimelineEvent out;
    out.start_ms = e.start_ms;
    out.end_ms = e.end_ms;
    const Node& n = g.nodes[static_cast<size_t>(e.node >= 0 ? e.node : e.on)];
    out.name = n.name;
    out.target = n.target;
    out.track = "compute";
    if (e.kind == SimEvent::Kind::Compute) {
      out.kind = node_barrier_kind(n, pure) == BarrierKind::None ? TimelineEvent::Kind::Compute
                                                                 : TimelineEvent::Kind::Opaque;
      out.estimate_ms = rt.ms[static_cast<size_t>(e.node)];
      out.source = std::string(runtime_source_name(rt.source[static_cast<size_t>(e.node)]));
    } else {
      const NodeId coll = e.kind == SimEvent::Kind::Collective ? e.node : e.on;
      auto info = decode_collective(g, coll);
      if (e.kind == SimEvent::Kind::Collective) {
        out.kind = TimelineEvent::Kind::Collective;
        out.track = info && !info->group.empty() ? info->group : "?";
        groups.insert(out.track);
      } else {
        out.kind = TimelineEvent::Kind::ExposedWait;
        out.on = g.nodes[static_cast<size_t>(coll)].name;
        if (e.node < 0)
          out.name = "end of step";
      }
      out.bytes = info ? info->size_bytes : 0;
      out.estimate_ms = rt.ms[static_cast<size_t>(coll)];
      out.source = std::string(runtime_source_name(rt.source[static_cast<size_t>(coll)]));
    }
    t.events.push_back(std::move(out));
  }
  t.tracks.push_back("compute");
  t.tracks.insert(t.tracks.end(), groups.begin(), groups.end());
  // Memory after each node, placed at the time the compute stream reached it.
  const MemoryProfile mem = memory_profile(build_storage_map(g), order);
  t.peak_bytes = mem.peak;
  // Nodes that take no time run when the compute stream reaches them: when
  // the last compute node or exposed wait before them ended.
  std::vector<double> end_at(g.nodes.size(), -1);
  for (const SimEvent& e : events)
    if (e.kind != SimEvent::Kind::Collective && e.node >= 0)
      end_at[static_cast<size_t>(e.node)] = e.end_ms;
  std::vector<double> reached(g.nodes.size(), 0);
  double now = 0;
  for (NodeId v : order) {
    if (end_at[static_cast<size_t>(v)] >= 0)
      now = end_at[static_cast<size_t>(v)];
    reached[static_cast<size_t>(v)] = now;
  }
  // Opaque ops that take no time still show, where the stream reached them.
  for (NodeId v : order) {
    const Node& n = g.nodes[static_cast<size_t>(v)];
    if (end_at[static_cast<size_t>(v)] >= 0 || node_barrier_kind(n, pure) == BarrierKind::None)
      continue;
    TimelineEvent e;
    e.kind = TimelineEvent::Kind::Opaque;
    e.name = n.name;
    e.target = n.target;
    e.track = "compute";
    e.estimate_ms = rt.ms[static_cast<size_t>(v)];
    e.source = std::string(runtime_source_name(rt.source[static_cast<size_t>(v)]));
    e.start_ms = e.end_ms = reached[static_cast<size_t>(v)];
    t.events.push_back(std::move(e));
  }
  // One sample per change, so a million-node graph stays small.
  for (size_t i = 0; i < order.size(); ++i) {
    const int64_t bytes = mem.after_node[i];
    if (!t.memory.empty() && t.memory.back().bytes == bytes)
      continue;
    t.memory.push_back({reached[static_cast<size_t>(order[i])], bytes});
  }
  return t;
}

} // namespace osched
