#pragma once
// Discrete-event model of one step: one compute stream runs nodes in order;
// each process group has its own communication stream that runs its
// collectives in issue order; a wait blocks the compute stream until its
// collective finishes.

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

// Collectives to run as one (a bucket, judged before the graph is
// rewritten): issued at `issued_by` (one of the starts; -1: the last),
// taking `ms`, complete for every member once it finishes. Its exposure is
// reported at the issuing start.
struct MergedCollective {
  std::vector<NodeId> starts;
  double ms = 0;
  NodeId issued_by = -1;
};
SimulationResult simulate_step(const Graph& g, const RuntimeTable& rt,
                               const std::vector<NodeId>& order,
                               const std::vector<MergedCollective>& merged);

} // namespace osched
