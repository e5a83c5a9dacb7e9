// The whole schedule job (with bucketing and overlap deps) on small graphs
// that read and validate: it must not crash, and its output must be a legal
// reordering of the input (verify), within the memory budget.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <string>

#include <spdlog/spdlog.h>

#include "analysis/verify.h"
#include "io/json_io.h"
#include "io/validate.h"
#include "pipeline/schedule_pipeline.h"

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
  for (bool bucketing : {false, true}) {
    osched::ScheduleConfig cfg;
    cfg.collective_bucketing = bucketing;
    cfg.insert_overlap_deps = true;
    osched::ScheduleOutput out;
    try {
      out = osched::run_schedule(osched::schedule_input(g, text, cfg), cfg);
    } catch (const std::exception&) {
      continue; // e.g. an unknown GPU in the graph's hardware: a clear error
    }
    if (osched::verify_reordering(g, out.graph).has_value())
      std::abort();
    const auto& m = out.report.memory;
    if (m.scheduled_peak_bytes > m.budget_bytes && m.scheduled_peak_bytes > m.original_peak_bytes)
      std::abort();
  }
  return 0;
}
