#pragma once
// The on-disk benchmark cache (--benchmark-cache FILE): aligned medians by
// key, where a key names the device and the problem, so re-runs skip what was
// measured and measurements of different GPUs never mix.
//   {"format": "overlap-sched.benchmark-cache", "version": 1,
//    "entries": {"compute|NVIDIA H200|aten.mm.default|bfloat16|...": 0.412}}

#include <map>
#include <string>

namespace osched {

struct BenchmarkCache {
  std::map<std::string, double> entries;
};

// A missing file is an empty cache. Throws an input error
// ("FILE: field: reason") on a malformed one.
BenchmarkCache load_benchmark_cache(const std::string& path);
std::string benchmark_cache_text(const BenchmarkCache& cache);

} // namespace osched
