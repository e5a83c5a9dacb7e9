// batch INPUT... -o OUTDIR: the options, a progress display and the summary
// table around the library's run_batch (worker threads, up-to-date outputs
// skipped, files split across ranks under mpirun).

#include <chrono>
#include <cstdio>

#include <unistd.h>

#include "commands.h"
#include "errors/error.h"
#include "exit_codes.h"
#include "format_flag.h"
#include "pipeline/batch.h"
#include "pipeline/prepare_input.h"
#include "ranks/rank_context.h"
#include "schedule_flags.h"
#include "text/escape.h"

namespace osched::cli {
namespace {

struct BatchArgs {
  std::vector<std::string> inputs;
  std::string list, out_dir, config, out_format = "auto";
  int jobs = 1;
  bool force = false, quiet = false;
  ScheduleConfigDraft options;
};

std::string mib(int64_t b) {
  char s[32];
  std::snprintf(s, sizeof s, "%.1f", b / 1048576.0);
  return s;
}

void print_table(const std::vector<BatchResult>& rows, double wall) {
  int ok = 0, skipped = 0, failed = 0;
  std::printf("%-8s %9s %12s %12s %10s  %s\n", "status", "nodes", "step ms", "-> ms", "peak MiB",
              "input");
  for (const BatchResult& r : rows) {
    ok += r.status == "ok";
    skipped += r.status == "skipped";
    failed += r.status == "failed";
    if (r.status == "failed") {
      std::printf("%-8s %9s %12s %12s %10s  %s\n", "FAILED", "", "", "", "",
                  escape_line(r.input).c_str());
      std::printf("         %s\n", escape_line(r.error).c_str());
      continue;
    }
    std::printf("%-8s %9lld %12.3f %12.3f %10s  %s\n", r.status.c_str(),
                static_cast<long long>(r.nodes), r.step_ms_before, r.step_ms_after,
                mib(r.peak_bytes).c_str(), escape_line(r.input).c_str());
  }
  std::printf("%zu graphs: %d scheduled, %d up to date, %d failed in %.2f s\n", rows.size(), ok,
              skipped, failed, wall);
}

// Progress on stderr: one rewritten line on a terminal, a plain line every
// few seconds otherwise.
class Progress {
public:
  explicit Progress(bool quiet) : quiet_(quiet), tty_(isatty(2)) {}
  void update(const BatchProgress& p) {
    if (quiet_)
      return;
    const auto now = std::chrono::steady_clock::now();
    if (tty_) {
      const std::string& c = p.current;
      std::string name = c.size() > 60 ? "..." + c.substr(c.size() - 57) : c;
      std::fprintf(stderr, "\r\033[K[%zu/%zu] %zu failed  %s", p.done, p.total, p.failed,
                   escape_line(name).c_str());
    } else if ((p.done == p.total && !reported_end_) || now - last_ > std::chrono::seconds(5)) {
      std::fprintf(stderr, "batch: %zu/%zu done, %zu failed\n", p.done, p.total, p.failed);
      last_ = now;
      reported_end_ = p.done == p.total;
    }
  }
  void finish() {
    if (!quiet_ && tty_)
      std::fprintf(stderr, "\r\033[K");
  }

private:
  bool quiet_, tty_;
  bool reported_end_ = false;
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};

int run(BatchArgs& a, CLI::App& cmd) {
  const auto t0 = std::chrono::steady_clock::now();
  BatchOptions opts;
  opts.cfg = finish_config(a.config, cmd, a.options);
  if (opts.cfg.benchmarking())
    throw input_error("batch: benchmark estimators measure per job; use schedule under mpirun");
  if (a.jobs < 1 || a.jobs > 256)
    throw input_error("-j: must be 1 to 256");
  opts.out_format = format_flag("--out-format", a.out_format);
  opts.costs = load_cost_files(opts.cfg);
  opts.inputs = a.inputs;
  opts.list_file = a.list;
  opts.out_dir = a.out_dir;
  opts.jobs = a.jobs;
  opts.force = a.force;
  std::unique_ptr<RankContext> ranks = make_launch_rank_context();
  Progress display(a.quiet || ranks->rank() != 0);
  const std::vector<BatchResult> results =
      run_batch(opts, *ranks, [&](const BatchProgress& p) { display.update(p); });
  display.finish();
  if (ranks->rank() == 0 && !a.quiet) {
    print_table(results,
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    std::fflush(stdout);
  }
  size_t failed = 0, output_failed = 0;
  for (const BatchResult& r : results) {
    failed += r.status == "failed";
    output_failed += r.output_failed;
  }
  return output_failed ? kOutputError : failed ? kBadInput : kOk;
}

} // namespace

void add_batch_command(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "batch", "Schedule every graph of directories or a list into OUTDIR, mirroring names");
  auto a = std::make_shared<BatchArgs>();
  cmd->add_option("INPUT", a->inputs, "graph files and directories (searched recursively)");
  cmd->add_option("--list", a->list, "a file naming one graph or directory per line");
  cmd->add_option("-o,--output-dir", a->out_dir, "output directory")->required();
  cmd->add_option("-j,--jobs", a->jobs, "worker threads")->capture_default_str();
  cmd->add_flag("--force", a->force, "redo graphs whose outputs are up to date");
  cmd->add_flag("-q,--quiet", a->quiet, "no progress and no summary table");
  cmd->add_option("--out-format", a->out_format, "output format: auto (as the input), json, pb");
  cmd->add_option("--config", a->config, "JSON file with schedule options (as schedule's)");
  add_table_options(*cmd, a->options);
  cmd->footer(
      "Writes OUTDIR/REL.{json,pb}, REL.report.json and REL.osched-stamp.json per graph, and\n"
      "OUTDIR/summary.jsonl and summary.csv. Exit 2 if any graph failed (the others still run).\n"
      "Examples:\n"
      "  overlap-sched batch testdata/fsdp_tiny.json testdata/tp_two_groups.json -o /tmp/sched -j "
      "2\n"
      "  mpirun -np 4 overlap-sched batch graphs/ -o out/ --max-in-flight-gb 2\n");
  cmd->callback([&exit_code, a, cmd] { exit_code = run_guarded([&] { return run(*a, *cmd); }); });
}

} // namespace osched::cli
