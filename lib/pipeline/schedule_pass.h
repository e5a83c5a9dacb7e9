#pragma once
// One graph through the schedule core, as named phases over it: estimate,
// analyse, schedule (with simulate the input beside it on a second thread),
// search (with report and bound beside it), reorder, bucket, pin, describe.
// What one phase leaves for the next is a member;
// run() hands the result over. Which candidate graphs run, and which
// result is kept, is run_schedule's (pipeline/schedule_pipeline.h).

#include <chrono>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "bucketing/overlap_interval.h"
#include "pipeline/estimators.h"
#include "pipeline/schedule_pipeline.h"
#include "report/safety_section.h"
#include "scheduler/schedule_analysis.h"
#include "scheduler/schedule_result.h"

namespace osched {

// The pass's result: the written graph with its report, and the input's
// group orders, which the safety section compares with the kept output.
struct ScheduledGraph {
  ScheduleOutput out;
  GroupOrders input_orders;
};

class SchedulePass {
public:
  // `est` and `config` outlive the pass. `recorded_table`: the table the
  // estimates use is the one the graph records, named in the report.
  SchedulePass(ScheduleInput in, const ScheduleConfig& config, const RunSettings& run,
               const Estimators& est, bool recorded_table);

  ScheduledGraph run() &&;

private:
  // Wall seconds per phase, for --timings: the main thread's, and those of
  // the phases run beside the greedy and the search.
  struct PhaseClock {
    std::vector<std::pair<std::string, double>> seconds;
    std::chrono::steady_clock::time_point mark = std::chrono::steady_clock::now();
    void record(const char* phase); // the seconds since the last record
  };

  void estimate();
  void analyse();
  void schedule();
  // The greedy, and beside it on the second core what reads only the
  // input: simulate_input.
  void schedule_beside_input();
  // The search changes only the order and its peak (order_search.h): what
  // reads the greedy's accounting runs beside it, on the second core:
  // report, bound.
  void search_and_report();
  void search();
  void simulate_input();
  void report();
  void bound();
  void reorder();
  void bucket();
  void pin();
  void describe();

  ScheduleInput in_;
  const ScheduleConfig& config_;
  const RunSettings run_;
  const Estimators& est_;
  const bool recorded_table_;
  PhaseClock clock_, beside_clock_;

  RuntimeTable rt_;                          // of the input
  std::optional<ScheduleAnalysis> analysis_; // dropped once the order is found
  ReportSafety safety_;                      // read before the nodes move
  ScheduleResult sched_;
  ScheduleResult greedy_accounting_;   // the greedy's, without its order, while the search runs
  std::optional<ReportPolicy> policy_; // what the order search did, when one ran
  std::optional<SimulationPlan> plan_; // the input's, until the graph is reordered
  SimulationResult before_;            // the input order's simulation
  std::optional<SimulationPlan> scheduled_plan_; // the reordered graph's, for bucketing
  RuntimeTable written_rt_;                      // of the graph that is written
  std::vector<OverlapInterval> intervals_;       // for bucketing and pinning
  ScheduledGraph result_;
};

} // namespace osched
