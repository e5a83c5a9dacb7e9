#pragma once
// The schedule report: machine-readable JSON (byte-identical for identical
// input and options) and a readable summary.

#include <string>

#include <nlohmann/json.hpp>

#include "cost/estimator.h"
#include "graph/graph.h"
#include "scheduler/overlap_scheduler.h"
#include "scheduler/simulate.h"

namespace osched {

struct ReportInputs {
  const Graph* graph = nullptr;
  std::string input_hash;
  nlohmann::json config;  // the full effective configuration
  const RuntimeTable* runtimes = nullptr;
  const ScheduleResult* schedule = nullptr;
  const SimulationResult* before = nullptr;
  const SimulationResult* after = nullptr;
  nlohmann::json extra;  // optional sections (benchmark medians, bucketing)
};

nlohmann::json build_report(const ReportInputs& in);
std::string report_summary(const nlohmann::json& report);

}  // namespace osched
