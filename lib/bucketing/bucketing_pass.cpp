#include "bucketing/bucketing_pass.h"

#include <algorithm>
#include <numeric>

#include "memory/memory_tracker.h"
#include "memory/storage_map.h"

namespace osched {

BucketingResult bucket_collectives(Graph&& scheduled, const std::vector<OverlapInterval>& intervals,
                                   const BucketOptions& opts, int64_t budget_bytes) {
  std::vector<Bucket> buckets = plan_buckets(scheduled, intervals, opts);
  BucketingResult r;
  auto peak_of = [](const Graph& g) {
    std::vector<NodeId> identity(g.nodes.size());
    std::iota(identity.begin(), identity.end(), 0);
    return memory_profile(build_storage_map(g), identity).peak;
  };
  while (!buckets.empty()) {
    // A rewritten copy: the scheduled graph stays intact in case this one
    // does not fit and buckets must be given up.
    r.bucketed = apply_buckets(scheduled, intervals, buckets);
    r.peak_bytes = peak_of(r.bucketed.graph);
    if (budget_bytes <= 0 || r.peak_bytes <= budget_bytes) {
      for (const Bucket& b : buckets)
        r.collectives_merged += b.members.size();
      return r;
    }
    size_t largest = 0; // among equal sizes the later bucket goes first
    for (size_t i = 1; i < buckets.size(); ++i)
      if (buckets[i].size_bytes >= buckets[largest].size_bytes)
        largest = i;
    buckets.erase(buckets.begin() + static_cast<std::ptrdiff_t>(largest));
    ++r.dropped_for_memory;
  }
  // Nothing to merge: the graph is taken as it is, without a copy.
  r.bucketed = BucketedGraph{};
  r.bucketed.graph = std::move(scheduled);
  r.bucketed.intervals = intervals;
  r.peak_bytes = peak_of(r.bucketed.graph);
  return r;
}

} // namespace osched
