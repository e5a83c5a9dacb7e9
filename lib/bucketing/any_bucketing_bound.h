#pragma once
// A step that no graph the tool may write from this one beats: any order
// and any bucketing (pre-bucketing, collective bucketing, or merges PyTorch
// makes) under the simulation's rules. Merging removes latency, not bytes,
// so scheduler/lower_bound.h's terms carry over with each collective that a
// bucket may take counted at its floor:
// - pools: collectives of one group and kind (all-gather, reduce-scatter,
//   all-reduce, of known size) may share buckets, whatever their dtype and
//   reduce op. A bucket is costed by its members' rule (cost/merge_floor.h),
//   and its size lies between the pool's smallest member and the pool's
//   sum, so it costs at least its bytes at the least rate per byte over that
//   range, and at least that range's least time;
// - a group's stream runs its buckets one at a time: at least the pools'
//   floors over all their members plus the collectives never merged;
// - a collective that blocks the whole compute stream in this graph (every
//   stream node before it or after a reader of it) does so in any bucket
//   holding it, since merging only adds dependencies: at least the pools'
//   floors over the blocking members, per group, beside the compute;
// - the compute stream: every node but the conversions a bucket's copy-in
//   may perform (an all-gather input converted by a node feeding nothing
//   else), which the rewrite deletes; copies add time, so leaving them out
//   keeps a bound;
// - the critical path with each collective at the least time of any bucket
//   holding it and the removable conversions at none.
// A collective whose bucket another rule would cost (a user estimate for
// collective ops, measured runtimes) counts as taking no time, which keeps
// the bound a bound; `uncosted` says how many.

#include <cstddef>

#include "cost/estimator.h"
#include "graph/graph.h"
#include "scheduler/lower_bound.h"
#include "sim/simulate.h"

namespace osched {

struct AnyBucketingBound {
  StepLowerBound bound;
  size_t pooled = 0;   // collectives some bucket may take
  size_t uncosted = 0; // counted as taking no time
};

// `rt` and `plan`: the graph's estimates and simulation plan. `custom` and
// `measured` say which rules other than `table` and the model would cost a
// bucket.
AnyBucketingBound any_bucketing_bound(const Graph& g, const SimulationPlan& plan,
                                      const RuntimeTable& rt, const CollectiveTable* table,
                                      const HardwareSpec& hw, const CustomEstimates* custom,
                                      bool measured);

} // namespace osched
