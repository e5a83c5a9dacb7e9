#pragma once
// The schedule core as a library call: estimate runtimes, schedule,
// simulate before/after, build the reordered graph and the report. Reading
// files is prepare_input's (pipeline/prepare_input.h); ranks and
// measurement are the job's (pipeline/schedule_job.h).

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "cost/collective_table.h"
#include "cost/estimator.h"
#include "cost/hardware.h"
#include "graph/graph.h"
#include "pipeline/schedule_config.h"
#include "report/schedule_report.h"
#include "report/timeline.h"
#include "sim/simulate.h"

namespace osched {

// Wall seconds per named phase, in the order the phases ran.
using PhaseSeconds = std::vector<std::pair<std::string, double>>;

struct ScheduleOutput {
  Graph graph;
  ScheduleReport report;
  // With RunSettings::record_timelines: the input's order and the output graph.
  std::optional<Timeline> original_timeline, scheduled_timeline;
  // With RunSettings::record_written_plan: the output graph's simulation plan.
  std::optional<SimulationPlan> written_plan;
  // Wall seconds per phase, in the order they ran (schedule --timings,
  // scripts/bench/run.sh); never part of the report, which stays identical
  // across runs.
  PhaseSeconds phase_seconds;
};

// Wall seconds since `start`, for phase_seconds.
double seconds_since(std::chrono::steady_clock::time_point start);

// The files a config names for costs, loaded once per job
// (pipeline/prepare_input.h) and shared by its inputs.
struct CostFiles {
  std::optional<CustomEstimates> estimates;
  std::optional<CollectiveTable> collective_table;
};

// What the schedule core reads besides its options: made by prepare_input
// or prepare_graph (pipeline/prepare_input.h).
struct ScheduleInput {
  Graph graph;
  std::string input_hash;                 // of the serialized input, for the report
  HardwareSpec hardware;                  // resolve_hardware(graph, cfg)
  std::shared_ptr<const CostFiles> costs; // null: none
  // The table the graph records beside its file, used when the options
  // name none; the report's config names it.
  std::optional<CollectiveTable> recorded_table;
  // Measured runtimes (the benchmark estimator), taking precedence over the
  // models; nullptr for none. Its report section goes with it.
  RuntimeEstimator* measured = nullptr;
  std::optional<BenchmarkSummary> benchmark;

  const CustomEstimates* estimates() const {
    return costs && costs->estimates ? &*costs->estimates : nullptr;
  }
  const CollectiveTable* collective_table() const {
    if (recorded_table)
      return &*recorded_table;
    return costs && costs->collective_table ? &*costs->collective_table : nullptr;
  }
};

// How one run is carried out, beside what it computes: asked by the
// caller, never by a user's option.
struct RunSettings {
  // Keep the simulated timelines of the original and the output order
  // (schedule --trace/--html).
  bool record_timelines = false;
  // Hand freed heap pages back to the system between phases (malloc_trim):
  // lowers the peak of one big job, but it acts on the whole process, so
  // only a caller that runs one job on its main thread should ask for it
  // (the CLI's schedule; never batch workers or an embedding program).
  bool trim_heap_between_phases = false;
  // Keep the output graph's simulation plan (schedule --sim-model).
  bool record_written_plan = false;
  // Find the bound over every bucketing of the input (with bucketing on):
  // the pre-bucketed candidate's input is not the user's, and its report
  // takes the plain run's bound.
  bool bound_every_bucketing = true;
};

// Estimate runtimes, schedule, simulate before/after, bucket and pin when
// asked, and report. The graph moves through the passes into the result.
ScheduleOutput run_schedule(ScheduleInput in, const ScheduleConfig& cfg,
                            const RunSettings& run = {});

} // namespace osched
