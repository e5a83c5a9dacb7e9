#include "scheduler/exposure.h"

namespace osched {

std::string_view exposure_reason_name(ExposureReason r) {
  switch (r) {
  case ExposureReason::Broadcast:
    return "broadcast";
  case ExposureReason::NoWait:
    return "no_wait";
  case ExposureReason::RawResultIsOutput:
    return "raw_result_is_output";
  case ExposureReason::ReadWithoutWait:
    return "read_without_wait";
  case ExposureReason::GroupTimeUsed:
    return "group_time_used";
  case ExposureReason::Dependency:
    return "dependency";
  case ExposureReason::MemoryNow:
    return "memory_now";
  case ExposureReason::PrefetchInFlight:
    return "prefetch_in_flight";
  case ExposureReason::PrefetchBudget:
    return "prefetch_budget";
  case ExposureReason::InFlightLimit:
    return "in_flight_limit";
  case ExposureReason::PathCompute:
    return "path_compute";
  case ExposureReason::PathCollective:
    return "path_collective";
  case ExposureReason::PathWait:
    return "path_wait";
  case ExposureReason::PathComm:
    return "path_comm";
  case ExposureReason::PathOpaque:
    return "path_opaque";
  case ExposureReason::NoIndependentCompute:
    return "no_independent_compute";
  case ExposureReason::NotScheduledInTime:
    return "not_scheduled_in_time";
  case ExposureReason::KeptOriginalOrder:
    return "kept_original_order";
  }
  return "unknown";
}

} // namespace osched
