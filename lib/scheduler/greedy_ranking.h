#pragma once
// The scheduler's choices, separate from its mechanism (as XLA's
// latency-hiding scheduler separates them): which ready node runs next, and
// in which order the candidate collectives of an overlap opportunity are
// tried. The mechanism (overlap_scheduler.cpp) enforces dependencies, the
// in-flight and memory limits and the accounting whatever the ranking says.
//
// Adding a ranking: one file with a subclass and its make_* function, and
// one line in ranking_for() (greedy_ranking.cpp) mapping an option to it.

#include <memory>
#include <string_view>
#include <tuple>
#include <vector>

#include "memory/memory_tracker.h"
#include "scheduler/options.h"
#include "scheduler/schedule_analysis.h"
#include "scheduler/schedule_result.h"

namespace osched {

// The scheduler's state a ranking may read.
struct RankingContext {
  const ScheduleAnalysis& analysis;
  const SchedulerOptions& options;
  const std::vector<bool>& scheduled;
  const std::vector<CollectiveOutcome>& collectives; // as accounted so far
  const MemoryTracker& memory;
};

// Smallest runs first; the last element (the node) breaks ties
// deterministically.
using ReadyScore = std::tuple<int32_t, int32_t, NodeId>;

class GreedyRanking {
public:
  virtual ~GreedyRanking() = default;
  virtual std::string_view name() const = 0;
  // Priority of node `n` when it becomes ready.
  virtual ReadyScore ready_score(const RankingContext& ctx, NodeId n) const = 0;
  // The order the candidate collective starts of an overlap opportunity are
  // tried in: increasing key. Distinct starts have distinct keys, and a
  // start's key is the same all through a schedule: the mechanism keeps the
  // candidates in order as they come and go (ranked_candidates.h).
  virtual uint64_t candidate_key(const RankingContext& ctx, NodeId start) const = 0;
  // True when a score depends on how many readers a node's inputs have
  // left: the mechanism then offers each ready node that becomes the last
  // reader of a buffer to rescore_last_reader.
  virtual bool scores_last_readers() const { return false; }
  // Whether that ready node is queued again, with its ready_score now.
  virtual bool rescore_last_reader(const RankingContext&, NodeId) const { return false; }
};

// Upstream's overlap_scheduling choices (greedy_ranking_upstream.cpp).
std::unique_ptr<GreedyRanking> make_upstream_ranking();
// --release-memory-early (greedy_ranking_release_early.cpp).
std::unique_ptr<GreedyRanking> make_release_early_ranking();

// The ranking the options select.
std::unique_ptr<GreedyRanking> ranking_for(const SchedulerOptions& options);

} // namespace osched
