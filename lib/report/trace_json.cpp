#include "report/trace_json.h"

#include <cmath>

namespace osched {
namespace {

// Trace timestamps are microseconds; round to nanoseconds so output is
// stable across platforms' float printing.
double us(double ms) {
  return std::round(ms * 1e6) / 1e3;
}

const char* category(TimelineEvent::Kind k) {
  switch (k) {
  case TimelineEvent::Kind::Compute:
    return "compute";
  case TimelineEvent::Kind::Collective:
    return "collective";
  case TimelineEvent::Kind::ExposedWait:
    return "exposed_wait";
  case TimelineEvent::Kind::Opaque:
    return "opaque";
  }
  return "";
}

} // namespace

nlohmann::json timelines_to_trace(const std::vector<const Timeline*>& timelines) {
  nlohmann::json events = nlohmann::json::array();
  int pid = 0;
  for (const Timeline* t : timelines) {
    ++pid;
    char label[160];
    std::snprintf(label, sizeof label, "%s order: step %.3f ms, exposed communication %.3f ms",
                  t->label.c_str(), t->step_ms, t->exposed_comm_ms);
    events.push_back(
        {{"ph", "M"}, {"name", "process_name"}, {"pid", pid}, {"args", {{"name", label}}}});
    events.push_back({{"ph", "M"},
                      {"name", "process_sort_index"},
                      {"pid", pid},
                      {"args", {{"sort_index", pid}}}});
    for (size_t tid = 0; tid < t->tracks.size(); ++tid) {
      std::string name = tid == 0 ? "compute" : "group " + t->tracks[tid];
      events.push_back({{"ph", "M"},
                        {"name", "thread_name"},
                        {"pid", pid},
                        {"tid", tid},
                        {"args", {{"name", name}}}});
    }
    auto tid_of = [&](const std::string& track) {
      for (size_t i = 0; i < t->tracks.size(); ++i)
        if (t->tracks[i] == track)
          return i;
      return size_t{0};
    };
    for (const TimelineEvent& e : t->events) {
      nlohmann::json args = {
          {"op", e.target}, {"estimate_ms", e.estimate_ms}, {"estimate_source", e.source}};
      std::string name = e.name;
      if (e.kind == TimelineEvent::Kind::Collective || e.kind == TimelineEvent::Kind::ExposedWait)
        args["bytes"] = e.bytes;
      if (e.kind == TimelineEvent::Kind::Opaque)
        args["opaque"] = "collectives keep their place around it";
      if (e.kind == TimelineEvent::Kind::ExposedWait) {
        args["waits_on"] = e.on;
        name = "exposed wait: " + e.on;
      }
      events.push_back({{"ph", "X"},
                        {"name", name},
                        {"cat", category(e.kind)},
                        {"pid", pid},
                        {"tid", tid_of(e.track)},
                        {"ts", us(e.start_ms)},
                        {"dur", us(e.end_ms - e.start_ms)},
                        {"args", std::move(args)}});
    }
    for (const MemorySample& m : t->memory)
      events.push_back({{"ph", "C"},
                        {"name", "live memory"},
                        {"pid", pid},
                        {"ts", us(m.time_ms)},
                        {"args", {{"MiB", std::round(m.bytes / 1048576.0 * 1000) / 1000}}}});
  }
  return {{"traceEvents", std::move(events)},
          {"displayTimeUnit", "ms"},
          {"otherData", {{"generator", "overlap-sched"}}}};
}

} // namespace osched
