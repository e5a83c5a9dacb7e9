#pragma once
// The scheduler's choices, separate from its mechanism (as XLA's
// latency-hiding scheduler separates them): which ready node runs next, and
// in which order the candidate collectives of an overlap opportunity are
// tried. The mechanism (overlap_scheduler.cpp) enforces dependencies, the
// in-flight and memory limits and the accounting whatever the policy says.
//
// Adding a policy: one file with a subclass and its make_* function, and
// one line in policy_for() (schedule_policy.cpp) mapping an option to it.

#include <memory>
#include <string_view>
#include <tuple>
#include <vector>

#include "memory/memory_tracker.h"
#include "scheduler/options.h"
#include "scheduler/schedule_analysis.h"
#include "scheduler/schedule_result.h"

namespace osched {

// The scheduler's state a policy may read.
struct PolicyContext {
  const ScheduleAnalysis& analysis;
  const SchedulerOptions& options;
  const std::vector<bool>& scheduled;
  const std::vector<CollectiveOutcome>& collectives; // as accounted so far
  const MemoryTracker& memory;
};

// Smallest runs first; the last element (the node) breaks ties
// deterministically.
using ReadyScore = std::tuple<int32_t, int32_t, NodeId>;

class SchedulePolicy {
public:
  virtual ~SchedulePolicy() = default;
  virtual std::string_view name() const = 0;
  // Priority of node `n` when it becomes ready.
  virtual ReadyScore ready_score(const PolicyContext& ctx, NodeId n) const = 0;
  // The order the candidate collective starts of one overlap opportunity
  // (given in graph order) are tried in, as positions into `starts`. It
  // depends on the starts alone: the mechanism reuses it when the next
  // opportunity offers the same starts.
  virtual void order_candidates(const PolicyContext& ctx, const std::vector<NodeId>& starts,
                                std::vector<int32_t>& order) const = 0;
  // True when a score depends on how many readers a node's inputs have
  // left: the mechanism then offers each ready node that becomes the last
  // reader of a buffer to rescore_last_reader.
  virtual bool scores_last_readers() const { return false; }
  // Whether that ready node is queued again, with its ready_score now.
  virtual bool rescore_last_reader(const PolicyContext&, NodeId) const { return false; }
};

// Upstream's overlap_scheduling choices (schedule_policy_upstream.cpp).
std::unique_ptr<SchedulePolicy> make_upstream_policy();
// --release-memory-early (schedule_policy_release_early.cpp).
std::unique_ptr<SchedulePolicy> make_release_early_policy();

// The policy the options select.
std::unique_ptr<SchedulePolicy> policy_for(const SchedulerOptions& options);

} // namespace osched
