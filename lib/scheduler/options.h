#pragma once
// Options of the overlap scheduler, with PyTorch's defaults.

#include <cstdint>
#include <string>

namespace osched {

struct SchedulerOptions {
  double max_in_flight_gb = 5.0;
  int max_compute_pre_fetch = 200;
  double compute_overlap_multiplier = 1.0;
  // How many of the next unscheduled collectives (in graph order) are
  // candidates for each overlap opportunity.
  int max_coll_distance = 200;
  double max_memory_increase_gb = 1.0;
  double max_memory_increase_ratio = 0.05;
  // Keep each process group's collective issue order (not upstream): safe
  // even when ranks could decide differently. Upstream may issue a later
  // collective of a group before an earlier one.
  bool preserve_group_order = false;
  // Run nodes that free more memory than they allocate as soon as they are
  // ready (not upstream): lowers the peak of the reordered graph.
  bool release_memory_early = false;
  // Targets declared pure (comma-separated, --assume-pure): ops the tool
  // cannot classify are otherwise barriers collectives keep their place
  // around (ops/op_barrier.h).
  std::string assume_pure;
};

inline int64_t gb_to_bytes(double gb) {
  return static_cast<int64_t>(gb * 1024.0 * 1024.0 * 1024.0);
}

} // namespace osched
