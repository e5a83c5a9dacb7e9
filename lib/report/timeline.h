#pragma once
// The simulated step of one node order as a timeline people can look at:
// intervals on the compute stream and on each process group's stream, the
// compute stream's exposed waits, and live memory after every node. Written
// as Chrome trace-event JSON (report/trace_json.h) and drawn in the HTML
// page (report/html_page.h).

#include <cstdint>
#include <string>
#include <vector>

#include "cost/estimator.h"
#include "graph/graph.h"
#include "ops/op_barrier.h"

namespace osched {

struct TimelineEvent {
  // Opaque: an op collectives keep their place around (safety/opaque_ops.h),
  // drawn apart even when it takes no time.
  enum class Kind : uint8_t { Compute, Collective, ExposedWait, Opaque };
  Kind kind = Kind::Compute;
  std::string name;   // the node (for an exposed wait: the node that waited)
  std::string target; // its op
  std::string track;  // "compute" or the collective's process group
  std::string on;     // exposed wait: the collective waited for
  int64_t bytes = 0;  // collective: its size as the bandwidth model counts it
  double estimate_ms = 0;
  std::string source; // where estimate_ms came from: custom, benchmark, table, analytical, ...
  double start_ms = 0, end_ms = 0;
};

struct MemorySample {
  double time_ms = 0; // when the node ran (start of the next interval)
  int64_t bytes = 0;  // live after it
};

struct Timeline {
  std::string label; // "original" / "scheduled"
  double step_ms = 0;
  double exposed_comm_ms = 0;
  std::vector<std::string> tracks; // "compute" first, then groups in name order
  std::vector<TimelineEvent> events;
  std::vector<MemorySample> memory;
  int64_t peak_bytes = 0;
};

// Simulates `g` in its own node order with runtimes `rt`; `pure` are the
// targets declared pure (--assume-pure).
Timeline build_timeline(const Graph& g, const RuntimeTable& rt, std::string label,
                        const AssumePure& pure = {});

} // namespace osched
