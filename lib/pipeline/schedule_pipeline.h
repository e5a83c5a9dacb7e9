#pragma once
// The schedule core as a library call: estimate runtimes, schedule,
// simulate before/after, build the reordered graph and the report. Reading
// files, ranks and measurement are the job's (pipeline/schedule_job.h).

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "cost/estimator.h"
#include "cost/hardware.h"
#include "graph/graph.h"
#include "pipeline/schedule_config.h"
#include "report/schedule_report.h"
#include "report/timeline.h"

namespace osched {

// Wall seconds per named phase, in the order the phases ran.
using PhaseSeconds = std::vector<std::pair<std::string, double>>;

struct ScheduleOutput {
  Graph graph;
  ScheduleReport report;
  // With config.record_timelines: the input's order and the output graph.
  std::optional<Timeline> original_timeline, scheduled_timeline;
  // Wall seconds per phase, in the order they ran (schedule --timings,
  // scripts/bench/run.sh); never part of the report, which stays identical
  // across runs.
  PhaseSeconds phase_seconds;
};

// Wall seconds since `start`, for phase_seconds.
double seconds_since(std::chrono::steady_clock::time_point start);

// What the schedule core reads besides its options: prepared by
// run_schedule_job (pipeline/schedule_job.h) or by an embedder through
// schedule_input().
struct ScheduleInput {
  Graph graph;
  std::string input_hash; // of the serialized input, for the report
  HardwareSpec hardware;  // resolve_hardware(graph, cfg)
  // Measured runtimes (the benchmark estimator), taking precedence over the
  // models; nullptr for none. Its report section goes with it.
  RuntimeEstimator* measured = nullptr;
  std::optional<BenchmarkSummary> benchmark;
};

// Effective hardware: defaults, then the graph's `hardware`, then the
// config's overrides with --gpu / --gpus-per-node. Throws
// ValueError on a bad field.
HardwareSpec resolve_hardware(const Graph& g, const ScheduleConfig& cfg);

// An input without measurements: hashes `input_bytes`, resolves the hardware.
ScheduleInput schedule_input(Graph g, std::string_view input_bytes, const ScheduleConfig& cfg);
// The same, where the input's content_hash() is known already.
ScheduleInput schedule_input_hashed(Graph g, std::string input_hash, const ScheduleConfig& cfg);

// Estimate runtimes, schedule, simulate before/after, bucket and pin when
// asked, and report. The graph moves through the passes into the result.
ScheduleOutput run_schedule(ScheduleInput in, const ScheduleConfig& cfg);

} // namespace osched
