// The whole schedule job (with bucketing and overlap deps, both policies,
// and the timelines drawn) on small graphs
// that read and validate: it must not crash, and its output must be a legal
// reordering of the input (verify), within the memory budget.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <string>

#include <spdlog/spdlog.h>

#include "analysis/verify.h"
#include "files/content_hash.h"
#include "format/json_io.h"
#include "pipeline/prepare_input.h"
#include "report/html_page.h"
#include "report/trace_json.h"
#include "validate/validate.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 64 * 1024)
    return 0; // small graphs: many runs per second
  spdlog::set_level(spdlog::level::off);
  const std::string text(reinterpret_cast<const char*>(data), size);
  osched::Graph g;
  try {
    g = osched::graph_from_json_text(text);
    osched::validate_graph(g);
  } catch (const std::exception&) {
    return 0;
  }
  if (g.nodes.size() > 2000)
    return 0;
  for (int variant = 0; variant < 4; ++variant) {
    const bool bucketing = variant % 2 == 1;
    osched::ScheduleConfig cfg;
    cfg.collective_bucketing = bucketing;
    cfg.insert_overlap_deps = true;
    osched::RunSettings run;
    // The improved policy's local search, and the timelines drawn from it.
    if (variant >= 2) {
      cfg.policy = osched::OrderSearchKind::Improved;
      cfg.policy_time_ms = 20;
      run.record_timelines = true;
    }
    osched::ScheduleOutput out;
    try {
      out =
          osched::run_schedule(osched::prepare_graph(g, osched::content_hash(text), cfg), cfg, run);
    } catch (const std::exception&) {
      continue; // e.g. an unknown GPU in the graph's hardware: a clear error
    }
    if (osched::verify_reordering(g, out.graph).has_value())
      std::abort();
    if (out.original_timeline && out.scheduled_timeline) {
      (void)osched::timelines_to_trace({&*out.original_timeline, &*out.scheduled_timeline}).dump();
      (void)osched::schedule_html(out.report, *out.original_timeline, *out.scheduled_timeline);
    }
    const auto& m = out.report.memory;
    if (m.scheduled_peak_bytes > m.budget_bytes && m.scheduled_peak_bytes > m.original_peak_bytes)
      std::abort();
  }
  return 0;
}
