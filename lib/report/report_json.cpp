#include "report/report_json.h"
#include "text/chunked_render.h"

#include <string_view>

#include "format/json_node_writer.h"

namespace osched {
namespace {

nlohmann::json bound_terms_json(const ReportBoundTerms& t) {
  return {{"compute_ms", t.compute_ms},
          {"blocking_comm_ms", t.blocking_comm_ms},
          {"exclusive_comm_ms", t.exclusive_comm_ms},
          {"release_ms", t.release_ms},
          {"complete", t.complete},
          {"busiest_group", t.busiest_group},
          {"busiest_group_comm_ms", t.busiest_group_comm_ms},
          {"critical_path_ms", t.critical_path_ms},
          {"through_collective", t.through_collective},
          {"through_collective_ms", t.through_collective_ms}};
}

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

// A merged collective; buckets made after scheduling also name the
// compute that hides them.
nlohmann::json bucket_json(const BucketSummary& s, bool hiding) {
  nlohmann::json j = {{"name", s.name},
                      {"kind", s.kind},
                      {"group", s.group},
                      {"dtype", s.dtype},
                      {"members", s.members},
                      {"size_bytes", s.size_bytes},
                      {"exposed_ms", s.exposed_ms}};
  if (hiding)
    j["hiding_nodes"] = s.hiding_nodes;
  return j;
}

nlohmann::json bucketing_json(const ReportBucketing& b) {
  nlohmann::json buckets = nlohmann::json::array();
  for (const BucketSummary& s : b.buckets)
    buckets.push_back(bucket_json(s, true));
  nlohmann::json j = {{"bucket_max_gb", b.bucket_max_gb},
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
  nlohmann::json given_up = nlohmann::json::array(), streams = nlohmann::json::array();
  for (const GivenUpBucket& u : b.given_up)
    given_up.push_back({{"members", u.members},
                        {"size_bytes", u.size_bytes},
                        {"why", u.why},
                        {"members_exposed_ms", u.members_exposed_ms},
                        {"merged_cost_ms", u.merged_cost_ms}});
  for (const ReportGroupStream& g : b.streams)
    streams.push_back({{"group", g.group},
                       {"collectives_before", g.collectives_before},
                       {"collectives_after", g.collectives_after},
                       {"busy_ms_before", g.busy_ms_before},
                       {"busy_ms_after", g.busy_ms_after}});
  j["given_up"] = given_up;
  j["streams"] = streams;
  if (const std::optional<ReportPreBucketing>& p = b.pre_bucketing) {
    nlohmann::json caps = nlohmann::json::array(), pre = nlohmann::json::array();
    for (const PreBucketCap& c : p->caps)
      caps.push_back({{"group", c.group}, {"kind", c.kind}, {"cap_bytes", c.cap_bytes}});
    for (const BucketSummary& s : p->buckets)
      pre.push_back(bucket_json(s, false));
    j["pre_bucketing"] = {{"kept", p->kept},
                          {"why", p->why},
                          {"step_ms_without", p->step_ms_without},
                          {"step_ms_with", p->step_ms_with},
                          {"caps", caps},
                          {"buckets", pre},
                          {"collectives_merged", p->collectives_merged}};
  }
  return j;
}

nlohmann::json safety_json(const ReportSafety& s) {
  nlohmann::json ops = nlohmann::json::array();
  for (const ReportOpaqueOp& op : s.opaque_ops)
    ops.push_back({{"name", op.name},
                   {"target", op.target},
                   {"why", op.why},
                   {"starts_held", op.starts_held},
                   {"waits_held", op.waits_held}});
  nlohmann::json groups = nlohmann::json::array();
  for (const ReportGroupOrder& g : s.groups)
    groups.push_back(
        {{"group", g.group}, {"collectives", g.collectives}, {"order_changed", g.order_changed}});
  nlohmann::json j = {{"assumed_pure", s.assumed_pure}, {"opaque_ops", ops}, {"groups", groups}};
  if (s.rank_check)
    j["rank_check"] = {{"ranks", s.rank_check->ranks},
                       {"cost_inputs_identical", s.rank_check->cost_inputs_identical},
                       {"written_orders_identical", s.rank_check->written_orders_identical}};
  return j;
}

nlohmann::json collective_json(const ReportCollective& c) {
  nlohmann::json e = {{"name", c.name},
                      {"kind", c.kind},
                      {"group", c.group},
                      {"bytes", c.bytes},
                      {"estimated_ms", c.estimated_ms},
                      {"estimate_source", c.estimate_source},
                      {"exposed_ms", c.exposed_ms},
                      {"exposed_ms_before", c.exposed_ms_before},
                      {"greedy_exposed_ms", c.greedy_exposed_ms},
                      {"hidden_by", c.hidden_by},
                      {"schedulable", c.schedulable}};
  if (c.bucket)
    e["bucket"] = *c.bucket;
  if (c.wait)
    e["wait"] = *c.wait;
  if (c.exposed)
    e["why_exposed"] = c.why_exposed;
  return e;
}

// Every section but the collectives.
nlohmann::json report_head_json(const ScheduleReport& r) {
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
                 {"unschedulable", r.counts.unschedulable},
                 {"compute_estimates", r.counts.compute_estimates}};
  j["memory"] = {{"original_peak_bytes", r.memory.original_peak_bytes},
                 {"scheduled_peak_bytes", r.memory.scheduled_peak_bytes},
                 {"budget_bytes", r.memory.budget_bytes},
                 {"budget_retries", r.memory.budget_retries},
                 {"kept_original_order", r.memory.kept_original_order}};
  j["warnings"] = r.warnings;
  j["greedy"] = {{"about", "the greedy's own accounting while it placed nodes (upstream's "
                           "counters), before later moves and bucketing"},
                 {"exposed", r.greedy.exposed},
                 {"exposed_though_hideable", r.greedy.exposed_though_hideable},
                 {"potentially_hidden", r.greedy.potentially_hidden},
                 {"total_exposed_ms", r.greedy.total_exposed_ms},
                 {"hideable_exposed_ms", r.greedy.hideable_exposed_ms},
                 {"potential_exposed_ms", r.greedy.potential_exposed_ms},
                 {"wasted_compute_ms", r.greedy.wasted_compute_ms}};
  j["simulation"] = {{"step_ms_before", r.simulation.step_ms_before},
                     {"step_ms_after", r.simulation.step_ms_after},
                     {"compute_ms", r.simulation.compute_ms},
                     {"exposed_comm_ms_before", r.simulation.exposed_comm_ms_before},
                     {"exposed_comm_ms_after", r.simulation.exposed_comm_ms_after}};
  j["lower_bound"] = bound_terms_json(r.lower_bound.terms);
  j["lower_bound"]["step_ms"] = r.lower_bound.step_ms;
  j["lower_bound"]["gap_ms"] = r.lower_bound.gap_ms;
  j["lower_bound"]["gap_percent"] = r.lower_bound.gap_percent;
  const ReportOptimality& o = r.optimality;
  nlohmann::json bound = bound_terms_json(o.terms);
  bound["pooled_collectives"] = o.pooled_collectives;
  bound["uncosted_collectives"] = o.uncosted_collectives;
  j["optimality"] = {
      {"about", "the written step against a bound no graph this run could write beats"},
      {"covers", o.covers_bucketing ? "every order and every bucketing of the input"
                                    : "every order of the input (bucketing off)"},
      {"step_ms", o.step_ms},
      {"bound_ms", o.bound_ms},
      {"gap_ms", o.gap_ms},
      {"gap_percent", o.gap_percent},
      {"bound", std::move(bound)}};
  if (r.policy)
    j["policy"] = {{"name", r.policy->name},
                   {"greedy_step_ms", r.policy->greedy_step_ms},
                   {"moves", r.policy->moves},
                   {"trials", r.policy->trials},
                   {"budget_exhausted", r.policy->budget_exhausted}};
  if (r.benchmark)
    j["benchmark"] = benchmark_json(*r.benchmark);
  if (r.bucketing)
    j["bucketing"] = bucketing_json(*r.bucketing);
  if (r.overlap_deps)
    j["overlap_deps"] = {{"control_deps_added", r.overlap_deps->control_deps_added}};
  j["safety"] = safety_json(r.safety);
  return j;
}

// Pretty-printed as nlohmann's dump(2) would at the given depth, with the
// graph writer's string and number printers.
struct PrettyWriter {
  std::string& out;

  void string(std::string_view s) { append_json_string(out, s); }
  void number(double v) { append_json_double(out, v); }
  void integer(int64_t v) { append_json_int(out, v); }
  void indent(int depth) { out.append(static_cast<size_t>(depth) * 2, ' '); }
  void key(std::string_view k, int depth, bool first) {
    out += first ? "\n" : ",\n";
    indent(depth);
    string(k);
    out += ": ";
  }
  void strings(const std::vector<std::string>& list, int depth) {
    if (list.empty()) {
      out += "[]";
      return;
    }
    out += '[';
    for (size_t i = 0; i < list.size(); ++i) {
      out += i ? ",\n" : "\n";
      indent(depth + 1);
      string(list[i]);
    }
    out += '\n';
    indent(depth);
    out += ']';
  }
  // Keys in sorted order, as collective_json has them.
  void collective(const ReportCollective& c, int depth) {
    out += '{';
    if (c.bucket) {
      key("bucket", depth + 1, true);
      string(*c.bucket);
    }
    key("bytes", depth + 1, !c.bucket);
    integer(c.bytes);
    key("estimate_source", depth + 1, false);
    string(c.estimate_source);
    key("estimated_ms", depth + 1, false);
    number(c.estimated_ms);
    key("exposed_ms", depth + 1, false);
    number(c.exposed_ms);
    key("exposed_ms_before", depth + 1, false);
    number(c.exposed_ms_before);
    key("greedy_exposed_ms", depth + 1, false);
    number(c.greedy_exposed_ms);
    key("group", depth + 1, false);
    string(c.group);
    key("hidden_by", depth + 1, false);
    strings(c.hidden_by, depth + 1);
    key("kind", depth + 1, false);
    string(c.kind);
    key("name", depth + 1, false);
    string(c.name);
    key("schedulable", depth + 1, false);
    out += c.schedulable ? "true" : "false";
    if (c.wait) {
      key("wait", depth + 1, false);
      string(*c.wait);
    }
    if (c.exposed) {
      key("why_exposed", depth + 1, false);
      strings(c.why_exposed, depth + 1);
    }
    out += '\n';
    indent(depth);
    out += '}';
  }
};

} // namespace

nlohmann::json report_to_json(const ScheduleReport& r) {
  nlohmann::json j = report_head_json(r);
  nlohmann::json colls = nlohmann::json::array();
  for (const ReportCollective& c : r.collectives)
    colls.push_back(collective_json(c));
  j["collectives"] = std::move(colls);
  return j;
}

std::string report_json_text(const ScheduleReport& r) {
  std::string out;
  write_report_json(r, [&](std::string_view piece) { out.append(piece); });
  return out;
}

void write_report_json(const ScheduleReport& r, const std::function<void(std::string_view)>& emit) {
  // The head is printed with a placeholder where the collectives go; only
  // a top-level key sits at two spaces of indentation, so the match is
  // unique whatever the names hold.
  nlohmann::json head = report_head_json(r);
  head["collectives"] = "\x01";
  const std::string text = head.dump(2) + "\n";
  const std::string marker = "\n  \"collectives\": \"\\u0001\"";
  const size_t at = text.find(marker);
  std::string out(text, 0, at + marker.size() - 8); // through `"collectives": `
  if (r.collectives.empty()) {
    out += "[]";
  } else {
    out += '[';
    emit(out);
    out.clear();
    // About a megabyte per chunk; big reports on two threads.
    constexpr size_t kPerChunk = 2048, kParallelMin = 20000;
    render_in_order(
        r.collectives.size(), kPerChunk, kParallelMin,
        [&r](size_t begin, size_t end, std::string& chunk) {
          PrettyWriter w{chunk};
          for (size_t i = begin; i < end; ++i) {
            chunk += i ? ",\n    " : "\n    ";
            w.collective(r.collectives[i], 2);
          }
        },
        emit);
    out += "\n  ]";
  }
  out.append(text, at + marker.size(), std::string::npos);
  emit(out);
}

} // namespace osched
