#pragma once
// The bucketing pass: plan buckets, rewrite the graph, and keep a bucket only
// if the result stays within the scheduler's memory budget (a bucket
// completes at its first member's wait, so later members' outputs live
// longer) and the re-simulated step does not get slower (a merged collective
// runs from its last member's start to its first member's wait, a narrower
// window). Buckets are given up, largest first for memory, those whose
// merged collective is more exposed than its members were for time, until
// the rewritten graph passes both.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bucketing/apply_buckets.h"
#include "bucketing/bucket_planner.h"
#include "bucketing/overlap_interval.h"
#include "graph/graph.h"
#include "sim/simulate.h"

namespace osched {

// A planned bucket that is not in the written graph, and why.
struct GivenUpBucket {
  std::vector<std::string> members; // the collectives' names
  int64_t size_bytes = 0;
  std::string why; // "memory" or "time"
  // For time: the members' exposure in the step without buckets, and what
  // the merged collective cost in the step with them (its exposure, plus its
  // copies, less the conversions its copy-in performs).
  double members_exposed_ms = 0, merged_cost_ms = 0;
};

struct BucketingResult {
  BucketedGraph bucketed;
  size_t collectives_merged = 0;
  size_t dropped_for_memory = 0;       // planned buckets given up to stay within the budget
  size_t dropped_for_time = 0;         // given up because the step got slower with them
  std::vector<GivenUpBucket> given_up; // in the order they were given up
  int64_t peak_bytes = 0;              // of the rewritten graph, in its order
  double unbucketed_step_ms = 0;       // simulated, when the step was checked
  double bucketed_step_ms = 0; // the same with the buckets kept (before any dropped for memory)
};

// How the step is judged before anything is rewritten: the scheduled graph
// simulated in its own order with buckets as merged collectives, and a
// bucket's merged runtime.
struct StepCheck {
  std::function<SimulationResult(const Graph&, const std::vector<MergedCollective>&)> simulate;
  // A bucket's costs: its merged collective's time, its copies' and the
  // conversions it removes (starts and issued_by are filled in later).
  std::function<MergedCollective(const Graph&, const Bucket&)> merged;
};

// `budget_bytes` <= 0: no memory limit. Without `step`, the step is not
// checked. Consumes `scheduled`; its nodes move into the result. Only when
// the budget could be passed (and buckets might have to be given up) is a
// way back kept: a copy, or protobuf bytes for graphs of 250k nodes and more.
BucketingResult bucket_collectives(Graph&& scheduled, const std::vector<OverlapInterval>& intervals,
                                   const BucketOptions& opts, int64_t budget_bytes,
                                   int64_t scheduled_peak_bytes, const StepCheck* step = nullptr);

} // namespace osched
