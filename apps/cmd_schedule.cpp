// schedule IN -o OUT --report REPORT.json: the main job. Options come from
// the table in pipeline/schedule_options.cpp; the job itself from
// pipeline/schedule_job.h. This file parses, checks paths and writes.

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>

#include "commands.h"
#include "exit_codes.h"
#include "files/output_batch.h"
#include "format/graph_file.h"
#include "pipeline/schedule_job.h"
#include "pipeline/schedule_options.h"
#include "report/html_page.h"
#include "report/report_json.h"
#include "report/report_summary.h"
#include "report/trace_json.h"
#include "run_errors.h"
#include "schedule_flags.h"

namespace osched::cli {
namespace {

struct ScheduleArgs {
  std::string input;
  std::string output;
  std::string report;
  std::string trace;
  std::string html;
  std::string config;
  bool timings = false;
  std::string in_format = "auto";
  std::string out_format = "auto";
  bool output_per_rank = false;
  bool quiet = false;
  ScheduleConfig cfg;
};

// Paths that would clash: outputs naming each other or the input, stdin
// under mpirun (only one rank gets it), per-rank outputs to stdout.
void check_paths(const ScheduleArgs& a) {
  if (a.output_per_rank && (a.output == "-" || a.report == "-"))
    throw InputError("--output-per-rank: needs file paths for -o and --report, not stdout");
  if (a.input == "-")
    for (const char* var : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE"})
      if (const char* v = std::getenv(var); v && std::atoi(v) > 1)
        throw InputError("IN: reading the graph from standard input is not supported under mpirun "
                         "(one rank gets it); pass a file path");
  // Every output names its own file, never the input.
  std::vector<std::pair<const char*, const std::string*>> outs = {
      {"-o", &a.output}, {"--report", &a.report}, {"--trace", &a.trace}, {"--html", &a.html}};
  for (size_t i = 2; i < outs.size(); ++i) {
    const std::string& p = *outs[i].second;
    if (p.empty())
      continue;
    if (p == "-")
      throw InputError(std::string(outs[i].first) + ": needs a file path");
    if (a.input != "-" && same_output_file(p, a.input))
      throw InputError(std::string(outs[i].first) + ": '" + p + "' is the input graph");
    for (size_t j = 0; j < i; ++j)
      if (!outs[j].second->empty() && same_output_file(p, *outs[j].second))
        throw InputError(std::string(outs[i].first) + ": '" + p + "' is also " + outs[j].first);
  }
  if (!a.report.empty()) {
    if (same_output_file(a.report, a.output))
      throw InputError("--report: '" + a.report + "' is also the graph output (-o)");
    if (a.input != "-" && same_output_file(a.report, a.input))
      throw InputError("--report: '" + a.report + "' is the input graph");
  }
  const std::string& cache = a.cfg.benchmark_cache;
  if (!cache.empty())
    for (const std::string* other : {&a.output, &a.report, &a.input})
      if (!other->empty() && *other != "-" && same_output_file(cache, *other))
        throw InputError("--benchmark-cache: '" + cache + "' is also the input or an output");
}

// out.json -> out.rank2.json: one file per rank with --output-per-rank.
std::string per_rank_path(const std::string& path, int rank) {
  size_t slash = path.find_last_of('/');
  size_t dot = path.find_last_of('.');
  std::string tag = ".rank" + std::to_string(rank);
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash))
    return path + tag;
  return path.substr(0, dot) + tag + path.substr(dot);
}

GraphFormat format_option(const std::string& s) {
  try {
    return parse_graph_format(s);
  } catch (const std::invalid_argument& e) {
    throw InputError(std::string("--format: ") + e.what());
  }
}

// The process ends right after the command: the result is handed to a
// holder that is never destroyed, so its millions of small allocations are
// not freed one by one (over a second at 1M nodes); exit returns the memory
// at once. Still reachable, so leak checkers do not count it.
void keep_until_exit(ScheduleJobResult&& job) {
  static ScheduleJobResult* kept = nullptr;
  delete kept;
  kept = new ScheduleJobResult(std::move(job));
}

int run(ScheduleArgs& a, CLI::App& cmd) {
  load_config_and_check(a.config, cmd, a.cfg);
  check_paths(a);
  a.cfg.record_timelines = !a.trace.empty() || !a.html.empty();
  a.cfg.trim_heap_between_phases = true; // one job, on this thread
  const GraphFormat in_format = format_option(a.in_format);
  const GraphFormat out_format = format_option(a.out_format);

  ScheduleJobResult job = run_schedule_job(a.input, in_format, a.cfg);

  // Every rank computed the same result; rank 0 writes it unless asked for one per rank.
  const int rank = job.rank;
  if (rank != 0 && !a.output_per_rank)
    return kOk;
  std::string output = a.output_per_rank ? per_rank_path(a.output, rank) : a.output;
  std::string report =
      a.output_per_rank && !a.report.empty() ? per_rank_path(a.report, rank) : a.report;
  // Both outputs complete before either replaces anything, so a failure
  // leaves neither (and the input, even when -o names it, intact).
  // The report is printed into its file as it is rendered (never held whole).
  auto phase_start = std::chrono::steady_clock::now();
  double report_seconds = 0;
  OutputBatch batch;
  add_graph_output(batch, output, job.output.graph, out_format);
  if (!report.empty())
    batch.add(report, [&](const Emit& emit) {
      const auto t = std::chrono::steady_clock::now();
      write_report_json(job.output.report, emit);
      report_seconds = seconds_since(t);
    });
  const ScheduleOutput& out = job.output;
  if (!a.trace.empty())
    batch.add(a.output_per_rank ? per_rank_path(a.trace, rank) : a.trace, [&](const Emit& emit) {
      emit(timelines_to_trace({&*out.original_timeline, &*out.scheduled_timeline}).dump() + "\n");
    });
  if (!a.html.empty())
    batch.add(a.output_per_rank ? per_rank_path(a.html, rank) : a.html, [&](const Emit& emit) {
      emit(schedule_html(out.report, *out.original_timeline, *out.scheduled_timeline));
    });
  try {
    batch.commit();
  } catch (const IoError& e) {
    throw OutputError(e.what());
  }
  if (a.timings && rank == 0) {
    auto phases = out.phase_seconds;
    phases.emplace_back("report-json", report_seconds);
    phases.emplace_back("write", seconds_since(phase_start) - report_seconds);
    for (const auto& [phase, sec] : phases)
      std::fprintf(stderr, "timing: %-13s %9.3f s\n", phase.c_str(), sec);
  }
  if (!a.quiet && rank == 0)
    std::cerr << report_summary(job.output.report);
  keep_until_exit(std::move(job));
  return kOk;
}

} // namespace

void add_schedule_command(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("schedule", "Reorder a graph to overlap collectives with compute");
  auto a = std::make_shared<ScheduleArgs>();
  cmd->add_option("IN", a->input, "input graph (.json/.pb, - for stdin)")->required();
  cmd->add_option("-o,--output", a->output, "reordered graph (.json/.pb, - for stdout)")
      ->required();
  cmd->add_option("--report", a->report, "write the JSON report here");
  cmd->add_option("--trace", a->trace,
                  "write the simulated timelines (original and scheduled) as Chrome trace-event "
                  "JSON (Perfetto, chrome://tracing)");
  cmd->add_option("--html", a->html,
                  "write a self-contained HTML page: summary, timelines, exposed collectives, "
                  "memory");
  cmd->add_option("--config", a->config,
                  "JSON file with any of the options below (snake_case keys, and `hardware`)");
  cmd->add_option("--format", a->in_format, "input format: auto, json, pb");
  cmd->add_option("--out-format", a->out_format, "output format: auto (by extension), json, pb");
  add_table_options(*cmd, a->cfg);
  cmd->add_flag("--output-per-rank", a->output_per_rank,
                "every rank writes OUT.rankN.ext (and REPORT.rankN.json); default: rank 0 only");
  cmd->add_flag("-q,--quiet", a->quiet, "do not print the summary on stderr");
  cmd->add_flag(
      "--timings", a->timings,
      "print wall seconds per phase on stderr (read, estimate, analyse, schedule, refine, "
      "simulate, report, reorder, bucket, pin, describe, report-json, write; bucket, pin and "
      "describe when they run)");
  cmd->footer(
      "Examples:\n"
      "  overlap-sched schedule testdata/example_llama_fsdp.json -o /tmp/out.json --report "
      "/tmp/report.json\n"
      "  overlap-sched schedule g.pb -o g.sched.pb --max-in-flight-gb 2 "
      "--runtime-estimates est.json\n"
      "  overlap-sched schedule g.json -o - --config sched.json -q > g.sched.json\n"
      "  mpirun -np 8 overlap-sched schedule g.pb -o g.sched.pb --benchmark-compute "
      "--collective-estimator benchmark --benchmark-cache bench.json\n"
      "  overlap-sched schedule g.json -o g.b.json --collective-bucketing --insert-overlap-deps\n"
      "  overlap-sched schedule g.json -o g.s.json --trace g.trace.json --html g.html");
  cmd->callback([&exit_code, a, cmd] { exit_code = run_guarded([&] { return run(*a, *cmd); }); });
}

} // namespace osched::cli
