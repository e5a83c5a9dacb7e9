#include "bucketing/bucketing_pass.h"

#include <algorithm>
#include <numeric>

#include "memory/memory_tracker.h"
#include "memory/storage_map.h"

namespace osched {

BucketingResult bucket_collectives(const Graph& scheduled,
                                   const std::vector<OverlapInterval>& intervals,
                                   const BucketOptions& opts, int64_t budget_bytes) {
  std::vector<Bucket> buckets = plan_buckets(scheduled, intervals, opts);
  BucketingResult r;
  while (true) {
    r.bucketed = apply_buckets(scheduled, intervals, buckets);
    const Graph& g = r.bucketed.graph;
    std::vector<NodeId> identity(g.nodes.size());
    std::iota(identity.begin(), identity.end(), 0);
    r.peak_bytes = memory_profile(build_storage_map(g), identity).peak;
    if (budget_bytes <= 0 || r.peak_bytes <= budget_bytes || buckets.empty())
      break;
    size_t largest = 0; // among equal sizes the later bucket goes first
    for (size_t i = 1; i < buckets.size(); ++i)
      if (buckets[i].size_bytes >= buckets[largest].size_bytes)
        largest = i;
    buckets.erase(buckets.begin() + static_cast<std::ptrdiff_t>(largest));
    ++r.dropped_for_memory;
  }
  for (const Bucket& b : buckets)
    r.collectives_merged += b.members.size();
  return r;
}

} // namespace osched
