#pragma once
// Builds the schedule report's core sections from the scheduler's and the
// simulation's results; the pipeline adds the optional sections (benchmark,
// bucketing, overlap deps) as those passes run.

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "bucketing/any_bucketing_bound.h"
#include "cost/estimator.h"
#include "graph/graph.h"
#include "report/schedule_report.h"
#include "scheduler/schedule_result.h"
#include "sim/simulate.h"

namespace osched {

struct ReportInputs {
  const Graph* graph = nullptr; // the graph as scheduled (names are read from it)
  std::string input_hash;
  nlohmann::json config; // the full effective configuration
  const RuntimeTable* runtimes = nullptr;
  const ScheduleResult* schedule = nullptr;
  const SimulationResult* before = nullptr; // of the input's order
};

// The input, the configuration, the greedy's accounting and the input
// order's figures; the written graph's come from describe_written_graph.
ScheduleReport build_report(const ReportInputs& in);

// Every figure about the written graph, from one simulation of it with its
// own estimates (`rt`, as a run over that file would make them): the step,
// compute and exposed communication after, each collective's exposure
// (a bucket's on the bucket), the counts and the lower bound. So scheduling
// the written graph again starts where this report ends.
void describe_written_graph(ScheduleReport& r, const Graph& written, const RuntimeTable& rt);

// The optimality section's bound, found on the input before scheduling;
// describe_written_graph then measures the written step against it.
void set_optimality_bound(ScheduleReport& r, const AnyBucketingBound& any);
// The step against the bound: its gap (`step_ms` unrounded).
void measure_optimality_gap(ReportOptimality& o, double step_ms);

// Fixed precision keeps reports stable across platforms and easy to diff.
double report_round(double v);

} // namespace osched
