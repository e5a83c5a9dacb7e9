#pragma once
// Builds the schedule report's core sections from the scheduler's and the
// simulation's results; the pipeline adds the optional sections (benchmark,
// bucketing, overlap deps) as those passes run.

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "cost/estimator.h"
#include "graph/graph.h"
#include "report/schedule_report.h"
#include "scheduler/overlap_scheduler.h"
#include "scheduler/simulate.h"

namespace osched {

struct ReportInputs {
  const Graph* graph = nullptr; // the graph as scheduled (names are read from it)
  std::string input_hash;
  nlohmann::json config; // the full effective configuration
  const RuntimeTable* runtimes = nullptr;
  const ScheduleResult* schedule = nullptr;
  const SimulationResult* before = nullptr;
  const SimulationResult* after = nullptr;
  // critical_path_ms(*graph, *runtimes) when the caller has it already
  // (it depends on neither the schedule nor the simulations).
  std::optional<double> critical_path_ms;
};

ScheduleReport build_report(const ReportInputs& in);

// Fixed precision keeps reports stable across platforms and easy to diff.
double report_round(double v);

} // namespace osched
