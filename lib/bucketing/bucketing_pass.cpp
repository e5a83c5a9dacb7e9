#include "bucketing/bucketing_pass.h"

#include <algorithm>
#include <numeric>
#include <optional>

#include "format/graph_snapshot.h"
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
    NodeId first = intervals[b.members[0]].start, last = intervals[b.wait_at].wait;
    for (size_t m : b.members)
      first = std::min(first, intervals[m].start);
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

std::vector<MergedCollective> merges_of(const std::vector<Bucket>& buckets,
                                        const std::vector<OverlapInterval>& intervals,
                                        const std::vector<MergedCollective>& costs) {
  std::vector<MergedCollective> out;
  for (size_t k = 0; k < buckets.size(); ++k) {
    MergedCollective m = costs[k];
    m.starts.clear();
    for (size_t i : buckets[k].members)
      m.starts.push_back(intervals[i].start);
    m.issued_by = intervals[buckets[k].start_at].start;
    m.waited_at = intervals[buckets[k].wait_at].wait;
    out.push_back(std::move(m));
  }
  return out;
}

// A bucket's time against its members': the merged collective's exposure
// plus its copies, less the conversions its copy-in replaces, and the
// members' exposure without buckets.
struct BucketTime {
  double members = 0, merged = 0;
};
BucketTime bucket_time(const Bucket& b, const std::vector<OverlapInterval>& intervals,
                       const MergedCollective& cost, const SimulationResult& before,
                       const SimulationResult& after) {
  BucketTime t;
  t.merged = cost.issue_ms + cost.done_ms - cost.removed_ms;
  for (size_t m : b.members) {
    t.members += before.collective_exposed_ms[intervals[m].start];
    t.merged += after.collective_exposed_ms[intervals[m].start]; // held at the last start
  }
  return t;
}

// Buckets that cost more time than their members did. When none is locally
// to blame (stream queueing spreads the cost), all are.
std::vector<size_t> buckets_to_blame(const std::vector<BucketTime>& times) {
  std::vector<size_t> blamed;
  for (size_t k = 0; k < times.size(); ++k)
    if (times[k].merged > times[k].members + 1e-9)
      blamed.push_back(k);
  if (blamed.empty())
    for (size_t k = 0; k < times.size(); ++k)
      blamed.push_back(k);
  return blamed;
}

GivenUpBucket given_up(const Graph& g, const std::vector<OverlapInterval>& intervals,
                       const Bucket& b, const char* why) {
  GivenUpBucket u;
  for (size_t m : b.members)
    u.members.push_back(g.nodes[intervals[m].start].name);
  u.size_bytes = b.size_bytes;
  u.why = why;
  return u;
}

// Gives up buckets until the simulated step is no slower than without any.
void keep_buckets_that_do_not_slow(const Graph& g, const std::vector<OverlapInterval>& intervals,
                                   const StepCheck& step, std::vector<Bucket>& buckets,
                                   BucketingResult& r) {
  std::vector<MergedCollective> ms;
  for (const Bucket& b : buckets)
    ms.push_back(step.merged(g, b));
  const SimulationResult before = step.simulate(g, {});
  r.unbucketed_step_ms = r.bucketed_step_ms = before.step_ms;
  while (!buckets.empty()) {
    SimulationResult after = step.simulate(g, merges_of(buckets, intervals, ms));
    if (after.step_ms <= before.step_ms + 1e-9) {
      r.bucketed_step_ms = after.step_ms;
      return;
    }
    std::vector<BucketTime> times;
    for (size_t k = 0; k < buckets.size(); ++k)
      times.push_back(bucket_time(buckets[k], intervals, ms[k], before, after));
    const std::vector<size_t> blamed = buckets_to_blame(times);
    for (size_t k : blamed) {
      GivenUpBucket u = given_up(g, intervals, buckets[k], "time");
      u.members_exposed_ms = times[k].members;
      u.merged_cost_ms = times[k].merged;
      r.given_up.push_back(std::move(u));
    }
    for (size_t k = blamed.size(); k-- > 0;) {
      buckets.erase(buckets.begin() + static_cast<std::ptrdiff_t>(blamed[k]));
      ms.erase(ms.begin() + static_cast<std::ptrdiff_t>(blamed[k]));
    }
    r.dropped_for_time += blamed.size();
  }
}
} // namespace

BucketingResult bucket_collectives(Graph&& scheduled, const std::vector<OverlapInterval>& intervals,
                                   const BucketOptions& opts, int64_t budget_bytes,
                                   int64_t scheduled_peak_bytes, const StepCheck* step) {
  std::vector<Bucket> buckets = plan_buckets(scheduled, intervals, opts);
  BucketingResult r;
  auto peak_of = [](const Graph& g) {
    std::vector<NodeId> identity(g.nodes.size());
    std::iota(identity.begin(), identity.end(), 0);
    return memory_peak(build_storage_map(g), identity);
  };
  // The result's peak, unless the budget check measured it already.
  auto finish = [&](bool peak_known) {
    if (!peak_known)
      r.peak_bytes = peak_of(r.bucketed.graph);
    return std::move(r);
  };
  if (!buckets.empty() && step)
    keep_buckets_that_do_not_slow(scheduled, intervals, *step, buckets, r);
  else if (step) // nothing to merge: the step without buckets is the step
    r.unbucketed_step_ms = r.bucketed_step_ms = step->simulate(scheduled, {}).step_ms;
  if (!buckets.empty()) {
    // While a bucket is in flight (its first member's start up to the split
    // after its wait) it adds at most twice its bytes: the flat input and
    // output beside the members' tensors. Only when the in-flight buckets
    // together could pass the budget is a way back to the unbucketed graph
    // needed.
    const int64_t bound = scheduled_peak_bytes + max_concurrent_bucket_bytes(buckets, intervals);
    const bool may_exceed = budget_bytes > 0 && bound > budget_bytes;
    std::optional<GraphSnapshot> backup;
    if (may_exceed)
      backup.emplace(scheduled, kCompactBackupNodes);
    while (!buckets.empty()) {
      r.bucketed = apply_buckets(std::move(scheduled), intervals, buckets);
      if (may_exceed) {
        r.peak_bytes = peak_of(r.bucketed.graph);
        if (r.peak_bytes > budget_bytes) {
          size_t largest = 0; // among equal sizes the later bucket goes first
          for (size_t i = 1; i < buckets.size(); ++i)
            if (buckets[i].size_bytes >= buckets[largest].size_bytes)
              largest = i;
          r.bucketed = BucketedGraph{};
          scheduled = backup->restore();
          r.given_up.push_back(given_up(scheduled, intervals, buckets[largest], "memory"));
          buckets.erase(buckets.begin() + static_cast<std::ptrdiff_t>(largest));
          ++r.dropped_for_memory;
          continue;
        }
      }
      for (const Bucket& b : buckets)
        r.collectives_merged += b.members.size();
      return finish(may_exceed); // without a budget check, the peak is counted now
    }
  }
  // Nothing to merge: the graph is taken as it is.
  r.bucketed.graph = std::move(scheduled);
  r.bucketed.intervals = intervals;
  return finish(false);
}

} // namespace osched
