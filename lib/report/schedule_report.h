#pragma once
// The schedule report as data: sections filled by the pipeline as each pass
// finishes, optional ones present only when that pass ran. Every figure
// about the result (counts, per-collective exposure, the step, the bound)
// describes the written graph, from one simulation of it
// (describe_written_graph, report/report.h); the greedy's own accounting,
// with upstream's meanings, sits apart in `greedy`. Its JSON (byte-
// identical for identical input and options) and the stderr summary are
// both written from this struct (report/report_json.h, report/report_summary.h).
// Times are rounded to 6 decimals when filled, so both show the same values.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "benchmark/benchmark_summary.h"
#include "bucketing/apply_buckets.h"
#include "bucketing/bucketing_pass.h"
#include "bucketing/pre_bucket.h"

namespace osched {

struct ReportInputSection {
  std::string name, hash;
  int64_t nodes = 0, rank = 0, world_size = 1;
};

// The written graph's collectives (a bucket counts once, its members not at
// all), and of them, in its simulation: fully exposed (the compute stream
// waited its whole transfer), partially; the input's unschedulable ones.
struct ReportCounts {
  size_t collectives = 0;
  int exposed = 0, partially_exposed = 0, unschedulable = 0;
  // Other timed nodes of the written graph by where their cost came from
  // (custom: the user's or calibrate's estimates; benchmark: measured on
  // the GPU; analytical: the model).
  std::map<std::string, size_t> compute_estimates;
};

struct ReportMemory {
  int64_t original_peak_bytes = 0, scheduled_peak_bytes = 0, budget_bytes = 0;
  int budget_retries = 0;
  bool kept_original_order = false;
};

// Upstream's counters as the greedy kept them while it placed nodes (what it
// believed hidden; before the improved policy's moves and bucketing).
struct ReportGreedy {
  int exposed = 0;                 // nothing hid any of it
  int exposed_though_hideable = 0; // ... though some compute is independent of it
  int potentially_hidden = 0;      // some compute node is independent of it
  double total_exposed_ms = 0, hideable_exposed_ms = 0, potential_exposed_ms = 0,
         wasted_compute_ms = 0;
};

struct ReportSimulation {
  double step_ms_before = 0, step_ms_after = 0, compute_ms = 0, exposed_comm_ms_before = 0,
         exposed_comm_ms_after = 0;
};

// A lower bound's terms (scheduler/lower_bound.h says why each holds).
struct ReportBoundTerms {
  double compute_ms = 0, blocking_comm_ms = 0, exclusive_comm_ms = 0, release_ms = 0,
         busiest_group_comm_ms = 0, critical_path_ms = 0, through_collective_ms = 0;
  std::string busiest_group, through_collective;
  bool complete = true; // every collective examined for blocking
};

// The step no order of the written graph can beat under the simulation.
struct ReportLowerBound {
  double step_ms = 0;
  ReportBoundTerms terms;
  double gap_ms = 0, gap_percent = 0; // of the scheduled step above it
};

// How far the written step is from the best any graph this run could write
// does: with bucketing on, a bound over every order and every bucketing of
// the input (bucketing/any_bucketing_bound.h), found before scheduling;
// with it off, the lower bound over the written graph's orders. The step
// and gap are the written graph's.
struct ReportOptimality {
  bool covers_bucketing = false;
  double step_ms = 0, bound_ms = 0, gap_ms = 0, gap_percent = 0;
  ReportBoundTerms terms;
  size_t pooled_collectives = 0, uncosted_collectives = 0;
};

// --policy improved: what the local search after the greedy did.
struct ReportPolicy {
  std::string name;
  double greedy_step_ms = 0; // the upstream greedy's simulated step
  int moves = 0, trials = 0;
  bool budget_exhausted = false;
};

struct ReportCollective {
  std::string name, kind, group;
  int64_t bytes = 0;
  double estimated_ms = 0;
  std::string estimate_source;
  // The bucket it was merged into after scheduling: it is not in the written
  // graph, and the bucket carries its exposure.
  std::optional<std::string> bucket;
  // In the written graph's simulation (0 for a bucket's member: the bucket
  // carries its exposure); the greedy's accounting apart.
  double exposed_ms = 0, greedy_exposed_ms = 0;
  double exposed_ms_before = 0;       // in the input order's simulation
  std::vector<std::string> hidden_by; // the nodes the greedy started it behind
  bool schedulable = true;
  std::optional<std::string> wait;
  bool exposed = false; // exposed_ms > 0 before rounding: why_exposed is shown
  std::vector<std::string> why_exposed;
};

// Before scheduling: FSDP-style collectives merged (bucketing/pre_bucket.h),
// kept only when the written graph's step is shorter with them and its
// peak within the budget the input's order sets.
struct ReportPreBucketing {
  bool kept = false;
  std::string why;
  double step_ms_without = 0, step_ms_with = 0; // the written graphs' steps
  std::vector<PreBucketCap> caps;
  std::vector<BucketSummary> buckets; // exposed_ms: in the written graph, when kept
  size_t collectives_merged = 0;
};

// A process group's stream: its collectives and the time they keep it
// busy, in the input and in the written graph (a merged collective counts
// once, its copies on the compute stream).
struct ReportGroupStream {
  std::string group;
  size_t collectives_before = 0, collectives_after = 0;
  double busy_ms_before = 0, busy_ms_after = 0;
};

struct ReportBucketing {
  std::optional<ReportPreBucketing> pre_bucketing;
  std::vector<GivenUpBucket> given_up; // planned after scheduling, not written
  std::vector<ReportGroupStream> streams;
  double bucket_max_gb = 0;
  std::vector<BucketSummary> buckets;
  size_t collectives_merged = 0, collectives_after = 0;
  double simulated_step_ms = 0, unbucketed_step_ms = 0, predicted_step_ms = 0, exposed_comm_ms = 0;
  int64_t peak_bytes = 0;
  size_t dropped_for_memory = 0, dropped_for_time = 0;
};

struct ReportOverlapDeps {
  size_t control_deps_added = 0;
};

// An op collectives keep their place around (safety/opaque_ops.h).
struct ReportOpaqueOp {
  std::string name, target, why;
  std::vector<std::string> starts_held, waits_held;
};

struct ReportGroupOrder {
  std::string group;
  size_t collectives = 0;     // in the input
  bool order_changed = false; // the written issue order (buckets as their members) differs
};

// Under mpirun: what the ranks compared before anyone wrote.
struct ReportRankCheck {
  int ranks = 1;
  bool cost_inputs_identical = true;    // every cost input's content hash
  bool written_orders_identical = true; // every group's written issue sequence
};

struct ReportSafety {
  std::vector<std::string> assumed_pure;
  std::vector<ReportOpaqueOp> opaque_ops;
  std::vector<ReportGroupOrder> groups;
  std::optional<ReportRankCheck> rank_check;
};

struct ScheduleReport {
  ReportInputSection input;
  nlohmann::json config; // the option table's echo plus the resolved hardware
  ReportCounts counts;
  ReportMemory memory;
  std::vector<std::string> warnings;
  ReportGreedy greedy;
  ReportSimulation simulation;
  ReportLowerBound lower_bound;
  ReportOptimality optimality;
  std::optional<ReportPolicy> policy;
  std::vector<ReportCollective> collectives;
  std::optional<BenchmarkSummary> benchmark;
  std::optional<ReportBucketing> bucketing;
  std::optional<ReportOverlapDeps> overlap_deps;
  ReportSafety safety;
};

} // namespace osched
