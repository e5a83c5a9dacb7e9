#include "pipeline/schedule_outputs.h"

#include <cstdlib>
#include <utility>
#include <vector>

#include "errors/error.h"
#include "files/output_batch.h"
#include "report/html_page.h"
#include "report/report_json.h"
#include "report/simulation_model_json.h"
#include "report/trace_json.h"

namespace osched {
namespace {

// out.json -> out.rank2.json: one file per rank with --output-per-rank.
std::string per_rank_path(const std::string& path, int rank) {
  size_t slash = path.find_last_of('/');
  size_t dot = path.find_last_of('.');
  std::string tag = ".rank" + std::to_string(rank);
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash))
    return path + tag;
  return path.substr(0, dot) + tag + path.substr(dot);
}

} // namespace

void check_output_paths(const ScheduleOutputPaths& a) {
  if (a.per_rank && (a.output == "-" || a.report == "-"))
    throw input_error("--output-per-rank: needs file paths for -o and --report, not stdout");
  if (a.input == "-")
    for (const char* var : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE"})
      if (const char* v = std::getenv(var); v && std::atoi(v) > 1)
        throw input_error("IN: reading the graph from standard input is not supported under mpirun "
                          "(one rank gets it); pass a file path");
  // Every output names its own file, never the input (-o may rewrite its
  // input in place: it is written last, and only once all is complete).
  for (const auto& [flag, p] : {std::pair{"--trace", &a.trace}, std::pair{"--html", &a.html},
                                std::pair{"--sim-model", &a.sim_model}})
    if (*p == "-")
      throw input_error(std::string(flag) + ": needs a file path");
  if (std::string clash = output_clash({{"graph", a.input}},
                                       {{"-o", a.output},
                                        {"--report", a.report},
                                        {"--trace", a.trace},
                                        {"--html", a.html},
                                        {"--sim-model", a.sim_model}},
                                       2);
      !clash.empty())
    throw input_error(clash);
  if (!a.report.empty()) {
    if (same_output_file(a.report, a.output))
      throw input_error("--report: '" + a.report + "' is also the graph output (-o)");
    if (a.input != "-" && same_output_file(a.report, a.input))
      throw input_error("--report: '" + a.report + "' is the input graph");
  }
  const std::string& cache = a.benchmark_cache;
  if (!cache.empty())
    for (const std::string* other : {&a.output, &a.report, &a.input})
      if (!other->empty() && *other != "-" && same_output_file(cache, *other))
        throw input_error("--benchmark-cache: '" + cache + "' is also the input or an output");
}

double write_schedule_outputs(const ScheduleOutput& out, const ScheduleOutputPaths& paths, int rank,
                              GraphFormat out_format) {
  auto name = [&](const std::string& p) { return paths.per_rank ? per_rank_path(p, rank) : p; };
  double report_seconds = 0;
  OutputBatch batch;
  add_graph_output(batch, name(paths.output), out.graph, out_format);
  if (!paths.report.empty())
    batch.add(name(paths.report), [&](const Emit& emit) {
      const auto t = std::chrono::steady_clock::now();
      write_report_json(out.report, emit);
      report_seconds = seconds_since(t);
    });
  if (!paths.trace.empty())
    batch.add(name(paths.trace), [&](const Emit& emit) {
      emit(timelines_to_trace({&*out.original_timeline, &*out.scheduled_timeline}).dump() + "\n");
    });
  if (!paths.html.empty())
    batch.add(name(paths.html), [&](const Emit& emit) {
      emit(schedule_html(out.report, *out.original_timeline, *out.scheduled_timeline));
    });
  if (!paths.sim_model.empty())
    batch.add(name(paths.sim_model), [&](const Emit& emit) {
      emit(simulation_model_json(out.graph, *out.written_plan, out.report.memory.budget_bytes)
               .dump() +
           "\n");
    });
  batch.commit();
  return report_seconds;
}

} // namespace osched
