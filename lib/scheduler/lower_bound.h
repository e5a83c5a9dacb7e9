#pragma once
// A step no order of the graph can beat under the simulation's rules
// (sim/simulate.h), whatever the scheduler does. Each fact below gives a
// bound; the largest is reported:
// - compute: the compute stream runs every node with a runtime once, one
//   at a time, so the step is at least their sum;
// - busiest group: a group's stream runs its collectives one at a time and
//   the step ends after the last, so at least the largest group's sum;
// - critical path: the longest chain of blocking dependencies;
// - compute + blocking communication: a collective is blocking when every
//   node of the compute stream is an ancestor of it (done before it is
//   issued) or a descendant of a node that blocks on it (run after it ends):
//   while it transfers the compute stream is idle. One group's blocking
//   collectives run one after another, so the step is at least the compute
//   plus the largest group's blocking sum. (Two groups' blocking transfers
//   may run at once: they are not added.)
// - compute + exclusive communication: more generally, while a set of one
//   group's collectives transfer (one after another), the compute stream
//   can run only nodes independent of some member (neither its ancestor
//   nor after one of its readers). So the step is at least the compute plus
//   the set's stream time less the stream time of those nodes. Sets tried:
//   per group, the collectives whose own independent stream time is at
//   most t times their time, for a few t (a second pass of bits, where the
//   bits are used; the blocking set alone otherwise).
// - release: no stream node starts before its longest path allows. For any
//   time r, the nodes that cannot start before r all run after it, so the
//   step is at least r plus their stream time; and when a set's members
//   cannot be issued before r they transfer after it, adding the set's
//   exclusive communication. The largest over r (and sets) is taken.
// - through a collective: its ancestors run on the compute stream, one at a
//   time, before it starts; the descendants of its readers after it ends.
//   So no collective starts before its ancestors' stream time, and the
//   longest path with collectives started no earlier than that, plus the
//   stream time of the readers' descendants after a collective, is a bound
//   (for a blocking collective: at least the compute plus its time).
// Blocking collectives are found 64 at a time by two passes of bit masks
// over the graph where those passes cost no more than a few times the
// graph's size; otherwise by a walk per collective, and past a work limit
// (by default a few times the graph's size, so the cost stays linear) the
// rest count as not blocking, which keeps the bound a bound.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "cost/estimator.h"
#include "graph/graph.h"

namespace osched {

struct StepLowerBound {
  double step_ms = 0;
  double compute_ms = 0;
  double blocking_comm_ms = 0; // the largest group's blocking collectives
  // At least that: the largest, over sets of one group's collectives, of
  // their stream time less the stream time independent of some member.
  double exclusive_comm_ms = 0;
  // Release: a time r plus the stream time of the nodes that cannot start
  // before r, plus the exclusive communication of a set whose members cannot
  // be issued before r; the largest.
  double release_ms = 0;
  double busiest_group_comm_ms = 0;
  std::string busiest_group;
  // Per group: its collectives and the time its stream is busy with them.
  std::map<std::string, size_t> group_collectives;
  std::map<std::string, double> group_comm_ms;
  double critical_path_ms = 0;
  // The largest over collectives of: the stream time of its ancestors, plus
  // its own, plus that of its readers' descendants.
  double through_collective_ms = 0;
  std::string through_collective;
  bool complete = true; // every collective examined (false: the work limit was hit)
};

// What bucketing may merge, for a bound over every order and every
// bucketing of a graph (bucketing/any_bucketing_bound.h fills it and says
// why it holds). Per collective, by its index in the plan's collectives:
// its pool (collectives some bucket may merge; -1: never merged, its own
// time; kUncosted: counted as taking no time, its bucket's cost unknown),
// its bytes and the least time of any bucket holding it. Per pool: the least
// time per byte of any bucket from it. Per node: whether a bucket's rewrite
// may delete it (its time then counts as none).
struct MergePools {
  static constexpr int32_t kUncosted = -2;
  std::vector<int32_t> pool;
  std::vector<double> bytes;
  std::vector<double> least_bucket_ms;
  std::vector<double> least_ms_per_byte; // per pool
  std::vector<char> removable;           // per node
  // The least stream time of buckets holding the given members of one pool
  // (every member in some bucket, at least one bucket).
  double floor_ms(int32_t pool, double bytes, double least_bucket_ms) const;
};

// `work_limit`: edges walked at most; negative for the default.
StepLowerBound step_lower_bound(const Graph& g, const RuntimeTable& rt, int64_t work_limit = -1);
struct SimulationPlan;
// The same over the graph's simulation plan, when the caller has it.
// `path_rt`: the times the paths use (the graph's own estimates). With
// `merges`, a bound over every bucketing too: a group's stream time and its
// blocking time come from the pools' floors, removable nodes take no time,
// and `path_rt` must give each collective its least bucket time and
// removable nodes none.
StepLowerBound step_lower_bound(const Graph& g, const SimulationPlan& plan,
                                const RuntimeTable& path_rt, int64_t work_limit = -1,
                                const MergePools* merges = nullptr);

} // namespace osched
