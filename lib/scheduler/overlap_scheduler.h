#pragma once
// The overlap scheduler: reorders a graph so collectives start early and run
// behind independent compute, within in-flight byte and peak-memory limits.
// A port of the behaviour of PyTorch Inductor's overlap scheduling pass.

#include <cstdint>

#include "cost/estimator.h"
#include "graph/graph.h"
#include "scheduler/options.h"
#include "scheduler/schedule_result.h"

namespace osched {

// The peak-memory budget: the original peak plus the allowed increase.
int64_t memory_budget(int64_t original_peak, const SchedulerOptions& options);

// The scheduled order's peak (scheduled_peak_bytes, measured on that order
// by the memory tracker) never exceeds the budget.
ScheduleResult schedule_overlap(const Graph& g, const RuntimeTable& runtimes,
                                const SchedulerOptions& options);
// The same over an analysis already built with `options` (shared with
// refine_order); analysis_seconds stays 0.
struct ScheduleAnalysis;
ScheduleResult schedule_overlap(const ScheduleAnalysis& analysis, const SchedulerOptions& options);

} // namespace osched
