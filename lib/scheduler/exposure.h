#pragma once
// Why a collective stayed exposed, recorded as a small enum with the nodes
// involved (the scheduler notes one for every refused candidate, so this
// must be cheap); report/exposure_text.h renders them as sentences.

#include <cstdint>
#include <string_view>

#include "graph/graph.h"

namespace osched {

enum class ExposureReason : uint8_t {
  // Not schedulable (kept in place).
  Broadcast,         // broadcasts stay in place, as upstream
  NoWait,            // nothing waits on its result
  RawResultIsOutput, // its unwaited result is also a graph output
  ReadWithoutWait,   // `at` reads its result without waiting on it
  // Refused at the overlap opportunity `at`.
  GroupTimeUsed,    // `at`'s time already hides other collectives of the group
  Dependency,       // depends on, or is needed by, `at`
  MemoryNow,        // starting it before `at` would pass the peak-memory budget
  PrefetchInFlight, // ... keep more than the in-flight limit prefetched across a compute
  PrefetchBudget,   // ... pass the budget at a compute node before its use
  InFlightLimit,    // the in-flight byte limit is reached
  PathCompute,      // needs compute `blocker` first
  PathCollective,   // needs collective `blocker` (not yet issued) first
  PathWait,         // needs wait `blocker`, which would expose its collective
  PathComm,         // needs communication op `blocker` first
  PathOpaque,       // needs opaque op `blocker`, which keeps its place among collectives
  // After scheduling, when nothing above was noted.
  NoIndependentCompute, // no compute node is independent of it
  NotScheduledInTime,   // independent compute exists, but none ran while it could
  KeptOriginalOrder,    // the memory guarantee fell back to the original order
};

struct ExposureNote {
  ExposureReason why;
  NodeId at = -1;                                // the node it could have overlapped, or the reader
  NodeId blocker = -1;                           // the node in its way, for path refusals
  bool operator==(const ExposureNote& o) const { // `at` first: it differs most often
    return at == o.at && why == o.why && blocker == o.blocker;
  }
};

// A stable identifier ("memory_now"), for debug logs.
std::string_view exposure_reason_name(ExposureReason r);

} // namespace osched
