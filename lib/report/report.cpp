#include "report/report.h"

#include <algorithm>
#include <cmath>
#include <future>
#include <map>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "report/exposure_text.h"
#include "scheduler/lower_bound.h"
#include "sim/simulate.h"

namespace osched {

double report_round(double v) {
  return std::round(v * 1e6) / 1e6;
}

namespace {

ReportBoundTerms bound_terms(const StepLowerBound& b) {
  ReportBoundTerms t;
  t.compute_ms = report_round(b.compute_ms);
  t.blocking_comm_ms = report_round(b.blocking_comm_ms);
  t.exclusive_comm_ms = report_round(b.exclusive_comm_ms);
  t.release_ms = report_round(b.release_ms);
  t.busiest_group_comm_ms = report_round(b.busiest_group_comm_ms);
  t.busiest_group = b.busiest_group;
  t.critical_path_ms = report_round(b.critical_path_ms);
  t.through_collective_ms = report_round(b.through_collective_ms);
  t.through_collective = b.through_collective;
  t.complete = b.complete;
  return t;
}

// How far `step_ms` is above a bound (rounded): ms and percent.
std::pair<double, double> gap_above(double step_ms, double bound_ms) {
  const double ms = report_round(std::max(0.0, step_ms - bound_ms));
  return {ms, bound_ms > 0 ? std::round(100.0 * (ms / bound_ms) * 1000) / 1000 : 0.0};
}

} // namespace

ScheduleReport build_report(const ReportInputs& in) {
  const Graph& g = *in.graph;
  const ScheduleResult& s = *in.schedule;
  ScheduleReport r;
  r.input = {g.name, in.input_hash, g.size(), g.rank, g.world_size};
  r.config = in.config;
  r.counts.collectives = s.collectives.size();
  for (const auto& c : s.collectives)
    if (!c.schedulable)
      ++r.counts.unschedulable;
  r.greedy.exposed = s.exposed;
  r.greedy.exposed_though_hideable = s.bad_exposed;
  r.greedy.potentially_hidden = s.potentially_hidden;
  r.memory = {s.original_peak_bytes, s.scheduled_peak_bytes, s.memory_budget_bytes,
              s.budget_retries, s.kept_original_order};
  r.warnings = unrecognised_collective_warnings(g);
  r.greedy.total_exposed_ms = report_round(s.total_exposed_ms);
  r.greedy.hideable_exposed_ms = report_round(s.hideable_exposed_ms);
  r.greedy.potential_exposed_ms = report_round(s.potential_exposed_ms);
  r.greedy.wasted_compute_ms = report_round(s.wasted_compute_ms);
  // The input's order; what is written is described by describe_written_graph.
  r.simulation.step_ms_before = report_round(in.before->step_ms);
  r.simulation.exposed_comm_ms_before = report_round(in.before->exposed_comm_ms);
  r.collectives.reserve(s.collectives.size());
  for (const auto& c : s.collectives) {
    ReportCollective rc;
    rc.name = g.nodes[c.start].name;
    rc.kind = std::string(collective_kind_name(c.kind));
    rc.group = c.group;
    rc.bytes = c.size_bytes;
    rc.estimated_ms = report_round(c.estimated_ms);
    rc.estimate_source = std::string(runtime_source_name(in.runtimes->source[c.start]));
    rc.greedy_exposed_ms = report_round(c.exposed_ms);
    rc.exposed_ms_before = report_round(in.before->collective_exposed_ms[c.start]);
    for (NodeId h : c.hiding_nodes)
      rc.hidden_by.push_back(g.nodes[h].name);
    rc.schedulable = c.schedulable;
    if (c.wait >= 0)
      rc.wait = g.nodes[c.wait].name;
    if (c.exposed_ms > 0) // the greedy's reasons; hidden ones have none worth reading
      for (const ExposureNote& n : c.why_exposed)
        rc.why_exposed.push_back(exposure_text(g, c, n));
    r.collectives.push_back(std::move(rc));
  }
  return r;
}

void describe_written_graph(ScheduleReport& r, const Graph& written, const RuntimeTable& rt) {
  const SimulationPlan plan = make_simulation_plan(written, rt);
  // The bound reads only the plan: on the second core while the written
  // order is simulated and counted.
  std::future<StepLowerBound> bound = std::async(
      std::launch::async, [&written, &plan, &rt] { return step_lower_bound(written, plan, rt); });
  std::vector<SimEvent> events;
  const SimulationResult sim =
      simulate_step(plan, identity_order(written.nodes.size()), {}, &events);
  // Collectives that started the moment the one before them on their
  // group's stream ended: they waited in its queue.
  std::vector<char> queued(written.nodes.size(), 0);
  {
    std::vector<double> stream_end(static_cast<size_t>(plan.groups), -1.0);
    for (const SimEvent& e : events) {
      if (e.kind != SimEvent::Kind::Collective)
        continue;
      double& end = stream_end[static_cast<size_t>(plan.group[static_cast<size_t>(e.node)])];
      queued[static_cast<size_t>(e.node)] = end > 0 && e.start_ms == end;
      end = e.end_ms;
    }
  }
  r.simulation.step_ms_after = report_round(sim.step_ms);
  r.simulation.compute_ms = report_round(sim.compute_ms);
  r.counts.compute_estimates.clear();
  for (NodeId v = 0; v < written.size(); ++v)
    if (rt.ms[v] > 0 && plan.role[v] != SimulationPlan::Role::Collective)
      ++r.counts.compute_estimates[std::string(runtime_source_name(rt.source[v]))];
  r.simulation.exposed_comm_ms_after = report_round(sim.exposed_comm_ms);

  // Each collective's exposure where it is in the written graph; a bucket's
  // members are gone from it, and the bucket carries theirs. The counts are
  // of the written graph's collectives: those kept, and the buckets.
  std::unordered_map<std::string, const BucketSummary*> bucket_of;
  if (r.bucketing)
    for (const BucketSummary& b : r.bucketing->buckets)
      for (const std::string& m : b.members)
        bucket_of[m] = &b;
  r.counts.collectives = 0;
  r.counts.exposed = r.counts.partially_exposed = 0;
  auto count = [&](double exposed_ms, double estimated_ms) {
    ++r.counts.collectives;
    if (exposed_ms > 0 && exposed_ms >= estimated_ms - 1e-9)
      ++r.counts.exposed;
    else if (exposed_ms > 0)
      ++r.counts.partially_exposed;
  };
  for (ReportCollective& c : r.collectives) {
    const std::optional<NodeId> at = written.find(c.name);
    if (!at) {
      auto b = bucket_of.find(c.name);
      c.bucket = b == bucket_of.end() ? std::nullopt : std::optional<std::string>(b->second->name);
      c.exposed_ms = 0;
      c.exposed = false;
      c.why_exposed.clear();
      continue;
    }
    const double ms = sim.collective_exposed_ms[static_cast<size_t>(*at)];
    c.exposed_ms = report_round(ms);
    c.exposed = ms > 0;
    if (!c.exposed)
      c.why_exposed.clear();
    else if (c.why_exposed.empty())
      // Hidden by the greedy's accounting, exposed in the written order:
      // say what the simulation shows, not a guess.
      c.why_exposed.push_back(queued[static_cast<size_t>(*at)]
                                  ? "queued behind its group's earlier collectives"
                                  : "too little compute ran between its start and its wait in "
                                    "the written order");
    count(ms, plan.ms[static_cast<size_t>(*at)]); // unrounded, as `ms` is
  }
  if (r.bucketing) {
    r.bucketing->simulated_step_ms = r.simulation.step_ms_after;
    r.bucketing->exposed_comm_ms = r.simulation.exposed_comm_ms_after;
    for (BucketSummary& b : r.bucketing->buckets)
      if (const std::optional<NodeId> at = written.find(b.name)) {
        const double ms = sim.collective_exposed_ms[static_cast<size_t>(*at)];
        b.exposed_ms = report_round(ms);
        count(ms, plan.ms[static_cast<size_t>(*at)]);
      }
  }

  const StepLowerBound b = bound.get();
  if (r.bucketing) {
    // Each group's stream in the input (its collectives as the report lists
    // them before this call) and in the written graph.
    std::map<std::string, ReportGroupStream> streams;
    for (const ReportCollective& c : r.collectives) {
      ReportGroupStream& s = streams[c.group];
      ++s.collectives_before;
      s.busy_ms_before += c.estimated_ms;
    }
    for (const auto& [group, n] : b.group_collectives)
      streams[group].collectives_after = n;
    for (const auto& [group, ms] : b.group_comm_ms)
      streams[group].busy_ms_after = report_round(ms);
    r.bucketing->streams.clear();
    for (auto& [group, s] : streams) {
      s.group = group;
      s.busy_ms_before = report_round(s.busy_ms_before);
      r.bucketing->streams.push_back(s);
    }
  }
  ReportLowerBound& lb = r.lower_bound;
  lb.step_ms = report_round(b.step_ms);
  lb.terms = bound_terms(b);
  std::tie(lb.gap_ms, lb.gap_percent) = gap_above(sim.step_ms, b.step_ms);
  if (!r.optimality.covers_bucketing) { // no bucketing: the written graph's orders are all
    r.optimality.bound_ms = lb.step_ms;
    r.optimality.terms = lb.terms;
  }
  measure_optimality_gap(r.optimality, sim.step_ms);
}

void measure_optimality_gap(ReportOptimality& o, double step_ms) {
  o.step_ms = report_round(step_ms);
  std::tie(o.gap_ms, o.gap_percent) = gap_above(step_ms, o.bound_ms);
}

void set_optimality_bound(ScheduleReport& r, const AnyBucketingBound& any) {
  ReportOptimality& o = r.optimality;
  o.covers_bucketing = true;
  o.bound_ms = report_round(any.bound.step_ms);
  o.terms = bound_terms(any.bound);
  o.pooled_collectives = any.pooled;
  o.uncosted_collectives = any.uncosted;
}

} // namespace osched
