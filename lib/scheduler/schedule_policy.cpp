#include "scheduler/schedule_policy.h"

namespace osched {

std::unique_ptr<SchedulePolicy> policy_for(const SchedulerOptions& options) {
  if (options.release_memory_early)
    return make_release_early_policy();
  return make_upstream_policy();
}

} // namespace osched
