#include "report/report.h"

#include "io/escape.h"

#include <cmath>
#include <cstdio>
#include <sstream>

namespace osched {
namespace {

// Fixed precision keeps reports stable across platforms and easy to diff.
double round6(double v) {
  return std::round(v * 1e6) / 1e6;
}

std::string fmt(double v, int prec = 3) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", prec, v);
  return buf;
}

std::string mib(int64_t b) {
  return fmt(static_cast<double>(b) / (1024.0 * 1024.0), 1) + " MiB";
}

} // namespace

nlohmann::json build_report(const ReportInputs& in) {
  const Graph& g = *in.graph;
  const ScheduleResult& s = *in.schedule;
  nlohmann::json r;
  r["tool"] = {{"name", "overlap-sched"}, {"version", OSCHED_VERSION}};
  r["input"] = {{"name", g.name},
                {"hash", in.input_hash},
                {"nodes", g.size()},
                {"rank", g.rank},
                {"world_size", g.world_size}};
  r["config"] = in.config;
  int partially = 0, unschedulable = 0;
  for (const auto& c : s.collectives) {
    if (c.exposed_ms > 0 && c.exposed_ms < c.estimated_ms)
      ++partially;
    if (!c.schedulable)
      ++unschedulable;
  }
  r["counts"] = {{"collectives", s.collectives.size()},
                 {"exposed", s.exposed},
                 {"partially_exposed", partially},
                 {"exposed_though_hideable", s.bad_exposed},
                 {"potentially_hidden", s.potentially_hidden},
                 {"unschedulable", unschedulable}};
  r["memory"] = {{"original_peak_bytes", s.original_peak_bytes},
                 {"scheduled_peak_bytes", s.scheduled_peak_bytes},
                 {"budget_bytes", s.memory_budget_bytes},
                 {"budget_retries", s.budget_retries},
                 {"kept_original_order", s.kept_original_order}};
  r["warnings"] = unrecognised_collective_warnings(g);
  r["time_ms"] = {{"total_exposed", round6(s.total_exposed_ms)},
                  {"hideable_exposed", round6(s.hideable_exposed_ms)},
                  {"potential_exposed", round6(s.potential_exposed_ms)},
                  {"wasted_compute", round6(s.wasted_compute_ms)}};
  r["simulation"] = {{"step_ms_before", round6(in.before->step_ms)},
                     {"step_ms_after", round6(in.after->step_ms)},
                     {"compute_ms", round6(in.after->compute_ms)},
                     {"exposed_comm_ms_before", round6(in.before->exposed_comm_ms)},
                     {"exposed_comm_ms_after", round6(in.after->exposed_comm_ms)}};
  nlohmann::json colls = nlohmann::json::array();
  for (const auto& c : s.collectives) {
    nlohmann::json j;
    j["name"] = g.nodes[c.start].name;
    j["kind"] = std::string(collective_kind_name(c.kind));
    j["group"] = c.group;
    j["bytes"] = c.size_bytes;
    j["estimated_ms"] = round6(c.estimated_ms);
    j["estimate_source"] = std::string(runtime_source_name(in.runtimes->source[c.start]));
    j["exposed_ms"] = round6(c.exposed_ms);
    j["simulated_exposed_ms"] = round6(in.after->collective_exposed_ms[c.start]);
    nlohmann::json hiding = nlohmann::json::array();
    for (NodeId h : c.hiding_nodes)
      hiding.push_back(g.nodes[h].name);
    j["hidden_by"] = hiding;
    j["schedulable"] = c.schedulable;
    if (c.wait >= 0)
      j["wait"] = g.nodes[c.wait].name;
    if (c.exposed_ms > 0)
      j["why_exposed"] = c.why_exposed;
    colls.push_back(std::move(j));
  }
  r["collectives"] = std::move(colls);
  for (const auto& [k, v] : in.extra.items())
    r[k] = v;
  return r;
}

std::string report_summary(const nlohmann::json& r) {
  std::ostringstream o;
  const auto& c = r["counts"];
  const auto& t = r["time_ms"];
  const auto& sim = r["simulation"];
  const auto& m = r["memory"];
  o << "overlap-sched: " << r["input"]["name"].get<std::string>() << " (" << r["input"]["nodes"]
    << " nodes, " << c["collectives"] << " collectives)\n";
  double before = sim["step_ms_before"], after = sim["step_ms_after"];
  o << "  simulated step: " << fmt(before) << " ms -> " << fmt(after) << " ms";
  if (before > 0)
    o << " (" << fmt(100.0 * (before - after) / before, 1) << "% faster)";
  o << "\n";
  o << "  exposed communication: " << fmt(sim["exposed_comm_ms_before"]) << " ms -> "
    << fmt(sim["exposed_comm_ms_after"])
    << " ms (simulated); scheduler accounting: " << fmt(t["total_exposed"]) << " ms exposed, "
    << fmt(t["hideable_exposed"]) << " ms of it hideable\n";
  o << "  collectives: " << c["exposed"] << " fully exposed (" << c["exposed_though_hideable"]
    << " though hideable), " << c["partially_exposed"] << " partially, " << c["potentially_hidden"]
    << " potentially hidden\n";
  o << "  peak memory: " << mib(m["original_peak_bytes"]) << " -> "
    << mib(m["scheduled_peak_bytes"]) << " (budget " << mib(m["budget_bytes"]) << ")\n";
  if (m["kept_original_order"].get<bool>())
    o << "  kept the original order: every reordering found passed the peak-memory budget\n";
  o << "  wasted compute: " << fmt(t["wasted_compute"]) << " ms\n";
  for (const auto& w : r["warnings"])
    o << "  warning: " << w.get<std::string>() << "\n";
  if (r.contains("benchmark")) {
    const auto& b = r["benchmark"];
    o << "  benchmarks (" << b["backend"].get<std::string>() << ", " << b["ranks"]
      << " rank(s), medians): " << b["compute"].size() << " matmul and " << b["collectives"].size()
      << " collective keys, " << b["measured"] << " measured, " << b["cache_hits"]
      << " from cache\n";
  }
  if (r.contains("bucketing")) {
    const auto& b = r["bucketing"];
    o << "  bucketing: " << b["collectives_merged"] << " collectives merged into "
      << b["buckets"].size() << " buckets";
    if (b["dropped_for_memory"].get<int>() > 0)
      o << " (" << b["dropped_for_memory"] << " more given up to stay within the memory budget)";
    if (b.contains("dropped_for_time") && b["dropped_for_time"].get<int>() > 0)
      o << " (" << b["dropped_for_time"] << " given up because the step got slower with them)";
    o << "; peak " << mib(b["peak_bytes"]) << ", step " << fmt(b["simulated_step_ms"])
      << " ms (simulated)\n";
  }
  if (r.contains("overlap_deps"))
    o << "  overlap deps: " << r["overlap_deps"]["control_deps_added"] << " control_deps added\n";
  int shown = 0;
  for (const auto& col : r["collectives"]) {
    if (!col.contains("why_exposed") || col["exposed_ms"].get<double>() <= 0)
      continue;
    if (shown++ == 5) {
      o << "  ... more exposed collectives in the JSON report\n";
      break;
    }
    o << "  exposed " << col["name"].get<std::string>() << " (" << col["kind"].get<std::string>()
      << ", " << fmt(col["exposed_ms"]) << " ms): "
      << (col["why_exposed"].empty() ? std::string("-") : col["why_exposed"][0].get<std::string>())
      << "\n";
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
