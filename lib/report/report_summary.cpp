#include "report/report_summary.h"

#include <cstdio>
#include <sstream>

#include "text/escape.h"

namespace osched {
namespace {

std::string fmt(double v, int prec = 3) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", prec, v);
  return buf;
}

std::string mib(int64_t b) {
  return fmt(static_cast<double>(b) / (1024.0 * 1024.0), 1) + " MiB";
}

} // namespace

std::string report_summary(const ScheduleReport& r) {
  std::ostringstream o;
  const ReportCounts& c = r.counts;
  const ReportGreedy& gr = r.greedy;
  const ReportSimulation& sim = r.simulation;
  const ReportMemory& m = r.memory;
  o << "overlap-sched: " << escape_line(r.input.name) << " (" << r.input.nodes << " nodes, "
    << c.collectives << " collectives)\n";
  o << "  simulated step: " << fmt(sim.step_ms_before) << " ms -> " << fmt(sim.step_ms_after)
    << " ms";
  if (sim.step_ms_before > 0)
    o << " (" << fmt(100.0 * (sim.step_ms_before - sim.step_ms_after) / sim.step_ms_before, 1)
      << "% faster)";
  o << "\n";
  const ReportBoundTerms& lb = r.lower_bound.terms;
  o << "  lower bound: " << fmt(r.lower_bound.step_ms) << " ms (compute " << fmt(lb.compute_ms)
    << " + exclusive communication " << fmt(lb.exclusive_comm_ms) << ", release "
    << fmt(lb.release_ms) << ", busiest group " << fmt(lb.busiest_group_comm_ms)
    << ", critical path " << fmt(lb.critical_path_ms) << ", or through a collective "
    << fmt(lb.through_collective_ms) << "); the step is " << fmt(r.lower_bound.gap_percent, 1)
    << "% above it\n";
  o << "  optimality: the step is " << fmt(r.optimality.gap_percent, 1) << "% above "
    << fmt(r.optimality.bound_ms) << " ms, a bound no order "
    << (r.optimality.covers_bucketing ? "and no bucketing " : "") << "of the input beats\n";
  if (r.policy)
    o << "  policy " << r.policy->name << ": greedy step " << fmt(r.policy->greedy_step_ms)
      << " ms, " << r.policy->moves << " moves kept of " << r.policy->trials << " tried"
      << (r.policy->budget_exhausted ? " (work budget spent)" : "") << "\n";
  o << "  exposed communication: " << fmt(sim.exposed_comm_ms_before) << " ms -> "
    << fmt(sim.exposed_comm_ms_after) << " ms (simulated)\n";
  o << "  collectives: " << c.exposed << " fully exposed, " << c.partially_exposed
    << " partially (simulated)\n";
  o << "  greedy accounting: " << gr.exposed << " exposed (" << gr.exposed_though_hideable
    << " though hideable), " << gr.potentially_hidden << " potentially hidden, "
    << fmt(gr.total_exposed_ms) << " ms exposed, " << fmt(gr.hideable_exposed_ms)
    << " ms of it hideable, " << fmt(gr.wasted_compute_ms) << " ms compute wasted\n";
  o << "  peak memory: " << mib(m.original_peak_bytes) << " -> " << mib(m.scheduled_peak_bytes)
    << " (budget " << mib(m.budget_bytes) << ")\n";
  if (m.kept_original_order)
    o << "  kept the original order: every reordering found passed the peak-memory budget\n";
  for (const std::string& w : r.warnings)
    o << "  warning: " << w << "\n";
  if (r.benchmark) {
    const BenchmarkSummary& b = *r.benchmark;
    o << "  benchmarks (" << b.backend << ", " << b.ranks
      << " rank(s), medians): " << b.compute.size() << " matmul and " << b.collectives.size()
      << " collective keys, " << b.measured << " measured, " << b.cache_hits << " from cache\n";
  }
  if (r.bucketing && r.bucketing->pre_bucketing) {
    const ReportPreBucketing& p = *r.bucketing->pre_bucketing;
    o << "  pre-bucketing: " << p.collectives_merged << " FSDP-style collectives into "
      << p.buckets.size() << " buckets before scheduling, " << (p.kept ? "kept" : "given up")
      << ": " << p.why << "\n";
  }
  if (r.bucketing) {
    const ReportBucketing& b = *r.bucketing;
    o << "  bucketing: " << b.collectives_merged << " collectives merged into " << b.buckets.size()
      << " buckets";
    if (b.dropped_for_memory > 0)
      o << " (" << b.dropped_for_memory << " more given up to stay within the memory budget)";
    if (b.dropped_for_time > 0)
      o << " (" << b.dropped_for_time << " given up because the step got slower with them)";
    o << "; peak " << mib(b.peak_bytes) << ", step " << fmt(b.simulated_step_ms)
      << " ms (simulated)\n";
    for (const ReportGroupStream& g : b.streams)
      o << "  group '" << g.group << "' stream: " << g.collectives_before << " collectives, "
        << fmt(g.busy_ms_before) << " ms busy -> " << g.collectives_after << ", "
        << fmt(g.busy_ms_after) << " ms\n";
  }
  if (r.overlap_deps)
    o << "  overlap deps: " << r.overlap_deps->control_deps_added << " control_deps added\n";
  // What the simulation of the written graph shows, with the limit the
  // greedy met where it met one.
  int shown = 0;
  for (const ReportCollective& col : r.collectives) {
    const double ms = col.exposed_ms;
    if (!col.exposed || ms <= 0)
      continue;
    if (shown++ == 5) {
      o << "  ... more exposed collectives in the JSON report\n";
      break;
    }
    o << "  exposed " << escape_line(col.name) << " (" << col.kind << ", " << fmt(ms)
      << " ms): " << (!col.why_exposed.empty() ? col.why_exposed[0] : std::string("-")) << "\n";
  }
  // Names come from the input: no line of theirs may break the summary's.
  std::string text = o.str(), safe;
  for (size_t start = 0; start < text.size();) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos)
      end = text.size();
    safe += escape_line(std::string_view(text).substr(start, end - start)) + "\n";
    start = end + 1;
  }
  return safe;
}

} // namespace osched
