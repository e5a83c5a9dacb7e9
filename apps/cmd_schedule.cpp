// schedule IN -o OUT --report REPORT.json: the main job. Options come from
// the table in pipeline/schedule_options.cpp, the job from
// pipeline/schedule_job.h, its outputs from pipeline/schedule_outputs.h.
// This file parses and hands over.

#include <chrono>
#include <cstdio>
#include <iostream>

#include "commands.h"
#include "errors/error.h"
#include "exit_codes.h"
#include "format/graph_file.h"
#include "format_flag.h"
#include "pipeline/schedule_job.h"
#include "pipeline/schedule_options.h"
#include "pipeline/schedule_outputs.h"
#include "report/report_summary.h"
#include "schedule_flags.h"

namespace osched::cli {
namespace {

struct ScheduleArgs {
  std::string input;
  std::string output;
  std::string report;
  std::string trace;
  std::string html;
  std::string sim_model;
  std::string config;
  bool timings = false;
  std::string in_format = "auto";
  std::string out_format = "auto";
  bool output_per_rank = false;
  bool quiet = false;
  ScheduleConfigDraft options;
};

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
  const ScheduleConfig cfg = finish_config(a.config, cmd, a.options);
  const ScheduleOutputPaths paths{a.input,           a.output,   a.report,
                                  a.trace,           a.html,     cfg.benchmark_cache,
                                  a.output_per_rank, a.sim_model};
  check_output_paths(paths);
  RunSettings run;
  run.record_timelines = !a.trace.empty() || !a.html.empty();
  run.trim_heap_between_phases = true; // one job, on this thread
  run.record_written_plan = !a.sim_model.empty();
  const GraphFormat in_format = format_flag("--format", a.in_format);
  const GraphFormat out_format = format_flag("--out-format", a.out_format);

  ScheduleJobResult job = run_schedule_job(a.input, in_format, cfg, run);
  // Every rank computed the same result; rank 0 writes it unless asked for one per rank.
  if (job.rank != 0 && !a.output_per_rank)
    return kOk;
  const auto write_start = std::chrono::steady_clock::now();
  const double report_seconds = write_schedule_outputs(job.output, paths, job.rank, out_format);
  if (a.timings && job.rank == 0) {
    auto phases = job.output.phase_seconds;
    phases.emplace_back("report-json", report_seconds);
    phases.emplace_back("write", seconds_since(write_start) - report_seconds);
    for (const auto& [phase, sec] : phases)
      std::fprintf(stderr, "timing: %-13s %9.3f s\n", phase.c_str(), sec);
  }
  if (!a.quiet && job.rank == 0)
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
  cmd->add_option("--sim-model", a->sim_model,
                  "write the output graph's simulation model as JSON: per node its role, time, "
                  "stream, inputs and the collectives it waits on (for outside solvers: "
                  "scripts/bench/optimality.py)");
  cmd->add_option("--config", a->config,
                  "JSON file with any of the options below (snake_case keys, and `hardware`)");
  cmd->add_option("--format", a->in_format, "input format: auto, json, pb");
  cmd->add_option("--out-format", a->out_format, "output format: auto (by extension), json, pb");
  add_table_options(*cmd, a->options);
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
