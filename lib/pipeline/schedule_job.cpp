#include "pipeline/schedule_job.h"

#include <memory>
#include <optional>

#include "benchmark/aligned_benchmark.h"
#include "benchmark/benchmark_cache.h"
#include "benchmark/measurer.h"
#include "errors/error.h"
#include "ranks/rank_context.h"

#include "errors/error.h"
#include "pipeline/prepare_input.h"
#include "pipeline/rank_agreement.h"

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
      throw input_error("rank " + std::to_string(r) + ": " + all[r]);
}

// Under an MPI launcher every rank computes the same result; benchmarking
// also needs the ranks to exchange measurements.
std::unique_ptr<RankContext> rank_context_for(const ScheduleConfig& cfg) {
  if (launched_by_mpi())
    return make_mpi_context();
  if (cfg.benchmarks_collectives() && cfg.benchmark_backend == BenchmarkBackend::Gpu)
    throw device_error("--collective-estimator benchmark needs an MPI launch: run under mpirun "
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
  bo.backend = choice_name(kBenchmarkBackendNames, cfg.benchmark_backend);
  bo.cache = &cache;
  BenchmarkTable table = run_aligned_benchmarks(g, bo, hw, ctx, [&]() -> std::unique_ptr<Measurer> {
    if (cfg.benchmark_backend == BenchmarkBackend::Synthetic)
      return make_synthetic_measurer(ctx, hw);
    return make_gpu_measurer(ctx, MeasureOptions{});
  });
  if (ctx.rank() == 0 && !cfg.benchmark_cache.empty()) {
    write_file_atomic(cfg.benchmark_cache, benchmark_cache_text(table.cache));
  }
  return table;
}

} // namespace

ScheduleJobResult run_schedule_job(const std::string& input, GraphFormat format,
                                   const ScheduleConfig& cfg, const RunSettings& run) {
  std::unique_ptr<RankContext> ctx = rank_context_for(cfg);
  ScheduleJobResult result;
  result.rank = ctx ? ctx->rank() : 0;

  ScheduleInput in;
  BenchmarkCache cache;
  double read_seconds = 0;
  guarded_input_phase(ctx.get(), [&] {
    std::shared_ptr<const CostFiles> costs = load_cost_files(cfg);
    const auto t = std::chrono::steady_clock::now();
    const InputBytes bytes = InputBytes::read(input); // once: standard input cannot be read twice
    in = prepare_input(bytes, {input, format, {}}, cfg, std::move(costs));
    read_seconds = seconds_since(t);
    if (!cfg.benchmark_cache.empty() && cfg.benchmarking()) // its errors name the cache
      cache = load_benchmark_cache(cfg.benchmark_cache);
  });
  const bool several = ctx && ctx->size() > 1;
  if (several)
    agree_on_cost_inputs(*ctx, cfg, in);

  std::optional<BenchmarkTable> table;
  std::unique_ptr<BenchmarkEstimator> measured;
  if (cfg.benchmarking()) {
    table = measure(cfg, in.graph, in.hardware, cache, *ctx);
    // What is not measured keeps the models: model the GPU that was measured
    // (rank 0's, so all ranks agree) unless the graph or options name one.
    const std::string device = table->summary.devices.at(0);
    if (cfg.benchmark_backend == BenchmarkBackend::Gpu && is_known_gpu(device))
      in.hardware = resolve_hardware(in.graph, cfg, device);
    measured = std::make_unique<BenchmarkEstimator>(*table, in.hardware);
    in.measured = measured.get();
    in.benchmark = table->summary;
  }
  guarded_input_phase(ctx.get(), [&] {
    // What the core finds wrong with a value is about this input.
    result.output = with_context(input, [&] { return run_schedule(std::move(in), cfg, run); });
    result.output.phase_seconds.insert(result.output.phase_seconds.begin(), {"read", read_seconds});
  });
  if (several) {
    agree_on_written_orders(*ctx, result.output.graph);
    result.output.report.safety.rank_check = ReportRankCheck{ctx->size(), true, true};
  }
  return result;
}

} // namespace osched
