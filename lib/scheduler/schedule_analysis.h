#pragma once
// What the overlap scheduler knows about a graph before placing any node:
// node kinds, the collectives with their waits and groups, the dependency
// graph with the scheduler's extra edges, which compute node each node
// blocks (domination), the original order's memory per compute node, and
// which collectives some compute could hide at all. Built once per graph
// and shared by every scheduling attempt (the memory guarantee's retries).

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "cost/estimator.h"
#include "graph/graph.h"
#include "memory/storage_map.h"
#include "safety/opaque_ops.h"
#include "scheduler/dependency_graph.h"
#include "scheduler/options.h"
#include "scheduler/schedule_result.h"

namespace osched {

enum class NodeKind : uint8_t { Placeholder, Compute, CollectiveStart, Wait, Other, Output };

// dom of a node that blocks no compute node.
constexpr int32_t kOffComputePath = std::numeric_limits<int32_t>::max();

struct ScheduleAnalysis {
  ScheduleAnalysis(const Graph& g, const RuntimeTable& rt, const SchedulerOptions& options);

  const Graph& graph;
  const RuntimeTable& runtimes;
  StorageMap storages;
  UserLists data_users;
  // Ops collectives may not move across, and per node whether it is one.
  std::vector<OpaqueOp> opaque_ops;
  std::vector<char> is_opaque;
  // Data, control, write-order, coalesced-wait and barrier edges.
  DependencyGraph deps;
  std::vector<NodeKind> kind;
  // Per collective (in graph order): the outcome before anything is hidden,
  // its group's index, and per node the collective it starts or waits on.
  std::vector<CollectiveOutcome> collectives;
  std::vector<int32_t> group_of;
  std::vector<std::string> group_names;
  std::vector<bool> group_has_schedulable; // groups whose overlap time is accounted
  std::vector<int32_t> collective_of;      // -1 for other nodes
  // The first compute node (by ordinal) each node is an ancestor of.
  std::vector<int32_t> dom;
  // Per node, the collective start its chain of single-user, single-input
  // cheap nodes ends in, or -1 (upstream's "unary chain to a collective",
  // found once per node rather than walked at every ready node).
  std::vector<NodeId> unary_chain_collective;
  std::vector<NodeId> compute_nodes;
  // Per compute ordinal k: the most memory in the original order from after
  // compute k-1 through compute k (upstream's "memory before compute k").
  std::vector<int64_t> baseline_before_compute;
  int64_t original_peak = 0; // after each node's frees, as upstream

private:
  struct Parts; // what is built on two threads first
  ScheduleAnalysis(const Graph& g, const RuntimeTable& rt, const SchedulerOptions& options,
                   Parts parts);
};

} // namespace osched
