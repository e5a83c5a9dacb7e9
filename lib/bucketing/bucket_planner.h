#pragma once
// Which collectives to merge, without losing any overlap the schedule found
// (after PyTorch's overlap_preserving_bucketer.py). Candidates share process
// group, kind, dtype and reduce op, and follow each other in their group's
// issue order. A merged collective starts where its last member started and
// completes where its first member was waited on, so every member's hiding
// compute must lie strictly inside that interval. Members are consecutive in
// the group's issue order, so no other collective of the group is issued
// between them and the group's stream order, with what it hides, is kept.

#include <cstdint>
#include <string>
#include <vector>

#include "bucketing/overlap_interval.h"
#include "graph/graph.h"

namespace osched {

struct BucketOptions {
  int64_t max_bucket_bytes = int64_t{1} << 30; // input + output bytes of one bucket
  int max_coll_distance = 200; // max group-order distance between first and last member
};

struct Bucket {
  std::vector<size_t> members; // indices into the intervals, in issue order
  int64_t size_bytes = 0;
};

std::vector<Bucket> plan_buckets(const Graph& g, const std::vector<OverlapInterval>& colls,
                                 const BucketOptions& opts);

} // namespace osched
