#pragma once
// Discrete-event model of one step: one compute stream runs nodes in order;
// each process group has its own communication stream that runs its
// collectives in issue order; a wait blocks the compute stream until its
// collective finishes.

#include <string>
#include <vector>

#include "cost/estimator.h"
#include "graph/graph.h"

namespace osched {

struct SimulationResult {
  double step_ms = 0;
  double compute_ms = 0;                     // busy time of the compute stream
  double exposed_comm_ms = 0;                // time the compute stream waited on collectives
  std::vector<double> collective_exposed_ms; // per node (collective starts), else 0
};

SimulationResult simulate_step(const Graph& g, const RuntimeTable& rt,
                               const std::vector<NodeId>& order);

// 0, 1, ..., n-1: a graph's nodes in the order they are written.
std::vector<NodeId> identity_order(size_t n);

// One interval of the simulated step, for timelines: a compute node on the
// compute stream, a collective on its group's stream, or the compute
// stream blocked at `node` until collective `on` finishes.
struct SimEvent {
  enum class Kind : uint8_t { Compute, Collective, ExposedWait };
  Kind kind = Kind::Compute;
  NodeId node = -1;
  NodeId on = -1; // ExposedWait: the collective waited for
  double start_ms = 0, end_ms = 0;
};

// Collectives to run as one (a bucket, judged before the graph is
// rewritten): issued at `issued_by` (one of the starts; -1: the last),
// taking `ms`, complete for every member once it finishes. Its exposure is
// reported at the issuing start.
struct MergedCollective {
  std::vector<NodeId> starts;
  double ms = 0;
  NodeId issued_by = -1;
  // The rewrite's own kernels: the copy into the flat buffer, run on the
  // compute stream just before the merged collective is issued, and the
  // copy out, right after its first wait; and the nodes the rewrite deletes
  // (dtype conversions the copy-in performs), whose time goes with them.
  double issue_ms = 0;
  double done_ms = 0;
  // The merged wait's place: the one member wait that stays (the others go
  // with the rewrite), where the copy-out follows. -1: the first to block.
  NodeId waited_at = -1;
  std::vector<NodeId> removed;
  double removed_ms = 0; // their time, for judging the bucket (not simulated here)
};
// `events`, when given, receives every interval in time order per stream.
SimulationResult simulate_step(const Graph& g, const RuntimeTable& rt,
                               const std::vector<NodeId>& order,
                               const std::vector<MergedCollective>& merged,
                               std::vector<SimEvent>* events = nullptr);

// What the simulation needs of a graph, decoded once: per node its role,
// runtime and group, and the collectives each node blocks on. Searches that
// simulate many orders of one graph (refine_order) build it once; a
// simulation over it is a loop over plain arrays.
struct SimulationPlan {
  enum class Role : uint8_t { Passive, Collective, Reader, Compute };
  std::vector<Role> role; // Passive: metadata reads, getitem selections
  std::vector<double> ms;
  std::vector<int32_t> group; // a collective's stream, else -1
  // Per node, the collectives among its data inputs (a getitem of one
  // stands for it), in argument order: what the node blocks on.
  std::vector<int64_t> blocks_offset;
  std::vector<NodeId> blocks_on;
  std::vector<NodeId> collectives; // in node order
  int32_t groups = 0;
  std::vector<std::string> group_names; // by stream index
};
SimulationPlan make_simulation_plan(const Graph& g, const RuntimeTable& rt);

// The plan of the graph reordered so that position i holds node order[i]
// (scheduler/reorder.h's apply_order): the same as making it from that
// graph and its estimates, without decoding a node again.
SimulationPlan permute_plan(const SimulationPlan& plan, const std::vector<NodeId>& order);
SimulationResult simulate_step(const SimulationPlan& plan, const std::vector<NodeId>& order,
                               const std::vector<MergedCollective>& merged = {},
                               std::vector<SimEvent>* events = nullptr);

// The longest chain of blocking dependencies under the simulation's rules:
// compute nodes take their runtime, a collective its runtime from when its
// inputs are ready, readers that block on a collective (not metadata reads)
// wait for it. No order's simulated step is shorter: a lower bound.
// `earliest_start`, when given: per node, a time no collective starts
// before (scheduler/lower_bound.h raises each to its ancestors' compute);
// `done`, when given, receives each node's earliest finish.
double critical_path_ms(const Graph& g, const RuntimeTable& rt,
                        const std::vector<double>* earliest_start = nullptr,
                        std::vector<double>* done_out = nullptr);

} // namespace osched
