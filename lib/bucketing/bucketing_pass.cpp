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

namespace {
// Buckets whose merged collective is more exposed than its members were
// before: what makes the step slower. When none is locally to blame (stream
// queueing spreads the cost), all are.
std::vector<size_t> buckets_to_blame(const std::vector<Bucket>& buckets, const BucketedGraph& bucketed,
                                     const std::vector<OverlapInterval>& intervals,
                                     const SimulationResult& before, const SimulationResult& after) {
  std::vector<size_t> blamed;
  for (size_t k = 0; k < buckets.size(); ++k) {
    auto merged = bucketed.graph.find(bucketed.report[k]["name"].get<std::string>());
    double members = 0;
    for (size_t m : buckets[k].members) members += before.collective_exposed_ms[intervals[m].start];
    if (!merged || after.collective_exposed_ms[*merged] > members + 1e-9) blamed.push_back(k);
  }
  if (blamed.empty())
    for (size_t k = 0; k < buckets.size(); ++k) blamed.push_back(k);
  return blamed;
}
} // namespace

BucketingResult bucket_collectives(Graph&& scheduled, const std::vector<OverlapInterval>& intervals,
                                   const BucketOptions& opts, int64_t budget_bytes,
                                   int64_t scheduled_peak_bytes, const GraphSimulator& simulate) {
  std::vector<Bucket> buckets = plan_buckets(scheduled, intervals, opts);
  BucketingResult r;
  auto peak_of = [](const Graph& g) {
    std::vector<NodeId> identity(g.nodes.size());
    std::iota(identity.begin(), identity.end(), 0);
    return memory_profile(build_storage_map(g), identity).peak;
  };
  std::optional<SimulationResult> before;
  if (!buckets.empty() && simulate) {
    before = simulate(scheduled);
    r.unbucketed_step_ms = before->step_ms;
  }
  if (!buckets.empty()) {
    // While a bucket is in flight (its first member's start up to the split
    // after its wait) it adds at most twice its bytes: the flat input and
    // output beside the members' tensors. Only when the in-flight buckets
    // together could pass the budget is a way back to the unbucketed graph
    // needed: a copy (fast) or, for very large graphs, protobuf bytes (a
    // fraction of the memory, some seconds per million nodes).
    const int64_t bound = scheduled_peak_bytes + max_concurrent_bucket_bytes(buckets, intervals);
    const bool may_exceed = budget_bytes > 0 && bound > budget_bytes;
    // Either check may give buckets up, and then the graph is rewritten anew.
    const bool need_way_back = may_exceed || before.has_value();
    const bool compact_backup = need_way_back && scheduled.nodes.size() >= kCompactBackupNodes;
    std::string backup;
    if (compact_backup) {
      backup.reserve(scheduled.nodes.size() * 128); // typical bytes per node: no regrowth
      write_graph_proto(scheduled, [&](std::string_view piece) { backup.append(piece); });
    }
    while (!buckets.empty()) {
      if (need_way_back && !compact_backup)
        r.bucketed = apply_buckets(scheduled, intervals, buckets); // a copy; `scheduled` stays
      else
        r.bucketed = apply_buckets(std::move(scheduled), intervals, buckets);
      r.peak_bytes = peak_of(r.bucketed.graph);
      if (may_exceed && r.peak_bytes > budget_bytes) {
        size_t largest = 0; // among equal sizes the later bucket goes first
        for (size_t i = 1; i < buckets.size(); ++i)
          if (buckets[i].size_bytes >= buckets[largest].size_bytes)
            largest = i;
        buckets.erase(buckets.begin() + static_cast<std::ptrdiff_t>(largest));
        ++r.dropped_for_memory;
      } else {
        if (before)
          r.simulation = simulate(r.bucketed.graph);
        if (!before || r.simulation->step_ms <= before->step_ms + 1e-9) {
          for (const Bucket& b : buckets)
            r.collectives_merged += b.members.size();
          return r;
        }
        std::vector<size_t> blamed =
            buckets_to_blame(buckets, r.bucketed, intervals, *before, *r.simulation);
        for (size_t k = blamed.size(); k-- > 0;)
          buckets.erase(buckets.begin() + static_cast<std::ptrdiff_t>(blamed[k]));
        r.dropped_for_time += blamed.size();
        r.simulation.reset();
      }
      r.bucketed = BucketedGraph{};
      if (compact_backup)
        scheduled = graph_from_proto_bytes(backup);
    }
  }
  // Nothing to merge: the graph is taken as it is.
  r.bucketed.graph = std::move(scheduled);
  r.bucketed.intervals = intervals;
  r.peak_bytes = peak_of(r.bucketed.graph);
  if (before)
    r.simulation = std::move(before);
  return r;
}

} // namespace osched
