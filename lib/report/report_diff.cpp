#include "report/report_diff.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>
#include <stdexcept>

#include "errors/error.h"
#include "text/escape.h"

namespace osched {
namespace {

using nlohmann::json;

const json& field(const json& j, const char* key, const std::string& where) {
  if (!j.is_object() || !j.contains(key))
    throw input_error(where + ": missing '" + key + "'");
  return j.at(key);
}

// A figure to compare: a finite number, or the diff is refused (an inf step
// compares as "no regression" with every threshold).
double finite(const json& v, const std::string& where) {
  if (!v.is_number() || !std::isfinite(v.get<double>()))
    throw input_error(where + ": not a finite number");
  return v.get<double>();
}

double number(const json& j, const char* section, const char* key) {
  return finite(field(field(j, section, "report"), key, section), std::string(section) + "." + key);
}

struct CollectiveView {
  double exposed_ms = 0, estimated_ms = 0;
};

std::map<std::string, CollectiveView> collectives_of(const json& r) {
  std::map<std::string, CollectiveView> out;
  const json& list = field(r, "collectives", "report");
  if (!list.is_array())
    throw input_error("collectives: not an array");
  for (const json& c : list) {
    const json& name = field(c, "name", "collectives[]");
    if (!name.is_string())
      throw input_error("collectives[].name: not a string");
    CollectiveView v;
    v.exposed_ms = finite(field(c, "exposed_ms", "collectives[]"),
                          "collectives[" + name.get<std::string>() + "].exposed_ms");
    v.estimated_ms = finite(field(c, "estimated_ms", "collectives[]"),
                            "collectives[" + name.get<std::string>() + "].estimated_ms");
    out[name.get<std::string>()] = v;
  }
  return out;
}

// Collectives of the written graph with any exposure (a bucket counts once,
// its members not at all), as the report's counts give them.
double exposed_count(const json& r) {
  return number(r, "counts", "exposed") + number(r, "counts", "partially_exposed");
}

double bucket_count(const json& r) {
  if (!r.contains("bucketing") || r["bucketing"].is_null())
    return 0;
  const json& b = field(r["bucketing"], "buckets", "bucketing");
  return b.is_array() ? static_cast<double>(b.size()) : 0;
}

std::string fmt(double v, const std::string& metric) {
  char b[64];
  if (metric == "peak_bytes" || metric == "exposed_count" || metric == "buckets" ||
      metric == "collectives")
    std::snprintf(b, sizeof b, "%.0f", v);
  else
    std::snprintf(b, sizeof b, "%.3f", v);
  return b;
}

std::string signed_fmt(double v, const std::string& metric) {
  std::string s = fmt(v, metric);
  return (v > 0 ? "+" : "") + s;
}

std::string change_text(const MetricChange& m) {
  std::string s = signed_fmt(m.delta(), m.name);
  if (auto p = m.percent()) {
    char b[32];
    std::snprintf(b, sizeof b, " (%+.1f%%)", *p);
    s += b;
  }
  return s;
}

const char* kind_text(CollectiveChange::Kind k) {
  switch (k) {
  case CollectiveChange::Kind::BecameExposed:
    return "became exposed";
  case CollectiveChange::Kind::BecameHidden:
    return "became hidden";
  case CollectiveChange::Kind::ExposureChanged:
    return "exposure changed";
  case CollectiveChange::Kind::EstimateChanged:
    return "estimate changed";
  case CollectiveChange::Kind::Added:
    return "added";
  case CollectiveChange::Kind::Removed:
    return "removed";
  }
  return "";
}

std::string collective_line(const CollectiveChange& c) {
  char b[128];
  const char* what = c.kind == CollectiveChange::Kind::EstimateChanged ? "estimate" : "exposed";
  std::snprintf(b, sizeof b, ": %s %.3f -> %.3f ms", what, c.base_ms, c.next_ms);
  return escape_line(c.name) + " " + kind_text(c.kind) + b;
}

// `s` as one markdown code span whatever it holds: the fence is one
// backtick longer than the longest run inside (CommonMark), and padded when
// the text touches it, so no name can close the span and reach the page as
// markdown or HTML.
std::string markdown_code(const std::string& s) {
  size_t longest = 0, run = 0;
  for (char c : s) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  const std::string fence(longest + 1, '`');
  const bool pad = !s.empty() && (s.front() == '`' || s.back() == '`');
  return fence + (pad ? " " : "") + s + (pad ? " " : "") + fence;
}

std::string regression_line(const Regression& r) {
  return r.metric->name + " " + change_text(*r.metric) + " breaks " + r.threshold->text;
}

} // namespace

std::optional<double> MetricChange::percent() const {
  if (base == 0)
    return std::nullopt;
  return 100.0 * delta() / std::fabs(base);
}

const std::vector<std::string>& diff_metric_names() {
  static const std::vector<std::string> names = {"step_ms",     "exposed_ms",  "exposed_count",
                                                 "peak_bytes",  "buckets",     "compute_ms",
                                                 "hideable_ms", "collectives", "gap_percent"};
  return names;
}

ReportDiff diff_reports(const json& base, const json& next) {
  ReportDiff d;
  const auto cb = collectives_of(base), cn = collectives_of(next);
  auto add = [&](const std::string& name, double b, double n) {
    d.metrics.push_back({name, b, n});
  };
  add("step_ms", number(base, "simulation", "step_ms_after"),
      number(next, "simulation", "step_ms_after"));
  add("exposed_ms", number(base, "simulation", "exposed_comm_ms_after"),
      number(next, "simulation", "exposed_comm_ms_after"));
  add("exposed_count", exposed_count(base), exposed_count(next));
  add("peak_bytes", number(base, "memory", "scheduled_peak_bytes"),
      number(next, "memory", "scheduled_peak_bytes"));
  add("buckets", bucket_count(base), bucket_count(next));
  add("compute_ms", number(base, "simulation", "compute_ms"),
      number(next, "simulation", "compute_ms"));
  add("hideable_ms", number(base, "greedy", "hideable_exposed_ms"),
      number(next, "greedy", "hideable_exposed_ms"));
  add("collectives", number(base, "counts", "collectives"), number(next, "counts", "collectives"));
  // The written step's distance to the bound over every order and
  // bucketing; reports made before it existed have none to compare.
  if (base.contains("optimality") && next.contains("optimality"))
    add("gap_percent", number(base, "optimality", "gap_percent"),
        number(next, "optimality", "gap_percent"));
  using K = CollectiveChange::Kind;
  for (const auto& [name, b] : cb) {
    auto it = cn.find(name);
    if (it == cn.end()) {
      d.collectives.push_back({name, K::Removed, b.exposed_ms, 0});
      continue;
    }
    const CollectiveView& n = it->second;
    if (b.exposed_ms == 0 && n.exposed_ms > 0)
      d.collectives.push_back({name, K::BecameExposed, b.exposed_ms, n.exposed_ms});
    else if (b.exposed_ms > 0 && n.exposed_ms == 0)
      d.collectives.push_back({name, K::BecameHidden, b.exposed_ms, n.exposed_ms});
    else if (b.exposed_ms != n.exposed_ms)
      d.collectives.push_back({name, K::ExposureChanged, b.exposed_ms, n.exposed_ms});
    if (b.estimated_ms != n.estimated_ms)
      d.collectives.push_back({name, K::EstimateChanged, b.estimated_ms, n.estimated_ms});
  }
  for (const auto& [name, n] : cn)
    if (!cb.count(name))
      d.collectives.push_back({name, K::Added, 0, n.exposed_ms});
  return d;
}

std::vector<Threshold> parse_thresholds(const std::string& spec) {
  std::vector<Threshold> out;
  std::stringstream ss(spec);
  std::string item;
  while (std::getline(ss, item, ',')) {
    while (!item.empty() && item.front() == ' ')
      item.erase(item.begin());
    while (!item.empty() && item.back() == ' ')
      item.pop_back();
    if (item.empty())
      continue;
    size_t op = item.find_first_of("<>");
    if (op == std::string::npos || op == 0)
      throw input_error("'" + item + "': expected METRIC>+N, METRIC>+N% or METRIC<-N");
    Threshold t;
    t.text = item;
    t.metric = item.substr(0, op);
    t.greater = item[op] == '>';
    const auto& names = diff_metric_names();
    if (std::find(names.begin(), names.end(), t.metric) == names.end()) {
      std::string known;
      for (const auto& n : names)
        known += (known.empty() ? "" : ", ") + n;
      throw input_error("'" + item + "': unknown metric (known: " + known + ")");
    }
    std::string value = item.substr(op + 1);
    if (!value.empty() && value.back() == '%') {
      t.percent = true;
      value.pop_back();
    }
    size_t used = 0;
    try {
      t.limit = std::stod(value, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != value.size() || !std::isfinite(t.limit))
      throw input_error("'" + item + "': '" + value + "' is not a number");
    out.push_back(std::move(t));
  }
  return out;
}

std::vector<Regression> find_regressions(const ReportDiff& d, const std::vector<Threshold>& ts) {
  std::vector<Regression> out;
  for (const Threshold& t : ts) {
    if (std::none_of(d.metrics.begin(), d.metrics.end(),
                     [&](const MetricChange& m) { return m.name == t.metric; }))
      throw input_error("'" + t.text + "': the two reports do not both have " + t.metric +
                        " (reports made before it was added)");
    for (const MetricChange& m : d.metrics) {
      if (m.name != t.metric)
        continue;
      double change = m.delta();
      if (t.percent) {
        auto p = m.percent();
        // From zero, any rise is an infinite relative rise.
        change = p ? *p : (m.delta() > 0 ? INFINITY : m.delta() < 0 ? -INFINITY : 0);
      }
      if (t.greater ? change > t.limit : change < t.limit)
        out.push_back({&t, &m});
    }
  }
  return out;
}

std::string diff_to_text(const ReportDiff& d, const std::vector<Regression>& r) {
  std::ostringstream o;
  char line[160];
  std::snprintf(line, sizeof line, "%-14s %16s %16s  %s\n", "metric", "base", "new", "change");
  o << line;
  for (const MetricChange& m : d.metrics) {
    std::snprintf(line, sizeof line, "%-14s %16s %16s  %s\n", m.name.c_str(),
                  fmt(m.base, m.name).c_str(), fmt(m.next, m.name).c_str(), change_text(m).c_str());
    o << line;
  }
  o << "collective changes: " << d.collectives.size() << "\n";
  for (const CollectiveChange& c : d.collectives)
    o << "  " << collective_line(c) << "\n";
  if (r.empty())
    o << "no regression\n";
  for (const Regression& x : r)
    o << "REGRESSION: " << regression_line(x) << "\n";
  return o.str();
}

std::string diff_to_markdown(const ReportDiff& d, const std::vector<Regression>& r) {
  std::ostringstream o;
  o << "### overlap-sched schedule diff\n\n";
  o << (r.empty() ? "No regression.\n\n"
                  : "**" + std::to_string(r.size()) + " regression(s)**\n\n");
  for (const Regression& x : r)
    o << "- :x: " << markdown_code(regression_line(x)) << "\n";
  if (!r.empty())
    o << "\n";
  o << "| metric | base | new | change |\n|---|---:|---:|---:|\n";
  for (const MetricChange& m : d.metrics)
    o << "| " << m.name << " | " << fmt(m.base, m.name) << " | " << fmt(m.next, m.name) << " | "
      << change_text(m) << " |\n";
  if (!d.collectives.empty()) {
    o << "\n<details><summary>" << d.collectives.size() << " collective change(s)</summary>\n\n";
    for (const CollectiveChange& c : d.collectives)
      o << "- " << markdown_code(collective_line(c)) << "\n";
    o << "\n</details>\n";
  }
  return o.str();
}

json diff_to_json(const ReportDiff& d, const std::vector<Regression>& r) {
  json metrics = json::object();
  for (const MetricChange& m : d.metrics) {
    json e = {{"base", m.base}, {"new", m.next}, {"delta", m.delta()}};
    auto p = m.percent();
    e["percent"] = p ? json(std::round(*p * 1000) / 1000) : json(nullptr);
    metrics[m.name] = e;
  }
  json cs = json::array();
  for (const CollectiveChange& c : d.collectives)
    cs.push_back({{"name", c.name},
                  {"change", kind_text(c.kind)},
                  {"base_ms", c.base_ms},
                  {"new_ms", c.next_ms}});
  json regs = json::array();
  for (const Regression& x : r)
    regs.push_back({{"threshold", x.threshold->text},
                    {"metric", x.metric->name},
                    {"delta", x.metric->delta()}});
  return {{"metrics", metrics}, {"collectives", cs}, {"regressions", regs}, {"ok", r.empty()}};
}

} // namespace osched
