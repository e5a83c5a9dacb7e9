#include "report/report.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "report/exposure_text.h"
#include "scheduler/simulate.h"

namespace osched {

double report_round(double v) {
  return std::round(v * 1e6) / 1e6;
}

ScheduleReport build_report(const ReportInputs& in) {
  const Graph& g = *in.graph;
  const ScheduleResult& s = *in.schedule;
  ScheduleReport r;
  r.input = {g.name, in.input_hash, g.size(), g.rank, g.world_size};
  r.config = in.config;
  r.counts.collectives = s.collectives.size();
  r.counts.exposed = s.exposed;
  r.counts.exposed_though_hideable = s.bad_exposed;
  r.counts.potentially_hidden = s.potentially_hidden;
  for (const auto& c : s.collectives) {
    if (c.exposed_ms > 0 && c.exposed_ms < c.estimated_ms)
      ++r.counts.partially_exposed;
    if (!c.schedulable)
      ++r.counts.unschedulable;
  }
  r.memory = {s.original_peak_bytes, s.scheduled_peak_bytes, s.memory_budget_bytes,
              s.budget_retries, s.kept_original_order};
  r.warnings = unrecognised_collective_warnings(g);
  r.time_ms = {report_round(s.total_exposed_ms), report_round(s.hideable_exposed_ms),
               report_round(s.potential_exposed_ms), report_round(s.wasted_compute_ms)};
  r.simulation = {report_round(in.before->step_ms), report_round(in.after->step_ms),
                  report_round(in.after->compute_ms), report_round(in.before->exposed_comm_ms),
                  report_round(in.after->exposed_comm_ms)};
  // Lower bound: compute plus what no compute can hide, or the busiest group.
  {
    ReportLowerBound& lb = r.lower_bound;
    std::map<std::string, double> per_group;
    double unhideable = 0;
    for (const auto& c : s.collectives) {
      per_group[c.group] += c.estimated_ms;
      if (!c.schedulable || !c.potentially_hideable)
        unhideable += c.estimated_ms;
    }
    for (const auto& [group, ms] : per_group)
      if (ms > lb.busiest_group_comm_ms) {
        lb.busiest_group_comm_ms = ms;
        lb.busiest_group = group;
      }
    lb.compute_ms = in.after->compute_ms;
    lb.unhideable_comm_ms = unhideable;
    lb.critical_path_ms =
        in.critical_path_ms ? *in.critical_path_ms : critical_path_ms(g, *in.runtimes);
    lb.step_ms =
        std::max({lb.compute_ms + unhideable, lb.busiest_group_comm_ms, lb.critical_path_ms});
    lb.gap_ms = std::max(0.0, in.after->step_ms - lb.step_ms);
    lb.gap_percent = lb.step_ms > 0 ? 100.0 * lb.gap_ms / lb.step_ms : 0;
    for (double* v : {&lb.step_ms, &lb.compute_ms, &lb.unhideable_comm_ms,
                      &lb.busiest_group_comm_ms, &lb.critical_path_ms, &lb.gap_ms})
      *v = report_round(*v);
    lb.gap_percent = std::round(lb.gap_percent * 1000) / 1000;
  }
  r.collectives.reserve(s.collectives.size());
  for (const auto& c : s.collectives) {
    ReportCollective rc;
    rc.name = g.nodes[c.start].name;
    rc.kind = std::string(collective_kind_name(c.kind));
    rc.group = c.group;
    rc.bytes = c.size_bytes;
    rc.estimated_ms = report_round(c.estimated_ms);
    rc.estimate_source = std::string(runtime_source_name(in.runtimes->source[c.start]));
    rc.exposed_ms = report_round(c.exposed_ms);
    rc.simulated_exposed_ms = report_round(in.after->collective_exposed_ms[c.start]);
    for (NodeId h : c.hiding_nodes)
      rc.hidden_by.push_back(g.nodes[h].name);
    rc.schedulable = c.schedulable;
    if (c.wait >= 0)
      rc.wait = g.nodes[c.wait].name;
    rc.exposed = c.exposed_ms > 0;
    if (rc.exposed)
      for (const ExposureNote& n : c.why_exposed)
        rc.why_exposed.push_back(exposure_text(g, c, n));
    r.collectives.push_back(std::move(rc));
  }
  return r;
}

} // namespace osched
