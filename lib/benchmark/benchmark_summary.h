#pragma once
// What the aligned benchmarks measured, as the report shows it: every key
// with each rank's value, the median kept, the analytical model's figure
// and whether it came from the cache.

#include <string>
#include <vector>

namespace osched {

struct BenchmarkEntry {
  std::string key;                // MatmulProblem::key() or CollectiveProblem::key()
  std::vector<std::string> nodes; // matmuls: the graph nodes of this key
  std::vector<double> per_rank_ms;
  double median_ms = 0;
  double analytical_ms = 0;
  bool from_cache = false;
};

struct BenchmarkSummary {
  std::string backend; // "gpu" or "synthetic"
  int ranks = 1;
  std::vector<std::string> devices; // per rank
  int cache_hits = 0;
  int measured = 0;
  std::vector<BenchmarkEntry> compute;
  std::vector<BenchmarkEntry> collectives;
};

} // namespace osched
