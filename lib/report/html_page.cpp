#include "report/html_page.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "report/report_summary.h"
#include "text/escape.h"

namespace osched {
namespace {

constexpr double kWidth = 1100; // drawing width of a timeline, pixels
constexpr double kLabel = 120;  // track label column
constexpr double kRow = 24;     // track height
constexpr double kMemHeight = 160;

// Escaped for HTML; control characters and invalid UTF-8 as in error lines,
// newlines kept when `multiline` (the summary).
std::string html(std::string_view s, bool multiline = false) {
  std::string clean;
  if (multiline) {
    size_t start = 0;
    while (start <= s.size()) {
      size_t nl = s.find('\n', start);
      if (nl == std::string_view::npos)
        nl = s.size();
      clean += escape_line(s.substr(start, nl - start));
      if (nl < s.size())
        clean += '\n';
      start = nl + 1;
    }
  } else {
    clean = escape_line(s);
  }
  std::string out;
  for (char c : clean) {
    switch (c) {
    case '&':
      out += "&amp;";
      break;
    case '<':
      out += "&lt;";
      break;
    case '>':
      out += "&gt;";
      break;
    case '"':
      out += "&quot;";
      break;
    default:
      out += c;
    }
  }
  return out;
}

std::string num(double v, int decimals = 3) {
  char b[64];
  std::snprintf(b, sizeof b, "%.*f", decimals, v);
  return b;
}

std::string mib(int64_t bytes) {
  return num(bytes / 1048576.0, 1) + " MiB";
}

// Enough decimals that five ticks over `span_ms` read differently.
int tick_decimals(double span_ms) {
  const double step = span_ms / 5.0;
  if (step <= 0)
    return 2;
  return std::clamp(static_cast<int>(std::ceil(-std::log10(step))) + 1, 0, 6);
}

const char* color(TimelineEvent::Kind k) {
  switch (k) {
  case TimelineEvent::Kind::Compute:
    return "#4c78a8";
  case TimelineEvent::Kind::Collective:
    return "#f58518";
  case TimelineEvent::Kind::ExposedWait:
    return "#e45756";
  case TimelineEvent::Kind::Opaque:
    return "#9d3fb8";
  }
  return "#999";
}

std::string describe(const TimelineEvent& e) {
  std::string s = e.kind == TimelineEvent::Kind::ExposedWait
                      ? "exposed wait of " + e.name + " on " + e.on
                      : e.name + " (" + e.target + ")";
  s += ": " + num(e.start_ms) + "-" + num(e.end_ms) + " ms, estimate " + num(e.estimate_ms) + " ms";
  if (e.kind == TimelineEvent::Kind::Collective || e.kind == TimelineEvent::Kind::ExposedWait)
    s += ", " + std::to_string(e.bytes) + " bytes";
  if (e.kind == TimelineEvent::Kind::Opaque)
    s += "; opaque: collectives keep their place around it";
  return s;
}

// One track's events as rects; intervals closer than half a pixel merge, so
// a million-node step stays a few thousand rects.
void draw_track(std::ostringstream& o, const Timeline& t, const std::string& track, double y,
                double scale) {
  struct Run {
    double x0, x1;
    TimelineEvent::Kind kind;
    const TimelineEvent* first;
    const TimelineEvent* last;
    size_t count;
  };
  std::vector<Run> runs;
  for (const TimelineEvent& e : t.events) {
    if (e.track != track || (e.end_ms <= e.start_ms && e.kind != TimelineEvent::Kind::Opaque))
      continue;
    double x0 = kLabel + e.start_ms * scale, x1 = kLabel + e.end_ms * scale;
    if (!runs.empty() && runs.back().kind == e.kind && x0 - runs.back().x1 < 0.5) {
      runs.back().x1 = std::max(runs.back().x1, x1);
      runs.back().last = &e;
      ++runs.back().count;
      continue;
    }
    runs.push_back({x0, x1, e.kind, &e, &e, 1});
  }
  for (const Run& r : runs) {
    std::string title = r.count == 1 ? describe(*r.first)
                                     : std::to_string(r.count) + " intervals, " + r.first->name +
                                           " ... " + r.last->name;
    o << "<rect x=\"" << num(r.x0, 2) << "\" y=\"" << num(y + 3, 1) << "\" width=\""
      << num(std::max(r.x1 - r.x0, 0.6), 2) << "\" height=\"" << num(kRow - 6, 1) << "\" fill=\""
      << color(r.kind) << "\"><title>" << html(title) << "</title></rect>\n";
  }
}

void draw_timeline(std::ostringstream& o, const Timeline& t, const std::vector<std::string>& tracks,
                   double span_ms, const std::string& id) {
  const double scale = kWidth / std::max(span_ms, 1e-9);
  const double height = kRow * static_cast<double>(tracks.size()) + 24;
  o << "<h3>" << html(t.label) << " order: step " << num(t.step_ms) << " ms, exposed communication "
    << num(t.exposed_comm_ms) << " ms</h3>\n";
  o << "<svg id=\"" << id << "\" class=\"timeline\" width=\"" << kLabel + kWidth + 70
    << "\" height=\"" << height << "\" xmlns=\"http://www.w3.org/2000/svg\">\n";
  for (size_t i = 0; i < tracks.size(); ++i) {
    const double y = kRow * static_cast<double>(i);
    o << "<rect x=\"" << kLabel << "\" y=\"" << y << "\" width=\"" << kWidth << "\" height=\""
      << kRow << "\" fill=\"" << (i % 2 ? "#f4f4f4" : "#fafafa") << "\"/>\n";
    o << "<text x=\"4\" y=\"" << y + 16 << "\">"
      << html(i == 0 ? std::string("compute") : "group " + tracks[i]) << "</text>\n";
    draw_track(o, t, tracks[i], y, scale);
  }
  // Time axis: five ticks.
  const double axis = kRow * static_cast<double>(tracks.size());
  for (int k = 0; k <= 5; ++k) {
    const double x = kLabel + kWidth * k / 5.0;
    o << "<line x1=\"" << x << "\" y1=\"0\" x2=\"" << x << "\" y2=\"" << axis + 4
      << "\" stroke=\"#ccc\"/><text x=\"" << x + 2 << "\" y=\"" << axis + 18 << "\">"
      << num(span_ms * k / 5.0, tick_decimals(span_ms)) << " ms</text>\n";
  }
  if (t.step_ms > 0) {
    const double x = kLabel + t.step_ms * scale;
    o << "<line x1=\"" << x << "\" y1=\"0\" x2=\"" << x << "\" y2=\"" << axis
      << "\" stroke=\"#222\" stroke-dasharray=\"4 3\"><title>end of step " << num(t.step_ms)
      << " ms</title></line>\n";
  }
  o << "</svg>\n";
}

void draw_memory(std::ostringstream& o, const Timeline& a, const Timeline& b, int64_t budget,
                 double span_ms) {
  int64_t top = std::max({a.peak_bytes, b.peak_bytes, int64_t{1}});
  for (const Timeline* t : {&a, &b})
    for (const MemorySample& m : t->memory)
      top = std::max(top, m.bytes);
  // The budget is drawn when it is near the curves; far above, it is named.
  const bool budget_on_scale = budget > 0 && budget <= top * 3 / 2;
  if (budget_on_scale)
    top = std::max(top, budget);
  top += top / 10;
  const double sx = kWidth / std::max(span_ms, 1e-9);
  const double sy = (kMemHeight - 10) / static_cast<double>(top);
  o << "<svg id=\"memory\" width=\"" << kLabel + kWidth + 70 << "\" height=\"" << kMemHeight + 24
    << "\" xmlns=\"http://www.w3.org/2000/svg\">\n";
  o << "<text x=\"4\" y=\"16\">" << mib(top) << "</text><text x=\"4\" y=\"" << kMemHeight
    << "\">0</text>\n";
  const char* colors[] = {"#9d755d", "#54a24b"};
  int k = 0;
  for (const Timeline* t : {&a, &b}) {
    o << "<polyline fill=\"none\" stroke=\"" << colors[k] << "\" stroke-width=\"1.5\" points=\"";
    double prev_y = kMemHeight;
    for (const MemorySample& m : t->memory) {
      const double x = kLabel + m.time_ms * sx, y = kMemHeight - m.bytes * sy;
      o << num(x, 1) << "," << num(prev_y, 1) << " " << num(x, 1) << "," << num(y, 1) << " ";
      prev_y = y;
    }
    o << num(kLabel + t->step_ms * sx, 1) << "," << num(prev_y, 1) << "\"><title>" << html(t->label)
      << ": peak " << mib(t->peak_bytes) << "</title></polyline>\n";
    o << "<text x=\"" << kLabel + 8 + 260 * k << "\" y=\"" << kMemHeight + 20 << "\" fill=\""
      << colors[k] << "\">" << html(t->label) << " order (peak " << mib(t->peak_bytes)
      << ")</text>\n";
    ++k;
  }
  if (budget > 0 && !budget_on_scale) {
    o << "<text x=\"" << kLabel + 540 << "\" y=\"" << kMemHeight + 20
      << "\" fill=\"#e45756\">budget " << mib(budget) << " (above the chart)</text>\n";
  } else if (budget > 0) {
    const double y = kMemHeight - budget * sy;
    o << "<line x1=\"" << kLabel << "\" y1=\"" << num(y, 1) << "\" x2=\"" << kLabel + kWidth
      << "\" y2=\"" << num(y, 1) << "\" stroke=\"#e45756\" stroke-dasharray=\"6 4\"><title>budget "
      << mib(budget) << "</title></line>\n";
    o << "<text x=\"" << kLabel + 540 << "\" y=\"" << kMemHeight + 20
      << "\" fill=\"#e45756\">budget " << mib(budget) << "</text>\n";
  }
  o << "</svg>\n";
}

} // namespace

std::string schedule_html(const ScheduleReport& r, const Timeline& original,
                          const Timeline& scheduled) {
  std::ostringstream o;
  const double span = std::max(original.step_ms, scheduled.step_ms);
  std::vector<std::string> tracks = original.tracks;
  for (const auto& t : scheduled.tracks)
    if (std::find(tracks.begin(), tracks.end(), t) == tracks.end())
      tracks.push_back(t);
  const std::string title = "overlap-sched: " + r.input.name;
  o << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>"
    << html(title) << "</title>\n<style>\n"
    << "body{font-family:sans-serif;margin:24px;color:#222}"
       "svg text{font-size:12px;font-family:sans-serif}"
       "table{border-collapse:collapse;font-size:13px}"
       "td,th{border:1px solid #ddd;padding:3px 8px;text-align:left;vertical-align:top}"
       "th{background:#f0f0f0}pre{background:#f7f7f7;padding:10px;overflow-x:auto}"
       ".key span{display:inline-block;width:12px;height:12px;margin:0 4px 0 14px}"
       ".num{text-align:right}\n"
    << "</style>\n</head>\n<body>\n";
  o << "<h1>" << html(title) << "</h1>\n";
  const double gain = r.simulation.step_ms_before > 0
                          ? 100.0 * (1 - r.simulation.step_ms_after / r.simulation.step_ms_before)
                          : 0;
  o << "<p id=\"headline\">Simulated step <b>" << num(r.simulation.step_ms_before) << " ms &rarr; "
    << num(r.simulation.step_ms_after) << " ms</b> (" << num(gain, 1)
    << "% faster); exposed communication " << num(r.simulation.exposed_comm_ms_before) << " &rarr; "
    << num(r.simulation.exposed_comm_ms_after) << " ms; peak memory "
    << mib(r.memory.original_peak_bytes) << " &rarr; " << mib(r.memory.scheduled_peak_bytes)
    << " (budget " << mib(r.memory.budget_bytes) << ").</p>\n";
  o << "<pre id=\"summary\">" << html(report_summary(r), true) << "</pre>\n";
  o << "<h2>Timelines</h2>\n<p class=\"key\"><span style=\"background:#4c78a8\"></span>compute"
       "<span style=\"background:#f58518\"></span>collective"
       "<span style=\"background:#e45756\"></span>compute waiting on a collective (exposed)";
  if (!r.safety.opaque_ops.empty())
    o << "<span style=\"background:#9d3fb8\"></span>opaque op (no collective moves across it)";
  o << " &mdash; hover for node, op, bytes and estimate</p>\n";
  draw_timeline(o, original, tracks, span, "timeline-original");
  draw_timeline(o, scheduled, tracks, span, "timeline-scheduled");
  if (!r.safety.opaque_ops.empty()) {
    o << "<h2>Opaque ops</h2>\n<p>Ops the tool cannot classify: every collective start and wait "
         "keeps its side of each.</p>\n<table id=\"opaque\">\n<tr><th>node</th><th>op</th>"
         "<th>why</th><th>starts held after it</th><th>waits held before it</th></tr>\n";
    auto joined = [](const std::vector<std::string>& v) {
      std::string s;
      for (size_t i = 0; i < v.size(); ++i)
        s += (i ? ", " : "") + v[i];
      return s;
    };
    for (const ReportOpaqueOp& op : r.safety.opaque_ops)
      o << "<tr><td>" << html(op.name) << "</td><td>" << html(op.target) << "</td><td>"
        << html(op.why) << "</td><td>" << html(joined(op.starts_held)) << "</td><td>"
        << html(joined(op.waits_held)) << "</td></tr>\n";
    o << "</table>\n";
  }
  o << "<h2>Exposed collectives</h2>\n";
  size_t shown = 0;
  std::ostringstream rows;
  for (const ReportCollective& c : r.collectives) {
    if (!c.exposed)
      continue;
    ++shown;
    rows << "<tr><td>" << html(c.name) << "</td><td>" << html(c.kind) << "</td><td>"
         << html(c.group) << "</td><td class=\"num\">" << c.bytes << "</td><td class=\"num\">"
         << num(c.estimated_ms) << "</td><td class=\"num\">" << num(c.exposed_ms) << "</td><td>";
    for (size_t i = 0; i < c.why_exposed.size(); ++i)
      rows << (i ? "<br>" : "") << html(c.why_exposed[i]);
    rows << "</td></tr>\n";
  }
  // Buckets are collectives of the written graph too; their members are not.
  if (r.bucketing)
    for (const BucketSummary& b : r.bucketing->buckets) {
      if (!(b.exposed_ms > 0))
        continue;
      ++shown;
      rows << "<tr><td>" << html(b.name) << "</td><td>" << html(b.kind) << "</td><td>"
           << html(b.group) << "</td><td class=\"num\">" << b.size_bytes
           << "</td><td class=\"num\"></td><td class=\"num\">" << num(b.exposed_ms)
           << "</td><td>a bucket of " << b.members.size() << " collectives</td></tr>\n";
    }
  if (shown == 0) {
    o << "<p>None: every collective is hidden behind compute.</p>\n";
  } else {
    o << "<table id=\"exposed\">\n<tr><th>collective</th><th>kind</th><th>group</th><th>bytes</th>"
         "<th>estimate ms</th><th>exposed ms</th><th>why</th></tr>\n"
      << rows.str() << "</table>\n";
  }
  o << "<h2>Live memory over the step</h2>\n";
  draw_memory(o, original, scheduled, r.memory.budget_bytes, span);
  o << "<p><small>overlap-sched " << html(OSCHED_VERSION) << ", input " << html(r.input.hash)
    << "</small></p>\n</body>\n</html>\n";
  return o.str();
}

} // namespace osched
