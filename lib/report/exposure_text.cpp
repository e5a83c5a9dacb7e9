#include "report/exposure_text.h"

namespace osched {

std::string exposure_text(const Graph& g, const CollectiveOutcome& c, const ExposureNote& n) {
  const std::string at = n.at >= 0 ? "'" + g.nodes[n.at].name + "'" : "";
  const std::string blocker = n.blocker >= 0 ? "'" + g.nodes[n.blocker].name + "'" : "";
  using R = ExposureReason;
  switch (n.why) {
  case R::Broadcast:
    return "not schedulable: broadcasts stay in place (as in the upstream pass)";
  case R::NoWait:
    return "not schedulable: nothing waits on its result (no wait_tensor)";
  case R::RawResultIsOutput:
    return "not schedulable: its raw (unwaited) result is also a graph output";
  case R::ReadWithoutWait:
    return "not schedulable: " + at + " reads its result without waiting on it";
  case R::GroupTimeUsed:
    return at + " was already used to hide other collectives of group '" + c.group + "'";
  case R::Dependency:
    return "depends on, or is needed by, the nearby " + at;
  case R::MemoryNow:
    return "starting it before " + at + " would exceed the peak-memory budget";
  case R::PrefetchInFlight:
    return "starting it before " + at +
           " would keep more than --max-in-flight-gb prefetched across the compute until its use";
  case R::PrefetchBudget:
    return "starting it before " + at +
           " would exceed the peak-memory budget at a compute node before its use";
  case R::InFlightLimit:
    return "in-flight byte limit (--max-in-flight-gb) reached";
  case R::PathCompute:
    return "cannot start before " + at + ": needs compute " + blocker + " first";
  case R::PathCollective:
    return "cannot start before " + at + ": needs collective " + blocker +
           " (not yet issued) first";
  case R::PathWait:
    return "cannot start before " + at + ": needs wait " + blocker +
           ", which would expose its collective";
  case R::PathComm:
    return "cannot start before " + at + ": needs " + blocker + " first";
  case R::PathOpaque:
    return "cannot start before " + at + ": issued after " + blocker +
           ", an op the tool cannot classify, which collectives never cross";
  case R::NoIndependentCompute:
    return "no compute node is independent of it";
  case R::NotScheduledInTime:
    return "no independent compute was scheduled while it could run (not among the next "
           "max_coll_distance collectives, beyond max_compute_pre_fetch, or its inputs became "
           "ready too late)";
  case R::KeptOriginalOrder:
    return "kept in the original order: every reordering found passed the peak-memory budget";
  }
  return "";
}

} // namespace osched
