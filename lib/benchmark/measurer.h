#pragma once
// What runs one benchmark: the GPU (cuBLAS and NCCL) in production, or a
// synthetic CPU model that gives every rank different values, so rank
// alignment can be tested on machines without GPUs.

#include <memory>
#include <string>

#include "benchmark/collective_problem.h"
#include "benchmark/matmul_problem.h"
#include "cost/hardware.h"
#include "ranks/rank_context.h"

namespace osched {

class Measurer {
public:
  virtual ~Measurer() = default;
  // Part of every cache key, so measurements of different GPUs never mix.
  virtual std::string device_name() const = 0;
  // Collective set-up (NCCL communicator); every rank calls it together,
  // after all ranks constructed their measurer successfully.
  virtual void prepare_collectives() {}
  // Median milliseconds of one run. Throw a device error on failure.
  virtual double matmul_ms(const MatmulProblem& p) = 0;
  // Runs on every rank at once, in the same order on all of them.
  virtual double collective_ms(const CollectiveProblem& p) = 0;
};

struct MeasureOptions {
  int warmup_runs = 3;
  int matmul_runs = 10;
  int collective_runs = 5;
};

// Selects this rank's GPU (local rank modulo device count) and creates the
// cuBLAS handle. Throws a device error without CUDA support, without a device,
// or on a CUDA error.
std::unique_ptr<Measurer> make_gpu_measurer(RankContext& ctx, const MeasureOptions& opts);

// Analytical estimates with a per-rank factor f = 1 + 0.5 * rank^2: matmuls
// take f times the roofline, collectives 1/f times the NCCL model. Values
// differ on every rank and the median (rank 1's) differs from the mean and
// from rank 0's, which is what the alignment tests check.
std::unique_ptr<Measurer> make_synthetic_measurer(const RankContext& ctx, const HardwareSpec& hw);

} // namespace osched
