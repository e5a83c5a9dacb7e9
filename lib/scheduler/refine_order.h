#pragma once
// --policy improved: a bounded local search after the upstream greedy. Each
// collective the simulation still shows exposed is tried with its start
// moved earlier (up to just after its last dependency) and its wait moved
// later (up to just before its first user); a move is kept only when the
// simulated step gets shorter, the peak stays within the memory limit and
// the greedy's other limits (in-flight bytes, compute pre-fetch, collective
// distance) are kept as scheduler/limit_use.h measures them.
// Moves keep every dependency, so the result is a valid order that is never
// worse than the one given. The work is bounded by a number of trial
// simulations, not a clock, so identical runs make identical moves.

#include <cstdint>
#include <vector>

#include "cost/estimator.h"
#include "graph/graph.h"
#include "scheduler/limit_use.h"
#include "scheduler/options.h"

namespace osched {

struct RefineResult {
  std::vector<NodeId> order;
  int moves = 0;  // kept moves
  int trials = 0; // simulated candidate orders
  bool budget_exhausted = false;
  double step_ms_before = 0, step_ms_after = 0;
  int64_t peak_bytes = 0; // of the returned order, as budgets are judged
};

// Trial simulations allowed for a graph of `nodes` nodes within about
// `time_ms` (one trial costs a simulation and a memory profile).
int refine_trial_budget(size_t nodes, int time_ms);

struct ScheduleAnalysis;
struct SimulationPlan;
// Over the analysis the greedy used (its options decide the dependencies)
// and the graph's simulation plan; no kept order uses more than `caps`.
RefineResult refine_order(const ScheduleAnalysis& a, const SimulationPlan& plan,
                          std::vector<NodeId> order, int64_t memory_limit, const LimitUse& caps,
                          int max_trials);
// The same, building the analysis and the plan; the caps are the options'
// limits, or what `order` (the greedy's) uses where that is more.
RefineResult refine_order(const Graph& g, const RuntimeTable& rt, const SchedulerOptions& options,
                          std::vector<NodeId> order, int64_t memory_limit, int max_trials);

} // namespace osched
