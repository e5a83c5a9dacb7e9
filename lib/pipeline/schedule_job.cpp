#include "pipeline/schedule_job.h"

#include <filesystem>
#include <memory>
#include <optional>

#include "benchmark/aligned_benchmark.h"
#include "benchmark/benchmark_cache.h"
#include "benchmark/measurer.h"
#include "errors/error.h"
#include "ranks/device_error.h"
#include "ranks/rank_context.h"
#include <future>

#include "files/content_hash.h"
#include "pipeline/job_errors.h"

namespace osched {
namespace {

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

// Under an MPI launcher every rank computes the same result; benchmarking
// also needs the ranks to exchange measurements.
std::unique_ptr<RankContext> rank_context_for(const ScheduleConfig& cfg) {
  if (launched_by_mpi())
    return make_mpi_context();
  if (cfg.benchmarks_collectives() && cfg.benchmark_backend == "gpu")
    throw DeviceError("--collective-estimator benchmark needs an MPI launch: run under mpirun "
                      "-np N (one rank per local GPU)");
  if (cfg.benchmarking())
    return make_single_rank_context();
  return nullptr;
}

// Aligned benchmarks on every rank; rank 0 updates the cache file.
BenchmarkTable measure(const ScheduleConfig& cfg, const Graph& g, const HardwareSpec& hw,
                       const BenchmarkCache& cache, RankContext& ctx) {
  BenchmarkOptions bo;
  bo.compute = cfg.benchmark_compute;
  bo.collectives = cfg.benchmarks_collectives();
  bo.backend = cfg.benchmark_backend;
  bo.cache = &cache;
  BenchmarkTable table = run_aligned_benchmarks(g, bo, hw, ctx, [&]() -> std::unique_ptr<Measurer> {
    if (cfg.benchmark_backend == "synthetic")
      return make_synthetic_measurer(ctx, hw);
    return make_gpu_measurer(ctx, MeasureOptions{});
  });
  if (ctx.rank() == 0 && !cfg.benchmark_cache.empty()) {
    try {
      write_file_atomic(cfg.benchmark_cache, benchmark_cache_text(table.cache));
    } catch (const IoError& e) {
      throw OutputError(e.what());
    }
  }
  return table;
}

} // namespace

// The table a graph names (import-fx records a repro's
// get_colls_estimations_file() and group mapping), when that file sits
// beside the input; nullopt otherwise.
static std::optional<CollectiveTable> recorded_collective_table(const Graph& g,
                                                                const std::string& input) {
  auto it = g.extra.find("collective_table");
  if (it == g.extra.end() || !it->is_object() || !it->contains("file") ||
      !(*it)["file"].is_string() || input == "-")
    return std::nullopt;
  const std::string name = (*it)["file"].get<std::string>();
  if (name.empty() || name.find('/') != std::string::npos)
    throw ValueError(input + ": collective_table.file: must be a file name");
  const std::string path = (std::filesystem::path(input).parent_path() / name).string();
  if (!std::filesystem::exists(path))
    return std::nullopt;
  CollectiveTable t = load_collective_table(path);
  if (it->contains("group_mapping")) {
    const nlohmann::json& m = (*it)["group_mapping"];
    if (!m.is_object())
      throw ValueError(input + ": collective_table.group_mapping: must be an object");
    for (const auto& [from, to] : m.items()) {
      if (!to.is_string())
        throw ValueError(input + ": collective_table.group_mapping." + from +
                         ": must be a group name");
      t.group_mapping[from] = to.get<std::string>();
    }
  }
  return t;
}

void load_estimate_files(ScheduleConfig& cfg) {
  if (!cfg.runtime_estimates.empty())
    cfg.custom_estimates = load_custom_estimates(cfg.runtime_estimates);
  if (!cfg.collective_table.empty() && cfg.collective_table != "none")
    cfg.collective_table_data = load_collective_table(cfg.collective_table);
}

ScheduleJobResult run_schedule_job(const std::string& input, GraphFormat format,
                                   const ScheduleConfig& given_cfg) {
  ScheduleConfig cfg = given_cfg;
  std::unique_ptr<RankContext> ctx = rank_context_for(cfg);
  ScheduleJobResult result;
  result.rank = ctx ? ctx->rank() : 0;

  ScheduleInput in;
  BenchmarkCache cache;
  double read_seconds = 0;
  guarded_input_phase(ctx.get(), [&] {
    const auto t = std::chrono::steady_clock::now();
    const InputBytes bytes = InputBytes::read(input); // once: standard input cannot be read twice
    // The report's input hash on the second core while the graph is parsed.
    std::future<std::string> hash =
        std::async(std::launch::async, [&bytes] { return content_hash(bytes.view()); });
    in.graph = parse_graph_bytes(bytes, input, format);
    in.input_hash = hash.get();
    read_seconds = seconds_since(t);
    load_estimate_files(cfg);
    if (cfg.collective_table.empty()) {
      if (auto recorded = recorded_collective_table(in.graph, input)) {
        cfg.collective_table = recorded->path; // the report's config says which
        cfg.collective_table_data = std::move(*recorded);
      }
    }
    try {
      in.hardware = resolve_hardware(in.graph, cfg);
      if (!cfg.benchmark_cache.empty() && cfg.benchmarking())
        cache = load_benchmark_cache(cfg.benchmark_cache);
    } catch (const ValueError& e) {
      throw InputError(input + ": " + e.what());
    }
  });

  std::optional<BenchmarkTable> table;
  std::unique_ptr<BenchmarkEstimator> measured;
  if (cfg.benchmarking()) {
    table = measure(cfg, in.graph, in.hardware, cache, *ctx);
    // What is not measured keeps the models: model the GPU that was measured
    // (rank 0's, so all ranks agree) unless the graph or options name one.
    const std::string device = table->summary.devices.at(0);
    if (cfg.benchmark_backend == "gpu" && in.graph.hardware.is_null() &&
        cfg.hardware_overrides.is_null() && cfg.gpu.empty() && !cfg.gpus_per_node &&
        is_known_gpu(device)) {
      cfg.gpu = device;
      in.hardware = resolve_hardware(in.graph, cfg);
    }
    measured = std::make_unique<BenchmarkEstimator>(*table, in.hardware);
    in.measured = measured.get();
    in.benchmark = table->summary;
  }
  try {
    result.output = run_schedule(std::move(in), cfg);
    result.output.phase_seconds.insert(result.output.phase_seconds.begin(), {"read", read_seconds});
  } catch (const ValueError& e) {
    throw InputError(input + ": " + e.what());
  }
  return result;
}

} // namespace osched
