#pragma once
// Batch reprocessing: many graph files scheduled with one set of options
// into an output tree that mirrors the inputs' names, each file on its own
// (one failing never stops the others), with a stamp beside each output so
// a rerun skips what is up to date.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "format/graph_file.h"
#include "pipeline/schedule_config.h"
#include "pipeline/schedule_pipeline.h"

namespace osched {

struct BatchItem {
  std::string input; // path as found
  std::string rel;   // path under its root (directories) or its file name
};

// Graph files (.json, .pb) under each directory (recursively) or named
// directly, plus the lines of `list_file` (if given); outputs under
// `out_dir` are never inputs. Sorted by relative path, duplicates dropped.
// Throws an input error for a path that does not exist or a clash of names.
std::vector<BatchItem> collect_batch_inputs(const std::vector<std::string>& inputs,
                                            const std::string& list_file,
                                            const std::string& out_dir);

struct BatchPaths {
  std::string graph, report, stamp;
};
// OUT/REL (with the output format's extension), OUT/REL.report.json and
// OUT/REL.osched-stamp.json, REL without its extension.
BatchPaths batch_paths(const BatchItem& item, const std::string& out_dir, GraphFormat out_format);

// What makes outputs current: the options (as the report echoes them), the
// runtime estimates' content, and the tool version.
std::string batch_options_fingerprint(const ScheduleConfig& cfg);

struct BatchResult {
  std::string input;
  std::string status = "failed"; // ok, skipped (up to date), failed
  std::string error;             // one line, for failed
  bool output_failed = false;    // failed writing its outputs (not its input)
  int64_t nodes = 0;
  double step_ms_before = 0, step_ms_after = 0, exposed_ms_after = 0;
  int64_t peak_bytes = 0;
  double seconds = 0; // wall time (not in the summary files: they stay reproducible)
};

class RankContext;

struct BatchOptions {
  std::vector<std::string> inputs; // files and directories
  std::string list_file;           // a file naming one input per line, or empty
  std::string out_dir;
  GraphFormat out_format = GraphFormat::Auto;
  int jobs = 1;       // worker threads of each rank
  bool force = false; // redo outputs that are up to date
  ScheduleConfig cfg;
  std::shared_ptr<const CostFiles> costs; // load_cost_files(cfg), shared by the workers
};

// Schedules one file and writes its graph, report and stamp together;
// never throws (a failure is the result's status and error).
BatchResult run_batch_item(const BatchItem& item, const BatchPaths& paths, const BatchOptions& opts,
                           const std::string& fingerprint);

struct BatchProgress {
  size_t done = 0, total = 0, failed = 0; // of this rank's share
  std::string current;                    // an input being scheduled now
};

// The whole batch: this rank's share of the inputs (every size-th file) on
// `opts.jobs` threads, every rank's rows gathered in file order, and rank 0
// writing OUTDIR/summary.jsonl and summary.csv. `progress` is called on the
// calling thread while the work runs (about five times a second) and once
// at the end. Returns every file's result on every rank. Throws an input error
// (no graph among the inputs), an output error (the output directory or the
// summaries cannot be written).
std::vector<BatchResult> run_batch(const BatchOptions& opts, RankContext& ranks,
                                   const std::function<void(const BatchProgress&)>& progress);

// One summary.jsonl row, and the CSV header and row.
nlohmann::json batch_result_json(const BatchResult& r);
BatchResult batch_result_from_json(const nlohmann::json& j);
std::string batch_csv_header();
std::string batch_csv_row(const BatchResult& r);

} // namespace osched
