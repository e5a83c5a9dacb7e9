#include "scheduler/greedy_ranking.h"

namespace osched {

std::unique_ptr<GreedyRanking> ranking_for(const SchedulerOptions& options) {
  if (options.release_memory_early)
    return make_release_early_ranking();
  return make_upstream_ranking();
}

} // namespace osched
