#include "pipeline/pre_bucket_choice.h"

#include <algorithm>
#include <cstdio>
#include <unordered_map>

#include "report/report.h"

namespace osched {

std::optional<PreBucketed> pre_bucket(const Graph& input, const PreBucketOptions& opts,
                                      const CollectiveTime& time) {
  PreBucketPlan plan = plan_pre_buckets(input, opts, time);
  if (plan.buckets.empty())
    return std::nullopt;
  BucketedGraph b = apply_buckets(Graph(input), plan.collectives, plan.buckets, "prebucket");
  PreBucketed p;
  p.graph = std::move(b.graph);
  p.buckets = std::move(b.buckets);
  p.plan = std::move(plan);
  return p;
}

namespace {

std::string ms_text(double ms) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3f ms", ms);
  return buf;
}

// The merged run's report, made to describe the user's input where it
// speaks of the input.
ScheduleOutput described_as_input(ScheduleOutput merged, ScheduleOutput plain,
                                  const std::vector<BucketSummary>& buckets) {
  ScheduleReport& r = merged.report;
  const ScheduleReport& p = plain.report;
  r.input = p.input;
  r.simulation.step_ms_before = p.simulation.step_ms_before;
  r.simulation.exposed_comm_ms_before = p.simulation.exposed_comm_ms_before;
  r.memory.original_peak_bytes = p.memory.original_peak_bytes;
  r.memory.budget_bytes = p.memory.budget_bytes;
  // The bound holds for every bucketing of the user's input, this one's too.
  const double step = r.optimality.step_ms;
  r.optimality = p.optimality;
  measure_optimality_gap(r.optimality, step);
  std::unordered_map<std::string, double> before;
  for (const ReportCollective& c : p.collectives)
    before[c.name] = c.exposed_ms_before;
  std::unordered_map<std::string, const BucketSummary*> bucket_of;
  for (const BucketSummary& b : buckets)
    bucket_of[b.name] = &b;
  for (ReportCollective& c : r.collectives) {
    auto b = bucket_of.find(c.name);
    if (b == bucket_of.end()) {
      c.exposed_ms_before = before[c.name];
      continue;
    }
    double sum = 0; // the members' exposure in the input's order
    for (const std::string& m : b->second->members)
      sum += before[m];
    c.exposed_ms_before = report_round(sum);
  }
  merged.original_timeline = std::move(plain.original_timeline);
  // Each stream in the input, as the plain run counted it.
  std::unordered_map<std::string, const ReportGroupStream*> input_stream;
  for (const ReportGroupStream& s : p.bucketing->streams)
    input_stream[s.group] = &s;
  for (ReportGroupStream& s : r.bucketing->streams) {
    auto in = input_stream.find(s.group);
    s.collectives_before = in == input_stream.end() ? 0 : in->second->collectives_before;
    s.busy_ms_before = in == input_stream.end() ? 0 : in->second->busy_ms_before;
  }
  return merged;
}

// --timings: the other candidate's phases after the kept one's, named as such.
ScheduleOutput with_phases_of(ScheduleOutput kept, const PhaseSeconds& other,
                              const std::string& other_name) {
  for (const auto& [phase, seconds] : other)
    kept.phase_seconds.emplace_back(other_name + " " + phase, seconds);
  return kept;
}

} // namespace

ScheduleOutput choose_pre_bucketed(const PreBucketed& pre, ScheduleOutput plain,
                                   ScheduleOutput merged) {
  ReportPreBucketing section;
  section.caps = pre.plan.caps;
  section.buckets = pre.buckets;
  for (const BucketSummary& b : pre.buckets)
    section.collectives_merged += b.members.size();
  section.step_ms_without = plain.report.simulation.step_ms_after;
  section.step_ms_with = merged.report.simulation.step_ms_after;
  const ReportMemory& pm = plain.report.memory;
  const int64_t limit = std::max(pm.budget_bytes, pm.scheduled_peak_bytes);
  const int64_t peak = merged.report.memory.scheduled_peak_bytes;
  if (pm.budget_bytes > 0 && peak > limit) {
    section.why = "its written graph's peak (" + std::to_string(peak) +
                  " bytes) passes the memory budget (" + std::to_string(limit) + " bytes)";
  } else if (section.step_ms_with < section.step_ms_without) {
    section.kept = true;
    section.why = "step " + ms_text(section.step_ms_with) + " with, " +
                  ms_text(section.step_ms_without) + " without";
  } else {
    section.why = "the step is not shorter: " + ms_text(section.step_ms_with) + " with, " +
                  ms_text(section.step_ms_without) + " without";
  }
  if (!section.kept) {
    for (BucketSummary& b : section.buckets)
      b.exposed_ms = 0; // not in the written graph
    plain.report.bucketing->pre_bucketing = std::move(section);
    return with_phases_of(std::move(plain), merged.phase_seconds, "pre-bucketed");
  }
  const PhaseSeconds plain_phases = std::move(plain.phase_seconds);
  ScheduleOutput out = described_as_input(std::move(merged), std::move(plain), pre.buckets);
  std::unordered_map<std::string, double> exposed; // in the written graph
  for (const ReportCollective& c : out.report.collectives)
    exposed[c.name] = c.exposed_ms;
  for (BucketSummary& b : section.buckets)
    b.exposed_ms = exposed[b.name];
  out.report.bucketing->pre_bucketing = std::move(section);
  return with_phases_of(std::move(out), plain_phases, "unbucketed");
}

} // namespace osched
