#include "scheduler/schedule_analysis.h"

#include <future>
#include <map>

#include "memory/memory_tracker.h"
#include "memory/write_order.h"
#include "ops/collective_info.h"
#include "ops/op_table.h"
#include "ops/target_traits.h"
#include "scheduler/collective_uses.h"
#include "scheduler/potential_overlap.h"

namespace osched {
namespace {

// Edges beyond data and control: in-place write orders, the later waits of
// a coalesced collective after its first one, the places of opaque ops
// among collectives, and with preserve_group_order each group's issue order.
std::vector<std::pair<NodeId, NodeId>> scheduler_edges(const Graph& g, const StorageMap& storages,
                                                       const UserLists& data_users,
                                                       const std::vector<OpaqueOp>& opaque,
                                                       bool group_order) {
  std::vector<std::pair<NodeId, NodeId>> edges = barrier_edges(g, opaque);
  if (group_order)
    for (const auto& e : group_order_edges(g))
      edges.push_back(e);
  for (const WriteOrderEdge& e : write_order_edges(g, storages))
    edges.emplace_back(e.before, e.after);
  for (NodeId i = 0; i < g.size(); ++i) {
    if (!is_collective_node(g.nodes[i]))
      continue;
    CollectiveUses u = collective_uses(g, data_users, i);
    for (size_t k = 1; k < u.waits.size(); ++k)
      edges.emplace_back(u.waits[0], u.waits[k]);
  }
  return edges;
}

std::vector<NodeKind> base_kinds(const Graph& g) {
  std::vector<NodeKind> kind(g.nodes.size(), NodeKind::Other);
  for (NodeId i = 0; i < g.size(); ++i) {
    const Node& node = g.nodes[i];
    if (node.op == NodeOp::Placeholder || node.op == NodeOp::GetAttr)
      kind[i] = NodeKind::Placeholder;
    else if (node.op == NodeOp::Output)
      kind[i] = NodeKind::Output;
    else if (is_compute_node(node))
      kind[i] = NodeKind::Compute;
  }
  return kind;
}

// Schedulable: waited on, and otherwise read only for metadata.
void identify_collectives(ScheduleAnalysis& a) {
  const Graph& g = a.graph;
  std::map<std::string, int32_t> group_ids;
  a.collective_of.assign(g.nodes.size(), -1);
  // Sized once: grown by doubling, the outcomes (~140 bytes each, 170k on a
  // 1M-node graph) were copied and their fresh pages touched twice over.
  size_t upper = 0;
  for (const Node& n : g.nodes)
    upper += target_has(n.target, target_bit::kCollective);
  a.collectives.reserve(upper);
  a.group_of.reserve(upper);
  for (NodeId i = 0; i < g.size(); ++i) {
    const std::optional<CollectiveInfo> info = decode_collective(g, i);
    if (!info)
      continue;
    CollectiveOutcome c;
    c.start = i;
    c.kind = info->kind;
    c.group = info->group;
    c.size_bytes = info->size_bytes;
    c.memory_bytes = info->memory_bytes;
    c.estimated_ms = c.exposed_ms = a.runtimes.ms[i];
    CollectiveUses uses = collective_uses(g, a.data_users, i);
    const NodeId wait = uses.waits.empty() ? -1 : uses.waits.front();
    if (c.kind == CollectiveKind::Broadcast)
      c.why_exposed.push_back({ExposureReason::Broadcast});
    else if (wait < 0)
      c.why_exposed.push_back({ExposureReason::NoWait});
    else if (uses.other_is_output)
      c.why_exposed.push_back({ExposureReason::RawResultIsOutput});
    else if (uses.other >= 0)
      c.why_exposed.push_back({ExposureReason::ReadWithoutWait, uses.other});
    c.schedulable = c.why_exposed.empty();
    const int32_t idx = static_cast<int32_t>(a.collectives.size());
    a.collective_of[i] = idx;
    if (c.schedulable) {
      c.wait = wait;
      a.kind[i] = NodeKind::CollectiveStart;
      a.kind[wait] = NodeKind::Wait;
      a.collective_of[wait] = idx;
    }
    auto [it, _] = group_ids.emplace(c.group, static_cast<int32_t>(group_ids.size()));
    a.group_of.push_back(it->second);
    a.collectives.push_back(std::move(c));
  }
  a.group_names.resize(group_ids.size());
  for (const auto& [name, id] : group_ids)
    a.group_names[id] = name;
  a.group_has_schedulable.assign(group_ids.size(), false);
  for (size_t k = 0; k < a.collectives.size(); ++k)
    if (a.collectives[k].schedulable)
      a.group_has_schedulable[a.group_of[k]] = true;
}

// From the last node back, so a node's user is done before it: each chain
// is walked once.
void find_unary_chains(ScheduleAnalysis& a) {
  const NodeId n = a.graph.size();
  a.unary_chain_collective.assign(static_cast<size_t>(n), -1);
  for (NodeId i = n - 1; i >= 0; --i) {
    if (a.deps.num_users(i) != 1)
      continue;
    const NodeId user = *a.deps.users(i).first;
    if (a.deps.num_inputs(user) != 1)
      continue;
    if (a.kind[user] == NodeKind::CollectiveStart)
      a.unary_chain_collective[i] = user;
    else if (is_cheap_node(a.graph.nodes[user]))
      a.unary_chain_collective[i] = a.unary_chain_collective[user];
  }
}

void compute_domination(ScheduleAnalysis& a) {
  const NodeId n = a.graph.size();
  std::vector<int32_t> compute_ordinal(n, -1);
  for (NodeId i = 0; i < n; ++i)
    if (a.kind[i] == NodeKind::Compute) {
      compute_ordinal[i] = static_cast<int32_t>(a.compute_nodes.size());
      a.compute_nodes.push_back(i);
    }
  a.dom.assign(n, kOffComputePath);
  for (NodeId i = n - 1; i >= 0; --i) {
    if (compute_ordinal[i] >= 0) {
      a.dom[i] = compute_ordinal[i];
      continue;
    }
    auto [b, e] = a.deps.users(i);
    for (auto p = b; p != e; ++p)
      a.dom[i] = std::min(a.dom[i], a.dom[*p]);
  }
}

// Upstream measures memory after each node's frees: the original peak and
// the per-compute baseline the prefetch check projects onto.
void compute_baseline_memory(ScheduleAnalysis& a) {
  const Graph& g = a.graph;
  std::vector<NodeId> order(g.nodes.size());
  for (NodeId i = 0; i < g.size(); ++i)
    order[i] = i;
  MemoryProfile p = memory_profile(a.storages, order);
  a.original_peak = p.peak;
  a.baseline_before_compute.reserve(a.compute_nodes.size());
  int64_t since_last_compute = 0;
  for (NodeId i = 0; i < g.size(); ++i) {
    since_last_compute = std::max(since_last_compute, p.after_node[i]);
    if (a.kind[i] == NodeKind::Compute) {
      a.baseline_before_compute.push_back(since_last_compute);
      since_last_compute = p.after_node[i];
    }
  }
}

// Whether any compute node is independent of each schedulable collective
// (the bounded search of potential_overlap.h).
void find_potential_overlap(ScheduleAnalysis& a) {
  std::vector<NodeId> starts;
  for (const auto& c : a.collectives)
    if (c.schedulable)
      starts.push_back(c.start);
  PotentialOverlap potential(a.deps, a.compute_nodes);
  auto hideable = potential.find_hiding(starts);
  size_t k = 0;
  for (auto& c : a.collectives)
    if (c.schedulable)
      c.potentially_hideable = hideable[k++] >= 0;
}

} // namespace

struct ScheduleAnalysis::Parts {
  StorageMap storages;
  InputLists data_inputs; // read once: the dependency graph starts from them
  UserLists data_users;
  std::vector<NodeKind> kind;
};

// The storage map (and node kinds) on a second thread while the data users
// are built: neither reads the other.
ScheduleAnalysis::ScheduleAnalysis(const Graph& g, const RuntimeTable& rt,
                                   const SchedulerOptions& options)
    : ScheduleAnalysis(g, rt, options, [&g] {
        std::future<std::pair<StorageMap, std::vector<NodeKind>>> storages =
            std::async(std::launch::async,
                       [&g] { return std::make_pair(build_storage_map(g), base_kinds(g)); });
        InputLists inputs = build_input_lists(g, false);
        UserLists users = build_user_lists(g, inputs);
        auto [map, kinds] = storages.get();
        return Parts{std::move(map), std::move(inputs), std::move(users), std::move(kinds)};
      }()) {}

ScheduleAnalysis::ScheduleAnalysis(const Graph& g, const RuntimeTable& rt,
                                   const SchedulerOptions& options, Parts parts)
    : graph(g), runtimes(rt), storages(std::move(parts.storages)),
      data_users(std::move(parts.data_users)),
      opaque_ops(find_opaque_ops(g, parse_assume_pure(options.assume_pure))),
      is_opaque(g.nodes.size(), 0),
      deps(g, scheduler_edges(g, storages, data_users, opaque_ops, options.preserve_group_order),
           &parts.data_inputs),
      kind(std::move(parts.kind)) {
  for (const OpaqueOp& op : opaque_ops)
    is_opaque[static_cast<size_t>(op.node)] = 1;
  identify_collectives(*this);
  find_unary_chains(*this);
  compute_domination(*this);
  // The original order's memory beside the potential-overlap search.
  std::future<void> baseline =
      std::async(std::launch::async, [this] { compute_baseline_memory(*this); });
  find_potential_overlap(*this);
  baseline.get();
}

} // namespace osched
