#pragma once
// Which collectives to merge, without losing any overlap the schedule found
// (after PyTorch's overlap_preserving_bucketer.py). Candidates share process
// group, kind and reduce op (and dtype, except all-gathers, which upstream
// buckets across dtypes). Per group and key, collectives are taken in order:
// each one not yet bucketed opens a bucket, and the next max_coll_distance
// of its key join it while they fit the byte cap (upstream stops at 20
// failures in a row). A candidate joins if some placement of the merged
// start and wait works, tried in upstream's order: the bucket's start with
// the candidate's wait, the bucket's start and wait, the candidate's start
// and wait, the candidate's start with the bucket's wait. A placement works
// when every member's hiding node lies strictly inside it, the nodes that
// must move for it (the inputs of a start placed earlier, the users of a
// wait placed later) may move, and it encloses no other same-group
// collective's hiding interval, nor is a hiding interval of the bucket
// enclosed by another's execution (one stream runs a group in issue order),
// and no member's start or wait crosses an opaque op (safety/opaque_ops.h).

#include <cstdint>
#include <string>
#include <vector>

#include "bucketing/overlap_interval.h"
#include "graph/graph.h"

namespace osched {

struct BucketOptions {
  int64_t max_bucket_bytes = int64_t{2}
                             << 30; // input + output bytes of one bucket (upstream: 2 GB)
  int max_coll_distance = 200;      // candidates looked at after a bucket's first member
  // Members only consecutive in their group's issue order, so no other
  // collective of the group is overtaken (--preserve-group-order).
  bool preserve_group_order = false;
  // Targets declared pure (--assume-pure): every other op the tool cannot
  // classify is a barrier no merged start or wait moves across.
  std::string assume_pure;
};

struct Bucket {
  std::vector<size_t> members; // indices into the intervals, in start order
  int64_t size_bytes = 0;
  size_t start_at = 0; // the member whose start position the merged start takes
  size_t wait_at = 0;  // the member whose wait position the merged wait takes
  // Nodes that move: before the merged start (inputs of later members), and
  // after the merged wait (users of earlier members' waits), in order.
  std::vector<NodeId> hoisted, sunk;
};

std::vector<Bucket> plan_buckets(const Graph& g, const std::vector<OverlapInterval>& colls,
                                 const BucketOptions& opts);

} // namespace osched
