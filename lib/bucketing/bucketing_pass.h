#pragma once
// The bucketing pass: plan buckets, rewrite the graph, and keep the peak
// memory within the scheduler's budget (a bucket completes at its first
// member's wait, so later members' outputs live longer). Buckets are given up,
// largest first, until the rewritten graph fits.

#include <cstdint>
#include <vector>

#include <nlohmann/json.hpp>

#include "bucketing/apply_buckets.h"
#include "bucketing/bucket_planner.h"
#include "bucketing/overlap_interval.h"
#include "graph/graph.h"

namespace osched {

struct BucketingResult {
  BucketedGraph bucketed;
  size_t collectives_merged = 0;
  size_t dropped_for_memory = 0; // planned buckets given up to stay within the budget
  int64_t peak_bytes = 0;        // of the rewritten graph, in its order
};

// `budget_bytes` <= 0: no memory limit.
// Consumes `scheduled`; its nodes move into the result. Only when the budget
// could be passed (and buckets might have to be given up) is a way back kept:
// a copy, or protobuf bytes for graphs of 250k nodes and more.
BucketingResult bucket_collectives(Graph&& scheduled, const std::vector<OverlapInterval>& intervals,
                                   const BucketOptions& opts, int64_t budget_bytes,
                                   int64_t scheduled_peak_bytes);

} // namespace osched
