// Loads the GPU backend plugin (libosched_gpu.so) on first use. Keeping CUDA,
// cuBLAS and NCCL out of the executable saves every analytical run the time
// and memory of loading them (docs/layout.md, Status, gives the figures).

#include <string>

#include "benchmark/measurer.h"
#include "errors/error.h"
#include "ranks/plugin_loader.h"

namespace osched {

#ifndef OSCHED_HAVE_CUDA

std::unique_ptr<Measurer> make_gpu_measurer(RankContext&, const MeasureOptions&) {
  throw device_error("this build has no CUDA/NCCL support (the CUDA toolkit was not found when it "
                     "was configured); "
                     "GPU benchmarking is unavailable");
}

#else

namespace {

using CreateFn = Measurer* (*)(RankContext*, const MeasureOptions*, char*, size_t);

CreateFn load_plugin() {
  static CreateFn create = [] {
    std::string path = plugin_path("libosched_gpu.so", "OSCHED_GPU_PLUGIN");
    void* handle = open_plugin(path, /*global=*/false, "GPU benchmark");
    return reinterpret_cast<CreateFn>(plugin_symbol(handle, "osched_gpu_plugin_create", path));
  }();
  return create;
}

} // namespace

std::unique_ptr<Measurer> make_gpu_measurer(RankContext& ctx, const MeasureOptions& opts) {
  CreateFn create = load_plugin();
  char error[1024] = {0};
  Measurer* m = create(&ctx, &opts, error, sizeof(error));
  if (!m)
    throw device_error(error[0] ? error : "GPU benchmark plugin failed");
  return std::unique_ptr<Measurer>(m);
}

#endif

} // namespace osched
