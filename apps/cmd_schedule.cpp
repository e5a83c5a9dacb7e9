// schedule IN -o OUT --report REPORT.json: the main job.

#include <fstream>
#include <climits>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <sstream>

#include "benchmark/aligned_benchmark.h"
#include "benchmark/benchmark_cache.h"
#include "benchmark/measurer.h"
#include "benchmark/rank_context.h"
#include "commands.h"
#include "exit_codes.h"
#include "io/graph_file.h"
#include "io/escape.h"
#include "io/output_batch.h"
#include "cost/hardware.h"
#include "pipeline/schedule_pipeline.h"
#include "report/content_hash.h"
#include "report/report.h"
#include "run_errors.h"

namespace osched::cli {
namespace {

struct ScheduleArgs {
  std::string input;
  std::string output;
  std::string report;
  std::string config;
  std::string in_format = "auto";
  std::string out_format = "auto";
  std::string runtime_estimates;
  std::string hardware_gpu;
  std::optional<int> gpus_per_node;
  std::string benchmark_cache;
  std::string benchmark_backend = "gpu";
  bool output_per_rank = false;
  bool quiet = false;
  ScheduleConfig cfg;
};

// Reads --config FILE.json: the same keys as the flags, snake_case.
void apply_config_file(const std::string& path, ScheduleArgs& a, CLI::App& cmd) {
  std::ifstream in(path);
  if (!in)
    throw InputError(path + ": cannot open config file");
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception&) {
    throw InputError(path + ": malformed JSON");
  }
  if (!j.is_object())
    throw InputError(path + ": config must be a JSON object");
  auto given = [&](const char* flag) { return cmd.get_option(flag)->count() > 0; };
  auto num = [&](const std::string& key) {
    if (!j[key].is_number())
      throw InputError(path + ": " + key + ": must be a number");
    return j[key].get<double>();  // ranges: check_options
  };
  auto integer = [&](const std::string& key) {
    if (!j[key].is_number_integer() || j[key].get<int64_t>() < INT32_MIN || j[key].get<int64_t>() > INT32_MAX ||
        (j[key].is_number_unsigned() && j[key].get<uint64_t>() > INT32_MAX))
      throw InputError(path + ": " + key + ": must be an integer that fits in 32 bits");
    return static_cast<int>(j[key].get<int64_t>());
  };
  auto boolean = [&](const std::string& key) {
    if (!j[key].is_boolean())
      throw InputError(path + ": " + key + ": must be true or false");
    return j[key].get<bool>();
  };
  auto& s = a.cfg.scheduler;
  for (const auto& [key, _] : j.items()) {
    if (key == "max_in_flight_gb") {
      if (!given("--max-in-flight-gb"))
        s.max_in_flight_gb = num(key);
    } else if (key == "max_compute_pre_fetch") {
      if (!given("--max-compute-pre-fetch"))
        s.max_compute_pre_fetch = integer(key);
    } else if (key == "compute_overlap_multiplier") {
      if (!given("--compute-overlap-multiplier"))
        s.compute_overlap_multiplier = num(key);
    } else if (key == "max_coll_distance") {
      if (!given("--max-coll-distance"))
        s.max_coll_distance = integer(key);
    } else if (key == "max_memory_increase_gb") {
      if (!given("--max-memory-increase-gb"))
        s.max_memory_increase_gb = num(key);
    } else if (key == "max_memory_increase_ratio") {
      if (!given("--max-memory-increase-ratio"))
        s.max_memory_increase_ratio = num(key);
    } else if (key == "preserve_group_order") {
      if (!given("--preserve-group-order"))
        s.preserve_group_order = boolean(key);
    } else if (key == "release_memory_early") {
      if (!given("--release-memory-early"))
        s.release_memory_early = boolean(key);
    } else if (key == "collective_estimator") {
      if (!j[key].is_string())
        throw InputError(path + ": " + key + ": must be a string");
      if (!given("--collective-estimator"))
        a.cfg.collective_estimator = j[key].get<std::string>();
    } else if (key == "benchmark_compute") {
      if (!given("--benchmark-compute"))
        a.cfg.benchmark_compute = boolean(key);
    } else if (key == "collective_bucketing") {
      if (!given("--collective-bucketing"))
        a.cfg.collective_bucketing = boolean(key);
    } else if (key == "bucket_max_gb") {
      if (!given("--bucket-max-gb"))
        a.cfg.bucket_max_gb = num(key);
    } else if (key == "insert_overlap_deps") {
      if (!given("--insert-overlap-deps"))
        a.cfg.insert_overlap_deps = boolean(key);
    } else if (key == "runtime_estimates") {
      if (!j[key].is_string())
        throw InputError(path + ": " + key + ": must be a path string");
      if (!given("--runtime-estimates"))
        a.runtime_estimates = j[key].get<std::string>();
    } else if (key == "benchmark_cache") {
      if (!j[key].is_string())
        throw InputError(path + ": " + key + ": must be a path string");
      if (!given("--benchmark-cache"))
        a.benchmark_cache = j[key].get<std::string>();
    } else if (key == "benchmark_backend") {
      if (!j[key].is_string())
        throw InputError(path + ": " + key + ": must be a string");
      if (!given("--benchmark-backend"))
        a.benchmark_backend = j[key].get<std::string>();
    } else if (key == "hardware")
      a.cfg.hardware_overrides = j[key];
    else
      throw InputError(path + ": " + key + ": unknown option");
  }
}

std::string fmt_number(double v) {
  std::ostringstream o;
  o << v;
  return o.str();
}

void check_options(const ScheduleArgs& a) {
  const auto& s = a.cfg.scheduler;
  // Written so NaN fails too; the upper bounds keep byte counts in int64.
  auto in_range = [](double v, double lo, double hi, bool lo_open, const char* flag) {
    if (!(lo_open ? v > lo : v >= lo) || !(v <= hi))
      throw InputError(std::string(flag) + ": must be " + (lo_open ? "> " : ">= ") + fmt_number(lo) +
                       " and <= " + fmt_number(hi) + ", got " + fmt_number(v));
  };
  in_range(s.max_in_flight_gb, 0, 1e9, true, "--max-in-flight-gb");
  in_range(s.compute_overlap_multiplier, 0, 1e6, false, "--compute-overlap-multiplier");
  in_range(s.max_memory_increase_gb, 0, 1e9, false, "--max-memory-increase-gb");
  in_range(s.max_memory_increase_ratio, 0, 1e6, false, "--max-memory-increase-ratio");
  in_range(a.cfg.bucket_max_gb, 0, 1e9, true, "--bucket-max-gb");
  if (s.max_compute_pre_fetch < 0)
    throw InputError("--max-compute-pre-fetch: must be >= 0");
  if (s.max_coll_distance < 0)
    throw InputError("--max-coll-distance: must be >= 0");
  if (a.gpus_per_node && (*a.gpus_per_node < 1 || *a.gpus_per_node > 1024))
    throw InputError("--gpus-per-node: must be from 1 to 1024, got " + std::to_string(*a.gpus_per_node));
  if (!a.hardware_gpu.empty() && !is_known_gpu(a.hardware_gpu))
    throw InputError("--gpu: unknown GPU '" + escape_quoted(a.hardware_gpu) +
                     "' (known: names containing A100, V100, H100, H200, B100, B200 or GB200)");
  if (a.cfg.collective_estimator != "analytical" && a.cfg.collective_estimator != "benchmark")
    throw InputError("--collective-estimator: expected analytical or benchmark, got '" +
                     a.cfg.collective_estimator + "'");
  if (a.benchmark_backend != "gpu" && a.benchmark_backend != "synthetic")
    throw InputError("--benchmark-backend: expected gpu or synthetic, got '" + a.benchmark_backend +
                     "'");
  if (a.output_per_rank && (a.output == "-" || a.report == "-"))
    throw InputError("--output-per-rank: needs file paths for -o and --report, not stdout");
  // Under mpirun only one rank gets standard input; the others would read
  // an empty graph.
  if (a.input == "-")
    for (const char* var : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE"})
      if (const char* v = std::getenv(var); v && std::atoi(v) > 1)
        throw InputError("IN: reading the graph from standard input is not supported under mpirun "
                         "(one rank gets it); pass a file path");
  // Outputs that name the same file would overwrite each other or the input.
  if (!a.report.empty()) {
    if (same_output_file(a.report, a.output))
      throw InputError("--report: '" + a.report + "' is also the graph output (-o)");
    if (a.input != "-" && same_output_file(a.report, a.input))
      throw InputError("--report: '" + a.report + "' is the input graph");
  }
  if (!a.benchmark_cache.empty())
    for (const std::string* other : {&a.output, &a.report, &a.input})
      if (!other->empty() && *other != "-" && same_output_file(a.benchmark_cache, *other))
        throw InputError("--benchmark-cache: '" + a.benchmark_cache + "' is also the input or an output");
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

// Failures before the ranks start measuring must reach every rank, or the
// others would wait in a collective forever. The failing rank keeps its own
// error (and exit code); the others report it as bad input of that rank.
template <typename Fn> void guarded_input_phase(RankContext* ctx, Fn&& fn) {
  if (!ctx || ctx->size() == 1) {
    fn();
    return;
  }
  std::exception_ptr failure;
  std::string msg;
  try {
    fn();
  } catch (const std::exception& e) {
    failure = std::current_exception();
    msg = *e.what() ? e.what() : "failed";
  }
  std::vector<std::string> all = ctx->allgather_strings(msg);
  if (failure)
    std::rethrow_exception(failure);
  for (size_t r = 0; r < all.size(); ++r)
    if (!all[r].empty())
      throw InputError("rank " + std::to_string(r) + ": " + all[r]);
}

// Under an MPI launcher every rank computes the same result (rank 0 writes
// it); benchmarking also needs the ranks to exchange measurements.
std::unique_ptr<RankContext> rank_context_for(const ScheduleArgs& a, bool benchmarking,
                                              bool benchmark_collectives) {
  if (launched_by_mpi())
    return make_mpi_context();
  if (benchmark_collectives && a.benchmark_backend == "gpu")
    throw DeviceError("--collective-estimator benchmark needs an MPI launch: run under mpirun "
                      "-np N (one rank per local GPU)");
  if (benchmarking)
    return make_single_rank_context();
  return nullptr;
}

// Aligned benchmarks on every rank; rank 0 updates the cache file.
BenchmarkTable measure(const ScheduleArgs& a, const Graph& g, const HardwareSpec& hw,
                       const BenchmarkCache& cache, RankContext& ctx, bool benchmark_collectives) {
  BenchmarkOptions bo;
  bo.compute = a.cfg.benchmark_compute;
  bo.collectives = benchmark_collectives;
  bo.backend = a.benchmark_backend;
  bo.cache = &cache;
  BenchmarkTable table = run_aligned_benchmarks(g, bo, hw, ctx, [&]() -> std::unique_ptr<Measurer> {
    if (a.benchmark_backend == "synthetic")
      return make_synthetic_measurer(ctx, hw);
    return make_gpu_measurer(ctx, MeasureOptions{});
  });
  if (ctx.rank() == 0 && !a.benchmark_cache.empty()) {
    try {
      write_file_atomic(a.benchmark_cache, benchmark_cache_text(table.cache));
    } catch (const IoError& e) {
      throw OutputError(e.what());
    }
  }
  return table;
}

int run(ScheduleArgs& a, CLI::App& cmd) {
  if (!a.config.empty())
    apply_config_file(a.config, a, cmd);
  check_options(a);
  if (!a.hardware_gpu.empty())
    a.cfg.hardware_overrides["gpu"] = a.hardware_gpu;
  if (a.gpus_per_node)
    a.cfg.hardware_overrides["gpus_per_node"] = *a.gpus_per_node;
  GraphFormat in_format, out_format;
  try {
    in_format = parse_graph_format(a.in_format);
    out_format = parse_graph_format(a.out_format);
  } catch (const std::invalid_argument& e) {
    throw InputError(std::string("--format: ") + e.what());
  }

  const bool benchmark_collectives = a.cfg.collective_estimator == "benchmark";
  const bool benchmarking = benchmark_collectives || a.cfg.benchmark_compute;
  a.cfg.benchmark_backend = benchmarking ? a.benchmark_backend : "";
  a.cfg.benchmark_cache_path = benchmarking ? a.benchmark_cache : "";
  std::unique_ptr<RankContext> ctx = rank_context_for(a, benchmarking, benchmark_collectives);
  const int rank = ctx ? ctx->rank() : 0;

  std::string input_hash;
  Graph g;
  HardwareSpec hw;
  BenchmarkCache cache;
  guarded_input_phase(ctx.get(), [&] {
    std::string bytes = read_file_bytes(a.input); // read once: stdin cannot be read twice
    g = parse_graph_bytes(bytes, a.input, in_format);
    input_hash = content_hash(bytes);
    if (!a.runtime_estimates.empty()) {
      try {
        a.cfg.custom_estimates = load_custom_estimates(a.runtime_estimates);
      } catch (const std::invalid_argument& e) {
        throw InputError(e.what());
      }
      a.cfg.runtime_estimates_path = a.runtime_estimates;
    }
    try {
      hw = resolve_hardware(g, a.cfg.hardware_overrides);
      if (!a.benchmark_cache.empty() && benchmarking)
        cache = load_benchmark_cache(a.benchmark_cache);
    } catch (const std::invalid_argument& e) {
      throw InputError(a.input + ": " + e.what());
    }
  });

  std::optional<BenchmarkTable> table;
  std::unique_ptr<BenchmarkEstimator> measured;
  nlohmann::json extra = nlohmann::json::object();
  if (benchmarking) {
    table = measure(a, g, hw, cache, *ctx, benchmark_collectives);
    // What is not measured keeps the models: model the GPU that was measured
    // (rank 0's, so all ranks agree) unless the graph or options name one.
    const std::string device = table->report["devices"][0].get<std::string>();
    if (a.benchmark_backend == "gpu" && g.hardware.is_null() && a.cfg.hardware_overrides.is_null() &&
        is_known_gpu(device)) {
      a.cfg.hardware_overrides = {{"gpu", device}};
      hw = resolve_hardware(g, a.cfg.hardware_overrides);
    }
    measured = std::make_unique<BenchmarkEstimator>(*table, hw);
    extra["benchmark"] = table->report;
  }

  ScheduleOutput out;
  try {
    out = run_schedule_owned(std::move(g), input_hash, a.cfg, measured.get(), extra);
  } catch (const std::invalid_argument& e) {
    throw InputError(a.input + ": " + e.what());
  }
  // Every rank computed the same result; rank 0 writes it unless asked for one per rank.
  if (rank != 0 && !a.output_per_rank)
    return kOk;
  std::string output = a.output_per_rank ? per_rank_path(a.output, rank) : a.output;
  std::string report =
      a.output_per_rank && !a.report.empty() ? per_rank_path(a.report, rank) : a.report;
  // Both outputs complete before either replaces anything, so a failure
  // leaves neither (and the input, even when -o names it, intact).
  const std::string report_text = out.report.dump(2) + "\n";
  OutputBatch batch;
  add_graph_output(batch, output, out.graph, out_format);
  if (!report.empty())
    batch.add(report, [&](const Emit& emit) { emit(report_text); });
  try {
    batch.commit();
  } catch (const IoError& e) {
    throw OutputError(e.what());
  }
  if (!a.quiet && rank == 0)
    std::cerr << report_summary(out.report);
  return kOk;
}

} // namespace

void add_schedule_command(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("schedule", "Reorder a graph to overlap collectives with compute");
  auto a = std::make_shared<ScheduleArgs>();
  auto& s = a->cfg.scheduler;
  cmd->add_option("IN", a->input, "input graph (.json/.pb, - for stdin)")->required();
  cmd->add_option("-o,--output", a->output, "reordered graph (.json/.pb, - for stdout)")
      ->required();
  cmd->add_option("--report", a->report, "write the JSON report here");
  cmd->add_option("--config", a->config,
                  "JSON file with any of the options below (snake_case keys)");
  cmd->add_option("--format", a->in_format, "input format: auto, json, pb");
  cmd->add_option("--out-format", a->out_format, "output format: auto (by extension), json, pb");
  cmd->add_option("--max-in-flight-gb", s.max_in_flight_gb, "max GB of collectives in flight")
      ->capture_default_str();
  cmd->add_option("--max-compute-pre-fetch", s.max_compute_pre_fetch,
                  "max compute nodes a collective may be started ahead of its use")
      ->capture_default_str();
  cmd->add_option("--compute-overlap-multiplier", s.compute_overlap_multiplier,
                  "scale of compute time available to hide collectives")
      ->capture_default_str();
  cmd->add_option("--max-coll-distance", s.max_coll_distance,
                  "how many of the next unscheduled collectives each compute node may start")
      ->capture_default_str();
  cmd->add_flag("--preserve-group-order", s.preserve_group_order,
                "never change a process group's collective issue order (not upstream; hang-safe even "
                "if ranks could decide differently)");
  cmd->add_flag("--release-memory-early", s.release_memory_early,
                "run nodes that free more than they allocate as soon as they are ready (not upstream; "
                "lowers the peak)");
  cmd->add_option("--max-memory-increase-gb", s.max_memory_increase_gb,
                  "peak memory may grow by max(this, ratio x baseline peak)")
      ->capture_default_str();
  cmd->add_option("--max-memory-increase-ratio", s.max_memory_increase_ratio,
                  "see --max-memory-increase-gb")
      ->capture_default_str();
  cmd->add_option("--collective-estimator", a->cfg.collective_estimator,
                  "analytical or benchmark (NCCL on local GPUs, under mpirun)")
      ->capture_default_str();
  cmd->add_flag("--benchmark-compute", a->cfg.benchmark_compute, "benchmark matmuls with cuBLAS");
  cmd->add_option("--benchmark-cache", a->benchmark_cache,
                  "JSON cache of aligned benchmark medians, read and updated (by rank 0)");
  cmd->add_option("--benchmark-backend", a->benchmark_backend,
                  "gpu (cuBLAS/NCCL) or synthetic (per-rank CPU model, for testing alignment)")
      ->capture_default_str();
  cmd->add_flag("--output-per-rank", a->output_per_rank,
                "every rank writes OUT.rankN.ext (and REPORT.rankN.json); default: rank 0 only");
  cmd->add_option("--runtime-estimates", a->runtime_estimates,
                  "JSON of user estimates in ms (by node name or op), taking precedence");
  cmd->add_option("--gpu", a->hardware_gpu,
                  "target GPU for the analytical model (H100-SXM, H200, A100-SXM, B200, V100)");
  cmd->add_option("--gpus-per-node", a->gpus_per_node, "GPUs per node of the target machine");
  cmd->add_flag("--collective-bucketing", a->cfg.collective_bucketing,
                "merge collectives the schedule overlaps with the same compute");
  cmd->add_option("--bucket-max-gb", a->cfg.bucket_max_gb, "max bytes of one bucket, in GB")
      ->capture_default_str();
  cmd->add_flag("--insert-overlap-deps", a->cfg.insert_overlap_deps,
                "write control_deps that pin each hidden collective around its hiding compute");
  cmd->add_flag("-q,--quiet", a->quiet, "do not print the summary on stderr");
  cmd->footer(
      "Examples:\n"
      "  overlap-sched schedule testdata/example_llama_fsdp.json -o /tmp/out.json --report "
      "/tmp/report.json\n"
      "  overlap-sched schedule g.pb -o g.sched.pb --max-in-flight-gb 2 "
      "--runtime-estimates est.json\n"
      "  overlap-sched schedule g.json -o - --config sched.json -q > g.sched.json\n"
      "  mpirun -np 8 overlap-sched schedule g.pb -o g.sched.pb --benchmark-compute "
      "--collective-estimator benchmark --benchmark-cache bench.json\n"
      "  overlap-sched schedule g.json -o g.b.json --collective-bucketing --insert-overlap-deps");
  cmd->callback([&exit_code, a, cmd] { exit_code = run_guarded([&] { return run(*a, *cmd); }); });
}

} // namespace osched::cli
