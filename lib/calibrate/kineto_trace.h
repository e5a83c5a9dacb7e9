#pragma once
// PyTorch profiler traces (Kineto's Chrome-trace JSON, `.json` or
// `.json.gz`, one file per rank): the NCCL collective kernels with the
// metadata PyTorch records on them, and the GPU kernels of CPU ops recorded
// with their input shapes.

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "ops/collective.h"

#include "errors/error.h"

namespace osched {

// One NCCL collective kernel.
struct NcclKernel {
  CollectiveKind kind = CollectiveKind::AllReduce;
  std::string group;          // "Process Group Name", else "" (the default group)
  int64_t group_size = 0;     // "Group size"
  int64_t input_bytes = 0;    // "In msg nelems" x the dtype's size
  std::optional<int64_t> seq; // "Seq" where recorded
  double start_us = 0;
  double dur_us = 0;
};

// GPU time of one CPU op whose inputs were recorded (record_shapes=True).
struct ShapedOp {
  std::string target; // "aten.mm.default"
  std::string key;    // "aten.mm.default|bfloat16[8192,4096]|..." (estimates' op+shape key)
  double gpu_us = 0;  // its kernels' time
  std::vector<std::vector<int64_t>> dims; // its tensor inputs' sizes, in order
  std::string dtype;                      // the first tensor input's dtype name
};

struct KinetoTrace {
  std::string path;
  int64_t rank = -1; // distributedInfo.rank, -1 when absent
  int64_t world_size = 0;
  std::vector<NcclKernel> nccl;
  int64_t nccl_without_metadata =
      0;                   // NCCL kernels with no collective metadata (send/recv, old PyTorch)
  bool has_shapes = false; // some CPU op recorded its input shapes
  std::vector<ShapedOp> ops;
  std::string device_name; // deviceProperties[0].name, "" when absent
};

// Reads one trace file; throws input_error("PATH: what is wrong").
KinetoTrace read_kineto_trace(const std::string& path);
// The same on the file's bytes (gzip-compressed or not).
KinetoTrace parse_kineto_trace(const std::string& bytes, const std::string& path);

} // namespace osched
