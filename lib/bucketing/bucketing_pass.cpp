#include "bucketing/bucketing_pass.h"

#include <algorithm>
#include <numeric>

#include "io/proto_io.h"
#include "memory/memory_tracker.h"
#include "memory/storage_map.h"

namespace osched {

namespace {
// From this size on, the way back is kept as protobuf bytes, not a copy.
constexpr size_t kCompactBackupNodes = 250000;

// The largest sum of 2 x bytes over buckets in flight at the same position.
int64_t max_concurrent_bucket_bytes(const std::vector<Bucket>& buckets,
                                    const std::vector<OverlapInterval>& intervals) {
  std::vector<std::pair<NodeId, int64_t>> events; // (position, +/- bytes); ends sort first
  for (const Bucket& b : buckets) {
    NodeId first = intervals[b.members[0]].start, last = intervals[b.members[0]].wait;
    for (size_t m : b.members) {
      first = std::min(first, intervals[m].start);
      last = std::min(last, intervals[m].wait);
    }
    events.emplace_back(first, 2 * b.size_bytes);
    events.emplace_back(last + 2, -2 * b.size_bytes); // the split follows the wait
  }
  std::sort(events.begin(), events.end());
  int64_t live = 0, most = 0;
  for (const auto& [pos, delta] : events) {
    live += delta;
    most = std::max(most, live);
  }
  return most;
}
} // namespace

BucketingResult bucket_collectives(Graph&& scheduled, const std::vector<OverlapInterval>& intervals,
                                   const BucketOptions& opts, int64_t budget_bytes,
                                   int64_t scheduled_peak_bytes) {
  std::vector<Bucket> buckets = plan_buckets(scheduled, intervals, opts);
  BucketingResult r;
  auto peak_of = [](const Graph& g) {
    std::vector<NodeId> identity(g.nodes.size());
    std::iota(identity.begin(), identity.end(), 0);
    return memory_profile(build_storage_map(g), identity).peak;
  };
  if (!buckets.empty()) {
    // While a bucket is in flight (its first member's start up to the split
    // after its wait) it adds at most twice its bytes: the flat input and
    // output beside the members' tensors. Only when the in-flight buckets
    // together could pass the budget is a way back to the unbucketed graph
    // needed: a copy (fast) or, for very large graphs, protobuf bytes (a
    // fraction of the memory, some seconds per million nodes).
    const int64_t bound = scheduled_peak_bytes + max_concurrent_bucket_bytes(buckets, intervals);
    const bool may_exceed = budget_bytes > 0 && bound > budget_bytes;
    const bool compact_backup = may_exceed && scheduled.nodes.size() >= kCompactBackupNodes;
    std::string backup;
    if (compact_backup) {
      backup.reserve(scheduled.nodes.size() * 128); // typical bytes per node: no regrowth
      write_graph_proto(scheduled, [&](std::string_view piece) { backup.append(piece); });
    }
    while (!buckets.empty()) {
      if (may_exceed && !compact_backup)
        r.bucketed = apply_buckets(scheduled, intervals, buckets); // a copy; `scheduled` stays
      else
        r.bucketed = apply_buckets(std::move(scheduled), intervals, buckets);
      r.peak_bytes = peak_of(r.bucketed.graph);
      if (!may_exceed || r.peak_bytes <= budget_bytes) {
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
      r.bucketed = BucketedGraph{};
      if (compact_backup)
        scheduled = graph_from_proto_bytes(backup);
    }
  }
  // Nothing to merge: the graph is taken as it is.
  r.bucketed.graph = std::move(scheduled);
  r.bucketed.intervals = intervals;
  r.peak_bytes = peak_of(r.bucketed.graph);
  return r;
}

} // namespace osched
