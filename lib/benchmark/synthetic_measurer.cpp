// The synthetic backend: analytical estimates times a per-rank factor.

#include "benchmark/measurer.h"
#include "cost/nccl_model.h"

namespace osched {
namespace {

class SyntheticMeasurer : public Measurer {
public:
  SyntheticMeasurer(int rank, HardwareSpec hw)
      : factor_(1.0 + 0.5 * rank * rank), hw_(std::move(hw)) {}
  // Compute gets slower and collectives faster with the rank, so unaligned
  // ranks would weigh overlap differently and could pick different orders.
  std::string device_name() const override { return "synthetic"; }

  double matmul_ms(const MatmulProblem& p) override {
    double flops = 2.0 * static_cast<double>(p.batch) * static_cast<double>(p.m) *
                   static_cast<double>(p.n) * static_cast<double>(p.k);
    double bytes = static_cast<double>(p.batch) *
                   static_cast<double>(p.m * p.k + p.k * p.n + p.m * p.n) * dtype_itemsize(p.dtype);
    double s = std::max(flops / hw_.peak_flops(p.dtype), bytes / (hw_.hbm_gbps * 1e9));
    return s * 1e3 * factor_;
  }

  double collective_ms(const CollectiveProblem& p) override {
    CollectiveShape shape{p.kind, collective_model_bytes(p.kind, p.input_bytes, p.nranks), p.nranks,
                          1};
    return estimate_nccl_ms(shape, hw_) / factor_;
  }

private:
  double factor_;
  HardwareSpec hw_;
};

} // namespace

std::unique_ptr<Measurer> make_synthetic_measurer(const RankContext& ctx, const HardwareSpec& hw) {
  return std::make_unique<SyntheticMeasurer>(ctx.rank(), hw);
}

} // namespace osched
