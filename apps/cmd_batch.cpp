// batch INPUT... -o OUTDIR: schedule many graphs with one set of options,
// with worker threads, a progress display, skipping up-to-date outputs, and
// files split across ranks under mpirun.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <mutex>
#include <thread>

#include <unistd.h>

#include "benchmark/rank_context.h"
#include "commands.h"
#include "exit_codes.h"
#include "files/output_batch.h"
#include "pipeline/batch.h"
#include "run_errors.h"
#include "schedule_flags.h"
#include "text/escape.h"

namespace osched::cli {
namespace {

struct BatchArgs {
  std::vector<std::string> inputs;
  std::string list, out_dir, config, out_format = "auto";
  int jobs = 1;
  bool force = false, quiet = false;
  ScheduleConfig cfg;
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
  Progress(size_t total, bool quiet) : total_(total), quiet_(quiet), tty_(isatty(2)) {}
  void update(size_t done, size_t failed, const std::string& current) {
    if (quiet_)
      return;
    const auto now = std::chrono::steady_clock::now();
    if (tty_) {
      std::string name =
          current.size() > 60 ? "..." + current.substr(current.size() - 57) : current;
      std::fprintf(stderr, "\r\033[K[%zu/%zu] %zu failed  %s", done, total_, failed,
                   escape_line(name).c_str());
    } else if (done == total_ || now - last_ > std::chrono::seconds(5)) {
      std::fprintf(stderr, "batch: %zu/%zu done, %zu failed\n", done, total_, failed);
      last_ = now;
    }
  }
  void finish() {
    if (!quiet_ && tty_)
      std::fprintf(stderr, "\r\033[K");
  }

private:
  size_t total_;
  bool quiet_, tty_;
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};

int run(BatchArgs& a, CLI::App& cmd) {
  const auto t0 = std::chrono::steady_clock::now();
  load_config_and_check(a.config, cmd, a.cfg);
  if (a.cfg.benchmarking())
    throw InputError("batch: benchmark estimators measure per job; use schedule under mpirun");
  if (a.jobs < 1 || a.jobs > 256)
    throw InputError("-j: must be 1 to 256");
  GraphFormat out_format;
  try {
    out_format = parse_graph_format(a.out_format);
  } catch (const std::invalid_argument& e) {
    throw InputError(std::string("--out-format: ") + e.what());
  }
  load_runtime_estimates(a.cfg);
  std::unique_ptr<RankContext> ctx =
      launched_by_mpi() ? make_mpi_context() : make_single_rank_context();
  const int rank = ctx->rank(), size = ctx->size();
  std::vector<BatchItem> items = collect_batch_inputs(a.inputs, a.list, a.out_dir);
  if (items.empty())
    throw InputError("batch: no .json or .pb graph among the inputs");
  {
    std::error_code ec;
    std::filesystem::create_directories(a.out_dir, ec);
    if (ec)
      throw OutputError(a.out_dir + ": cannot create the output directory: " + ec.message());
  }
  const std::string fingerprint = batch_options_fingerprint(a.cfg);

  // This rank's share: every size-th file.
  std::vector<size_t> mine;
  for (size_t i = static_cast<size_t>(rank); i < items.size(); i += static_cast<size_t>(size))
    mine.push_back(i);
  std::vector<BatchResult> results(items.size());
  std::atomic<size_t> next{0}, done{0}, failed{0};
  std::mutex mu;
  std::condition_variable cv;
  std::string current;
  auto worker = [&] {
    for (size_t k; (k = next++) < mine.size();) {
      const BatchItem& item = items[mine[k]];
      {
        std::lock_guard<std::mutex> lock(mu);
        current = item.input;
      }
      BatchResult r = run_batch_item(item, batch_paths(item, a.out_dir, out_format), a.cfg,
                                     fingerprint, a.force, out_format);
      failed += r.status == "failed";
      results[mine[k]] = std::move(r);
      ++done;
      cv.notify_one();
    }
  };
  Progress progress(mine.size(), a.quiet || rank != 0);
  std::vector<std::thread> pool;
  const int threads = std::min<int>(a.jobs, static_cast<int>(std::max<size_t>(mine.size(), 1)));
  for (int t = 0; t < threads; ++t)
    pool.emplace_back(worker);
  {
    std::unique_lock<std::mutex> lock(mu);
    while (done < mine.size()) {
      cv.wait_for(lock, std::chrono::milliseconds(200));
      progress.update(done, failed, current);
    }
  }
  for (auto& t : pool)
    t.join();
  progress.finish();

  // Rank 0 gathers every rank's rows (in file order) and writes the summary.
  std::string local;
  for (size_t i : mine) {
    nlohmann::json row = batch_result_json(results[i]);
    row["index"] = i;
    row["seconds"] = results[i].seconds;
    local += row.dump() + "\n";
  }
  std::vector<std::string> all = size > 1 ? ctx->allgather_strings(local) : std::vector{local};
  for (const std::string& part : all) {
    size_t pos = 0;
    while (pos < part.size()) {
      size_t nl = part.find('\n', pos);
      auto row = nlohmann::json::parse(part.substr(pos, nl - pos));
      results[row.at("index").get<size_t>()] = batch_result_from_json(row);
      pos = nl + 1;
    }
  }
  size_t any_failed = 0, any_output_failed = 0;
  for (const BatchResult& r : results) {
    any_failed += r.status == "failed";
    any_output_failed += r.output_failed;
  }
  if (rank == 0) {
    std::string jsonl, csv = batch_csv_header();
    for (const BatchResult& r : results) {
      jsonl += batch_result_json(r).dump() + "\n";
      csv += batch_csv_row(r);
    }
    OutputBatch out;
    const std::string dir = a.out_dir + "/";
    out.add(dir + "summary.jsonl", [&](const Emit& emit) { emit(jsonl); });
    out.add(dir + "summary.csv", [&](const Emit& emit) { emit(csv); });
    try {
      out.commit();
    } catch (const IoError& e) {
      throw OutputError(e.what());
    }
    if (!a.quiet) {
      const double wall =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      print_table(results, wall);
      std::fflush(stdout);
    }
  }
  ctx->barrier();
  return any_output_failed ? kOutputError : any_failed ? kBadInput : kOk;
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
  add_table_options(*cmd, a->cfg);
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
