#pragma once
// The machine a graph is scheduled for: peak FLOP/s per dtype, HBM and
// interconnect bandwidth, NCCL choices. Defaults are an H100-SXM node;
// the graph's `hardware` object and CLI flags override them.

#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "graph/dtype.h"

namespace osched {

enum class GpuGeneration { Volta = 0, Ampere = 1, Hopper = 2, Blackwell = 3 };
enum class NcclAlgoChoice { Auto, Ring, Tree };
enum class NcclProtoChoice { Auto, LL, LL128, Simple };

struct HardwareSpec {
  std::string gpu = "H100-SXM";
  GpuGeneration generation = GpuGeneration::Hopper;
  int gpus_per_node = 8;
  std::map<std::string, double> peak_tflops; // by dtype name; dense tensor-core rates
  double hbm_gbps = 3350.0;
  double intra_node_gbps = 370.0; // NVLink bus bandwidth per GPU
  double inter_node_gbps = 50.0;  // per-GPU NIC bandwidth
  bool nvlink = true;
  int nccl_channels = 16;
  NcclAlgoChoice nccl_algo = NcclAlgoChoice::Auto;
  NcclProtoChoice nccl_proto = NcclProtoChoice::Auto;
  // Fraction of the tensor-core peak a matmul or attention kernel reaches
  // (PyTorch's roofline estimate assumes 75%).
  double matmul_efficiency = 0.75;
  // Time a kernel costs beyond its work: launch and tail (autoparallel's
  // overlap simulator charges 1 us a node).
  double kernel_launch_us = 1.0;

  double peak_flops(DType d) const; // FLOP/s
  nlohmann::json to_json() const;
};

// Defaults for a GPU by name ("H100-SXM", "H200", "A100-SXM", "B200", "V100"...).
HardwareSpec default_hardware(const std::string& gpu = "H100-SXM");

// Whether default_hardware has a table for this name (e.g. a CUDA device
// name such as "NVIDIA H200" or "NVIDIA A100-SXM4-80GB").
bool is_known_gpu(const std::string& name);

// Applies a graph's / config's `hardware` object. Throws an input error
// with "field: reason" on bad values.
void apply_hardware_overrides(HardwareSpec& hw, const nlohmann::json& overrides);

} // namespace osched
