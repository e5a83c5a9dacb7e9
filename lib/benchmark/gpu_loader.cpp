// Loads the GPU backend plugin (libosched_gpu.so) on first use. Keeping CUDA,
// cuBLAS and NCCL out of the executable saves every analytical run the time
// and memory of loading them (docs/layout.md, Status, gives the figures).

#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "benchmark/measurer.h"
#include "ranks/device_error.h"

namespace osched {

#ifndef OSCHED_HAVE_CUDA

std::unique_ptr<Measurer> make_gpu_measurer(RankContext&, const MeasureOptions&) {
  throw DeviceError("this build has no CUDA/NCCL support (the CUDA toolkit was not found when it "
                    "was configured); "
                    "GPU benchmarking is unavailable");
}

#else

namespace {

using CreateFn = Measurer* (*)(RankContext*, const MeasureOptions*, char*, size_t);

// $OSCHED_GPU_PLUGIN, else next to the executable, else the loader's search path.
std::string plugin_path() {
  if (const char* p = std::getenv("OSCHED_GPU_PLUGIN"); p && *p)
    return p;
  char exe[4096];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
  if (n > 0) {
    std::string dir(exe, static_cast<size_t>(n));
    dir = dir.substr(0, dir.find_last_of('/') + 1);
    std::string beside = dir + "libosched_gpu.so";
    if (access(beside.c_str(), R_OK) == 0)
      return beside;
  }
  return "libosched_gpu.so";
}

CreateFn load_plugin() {
  static CreateFn create = [] {
    std::string path = plugin_path();
    // Never unloaded: measurers created from it may live until exit.
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle)
      throw DeviceError(std::string("cannot load the GPU benchmark plugin: ") + dlerror());
    auto fn = reinterpret_cast<CreateFn>(dlsym(handle, "osched_gpu_plugin_create"));
    if (!fn)
      throw DeviceError("GPU benchmark plugin " + path + " lacks osched_gpu_plugin_create");
    return fn;
  }();
  return create;
}

} // namespace

std::unique_ptr<Measurer> make_gpu_measurer(RankContext& ctx, const MeasureOptions& opts) {
  CreateFn create = load_plugin();
  char error[1024] = {0};
  Measurer* m = create(&ctx, &opts, error, sizeof(error));
  if (!m)
    throw DeviceError(error[0] ? error : "GPU benchmark plugin failed");
  return std::unique_ptr<Measurer>(m);
}

#endif

} // namespace osched
