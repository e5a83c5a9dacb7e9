#include "report/report_json.h"

namespace osched {
namespace {

nlohmann::json benchmark_json(const BenchmarkSummary& b) {
  auto entries = [](const std::vector<BenchmarkEntry>& list, bool with_nodes) {
    nlohmann::json out = nlohmann::json::array();
    for (const BenchmarkEntry& e : list) {
      nlohmann::json j = {{"key", e.key},
                          {"per_rank_ms", e.per_rank_ms},
                          {"median_ms", e.median_ms},
                          {"analytical_ms", e.analytical_ms},
                          {"source", e.from_cache ? "cache" : "measured"}};
      if (with_nodes)
        j["nodes"] = e.nodes;
      out.push_back(std::move(j));
    }
    return out;
  };
  return {{"backend", b.backend},
          {"ranks", b.ranks},
          {"devices", b.devices},
          {"alignment", "per-key median over ranks (lower middle)"},
          {"cache_hits", b.cache_hits},
          {"measured", b.measured},
          {"compute", entries(b.compute, true)},
          {"collectives", entries(b.collectives, false)}};
}

nlohmann::json bucketing_json(const ReportBucketing& b) {
  nlohmann::json buckets = nlohmann::json::array();
  for (const BucketSummary& s : b.buckets)
    buckets.push_back({{"name", s.name},
                       {"kind", s.kind},
                       {"group", s.group},
                       {"dtype", s.dtype},
                       {"members", s.members},
                       {"size_bytes", s.size_bytes},
                       {"hiding_nodes", s.hiding_nodes}});
  return {{"bucket_max_gb", b.bucket_max_gb},
          {"buckets", buckets},
          {"collectives_merged", b.collectives_merged},
          {"collectives_after", b.collectives_after},
          {"simulated_step_ms", b.simulated_step_ms},
          {"unbucketed_step_ms", b.unbucketed_step_ms},
          {"predicted_step_ms", b.predicted_step_ms},
          {"exposed_comm_ms", b.exposed_comm_ms},
          {"peak_bytes", b.peak_bytes},
          {"dropped_for_memory", b.dropped_for_memory},
          {"dropped_for_time", b.dropped_for_time}};
}

} // namespace

nlohmann::json report_to_json(const ScheduleReport& r) {
  nlohmann::json j;
  j["tool"] = {{"name", "overlap-sched"}, {"version", OSCHED_VERSION}};
  j["input"] = {{"name", r.input.name},
                {"hash", r.input.hash},
                {"nodes", r.input.nodes},
                {"rank", r.input.rank},
                {"world_size", r.input.world_size}};
  j["config"] = r.config;
  j["counts"] = {{"collectives", r.counts.collectives},
                 {"exposed", r.counts.exposed},
                 {"partially_exposed", r.counts.partially_exposed},
                 {"exposed_though_hideable", r.counts.exposed_though_hideable},
                 {"potentially_hidden", r.counts.potentially_hidden},
                 {"unschedulable", r.counts.unschedulable}};
  j["memory"] = {{"original_peak_bytes", r.memory.original_peak_bytes},
                 {"scheduled_peak_bytes", r.memory.scheduled_peak_bytes},
                 {"budget_bytes", r.memory.budget_bytes},
                 {"budget_retries", r.memory.budget_retries},
                 {"kept_original_order", r.memory.kept_original_order}};
  j["warnings"] = r.warnings;
  j["time_ms"] = {{"total_exposed", r.time_ms.total_exposed},
                  {"hideable_exposed", r.time_ms.hideable_exposed},
                  {"potential_exposed", r.time_ms.potential_exposed},
                  {"wasted_compute", r.time_ms.wasted_compute}};
  j["simulation"] = {{"step_ms_before", r.simulation.step_ms_before},
                     {"step_ms_after", r.simulation.step_ms_after},
                     {"compute_ms", r.simulation.compute_ms},
                     {"exposed_comm_ms_before", r.simulation.exposed_comm_ms_before},
                     {"exposed_comm_ms_after", r.simulation.exposed_comm_ms_after}};
  const ReportLowerBound& lb = r.lower_bound;
  j["lower_bound"] = {{"step_ms", lb.step_ms},
                      {"compute_ms", lb.compute_ms},
                      {"unhideable_comm_ms", lb.unhideable_comm_ms},
                      {"busiest_group", lb.busiest_group},
                      {"busiest_group_comm_ms", lb.busiest_group_comm_ms},
                      {"gap_ms", lb.gap_ms},
                      {"gap_percent", lb.gap_percent}};
  if (r.policy)
    j["policy"] = {{"name", r.policy->name},
                   {"greedy_step_ms", r.policy->greedy_step_ms},
                   {"moves", r.policy->moves},
                   {"trials", r.policy->trials},
                   {"budget_exhausted", r.policy->budget_exhausted}};
  nlohmann::json colls = nlohmann::json::array();
  for (const ReportCollective& c : r.collectives) {
    nlohmann::json e = {{"name", c.name},
                        {"kind", c.kind},
                        {"group", c.group},
                        {"bytes", c.bytes},
                        {"estimated_ms", c.estimated_ms},
                        {"estimate_source", c.estimate_source},
                        {"exposed_ms", c.exposed_ms},
                        {"simulated_exposed_ms", c.simulated_exposed_ms},
                        {"hidden_by", c.hidden_by},
                        {"schedulable", c.schedulable}};
    if (c.wait)
      e["wait"] = *c.wait;
    if (c.exposed)
      e["why_exposed"] = c.why_exposed;
    colls.push_back(std::move(e));
  }
  j["collectives"] = std::move(colls);
  if (r.benchmark)
    j["benchmark"] = benchmark_json(*r.benchmark);
  if (r.bucketing)
    j["bucketing"] = bucketing_json(*r.bucketing);
  if (r.overlap_deps)
    j["overlap_deps"] = {{"control_deps_added", r.overlap_deps->control_deps_added}};
  return j;
}

} // namespace osched
