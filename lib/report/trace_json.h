#pragma once
// Timelines as Chrome trace-event JSON, the format PyTorch's profiler
// exports and Perfetto / chrome://tracing open: one process per timeline
// (original, scheduled), one thread per stream (compute, then each process
// group), complete ("X") events with the node, op, bytes and estimate, the
// compute stream's exposed waits as their own category, and live memory as
// a counter.

#include <nlohmann/json.hpp>

#include "report/timeline.h"

namespace osched {

nlohmann::json timelines_to_trace(const std::vector<const Timeline*>& timelines);

} // namespace osched
