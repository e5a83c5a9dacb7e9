#pragma once
// What the overlap scheduler returns: the new order and, per collective,
// the scheduler's own accounting of what hid it (upstream's counters).

#include <cstdint>
#include <string>
#include <vector>

#include "graph/graph.h"
#include "ops/collective.h"
#include "scheduler/exposure.h"

namespace osched {

struct CollectiveOutcome {
  NodeId start = -1;
  NodeId wait = -1; // -1 for collectives that are not schedulable
  std::string group;
  CollectiveKind kind = CollectiveKind::AllReduce;
  int64_t size_bytes = 0;   // input + output bytes
  int64_t memory_bytes = 0; // live while in flight
  double estimated_ms = 0;
  double exposed_ms = 0; // what compute did not hide, per the scheduler's accounting
  std::vector<NodeId> hiding_nodes;
  std::vector<ExposureNote> why_exposed; // reasons, first seen first (report/exposure_text.h)
  bool schedulable = true; // false: result used other than through one wait; kept in place
  bool potentially_hideable = false; // some compute node is independent of it
};

struct ScheduleResult {
  std::vector<NodeId> order; // the new node order (placeholders first, output last)
  std::vector<CollectiveOutcome> collectives; // in original order of their starts
  int64_t original_peak_bytes = 0;
  int64_t scheduled_peak_bytes = 0;
  int64_t memory_budget_bytes = 0;
  int budget_retries = 0;           // reschedules against a lowered budget
  bool kept_original_order = false; // no reordering stayed within the budget
  double wasted_compute_ms = 0;     // compute time per step that could hide nothing
  // Upstream's counters, over the schedulable collectives:
  int exposed = 0;            // nothing hid any of it (exposed == estimated)
  int bad_exposed = 0;        // exposed though some compute node is independent of it
  int potentially_hidden = 0; // some compute node is independent of it
  double total_exposed_ms = 0;
  double hideable_exposed_ms = 0;  // exposed ms of the potentially hidden ones
  double potential_exposed_ms = 0; // all their estimated ms: the exposure if nothing overlapped
  // Wall seconds spent on the analysis (dependencies, memory, potential
  // overlap) and on the list scheduling itself, for --timings.
  double analysis_seconds = 0;
  double scheduling_seconds = 0;
};

} // namespace osched
