#include "benchmark/benchmark_cache.h"
#include "errors/error.h"
#include "text/json_limits.h"

#include <fstream>
#include <iterator>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

namespace osched {

BenchmarkCache load_benchmark_cache(const std::string& path) {
  BenchmarkCache cache;
  std::ifstream in(path);
  if (!in)
    return cache;
  const nlohmann::json j = parse_json_limited(std::string(std::istreambuf_iterator<char>(in), {}),
                                              path + ": benchmark cache: " + kMalformedJson);
  if (!j.is_object() || j.value("format", "") != "overlap-sched.benchmark-cache")
    throw input_error(path + ": format: not an overlap-sched benchmark cache");
  if (!j.contains("version") || j["version"] != 1)
    throw input_error(path + ": version: unsupported (expected 1)");
  if (!j.contains("entries") || !j["entries"].is_object())
    throw input_error(path + ": entries: must be an object");
  for (const auto& [k, v] : j["entries"].items()) {
    if (!v.is_number() || v.get<double>() < 0)
      throw input_error(path + ": entries." + k + ": must be a number of ms >= 0");
    cache.entries[k] = v.get<double>();
  }
  return cache;
}

std::string benchmark_cache_text(const BenchmarkCache& cache) {
  nlohmann::json j = {
      {"format", "overlap-sched.benchmark-cache"}, {"version", 1}, {"entries", cache.entries}};
  return j.dump(1) + "\n";
}

} // namespace osched
