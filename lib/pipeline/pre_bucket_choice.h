#pragma once
// Pre-bucketing as the pipeline runs it: the input with its FSDP-style
// collectives merged (bucketing/pre_bucket.h) is scheduled beside the input
// itself, and the written graph that runs faster is kept. The report then
// says what was merged, both steps, and why the one kept was kept.

#include <optional>
#include <vector>

#include "bucketing/apply_buckets.h"
#include "bucketing/pre_bucket.h"
#include "graph/graph.h"
#include "pipeline/schedule_pipeline.h"

namespace osched {

struct PreBucketed {
  Graph graph; // the input with its buckets merged
  PreBucketPlan plan;
  std::vector<BucketSummary> buckets; // the merged collectives and their members
  double seconds = 0;                 // planning and rewriting
};

// nullopt when no two collectives merge.
std::optional<PreBucketed> pre_bucket(const Graph& input, const PreBucketOptions& opts,
                                      const CollectiveTime& time);

// The output kept of the two: the pre-bucketed graph's where its written
// step is shorter than the plain run's and its peak within the plain run's
// budget (or the plain schedule's own peak where that passes it), else the
// plain one's. Its report's pre_bucketing section says which and why; its
// phase_seconds end with the other's, named as such. When the merged output
// is kept, what its report says about the input (the input section, the
// input order's step, exposure and peak, each collective's exposure
// before, the original timeline) is the plain run's: the user's graph, not
// the rewritten one.
ScheduleOutput choose_pre_bucketed(const PreBucketed& pre, ScheduleOutput plain,
                                   ScheduleOutput merged);

} // namespace osched
