#include "benchmark/collective_problem.h"

#include <algorithm>

namespace osched {

std::string CollectiveProblem::series() const {
  return std::string(collective_kind_name(kind)) + "|" + std::string(dtype_name(dtype)) +
         "|ranks=" + std::to_string(nranks);
}

std::string CollectiveProblem::key() const {
  return series() + "|bytes=" + std::to_string(input_bytes);
}

int64_t collective_model_bytes(CollectiveKind kind, int64_t in, int nranks) {
  switch (kind) {
  case CollectiveKind::AllGather:
    return in + in * nranks;
  case CollectiveKind::ReduceScatter:
    return in + in / std::max(1, nranks);
  case CollectiveKind::AllReduce:
  case CollectiveKind::AllToAll:
  case CollectiveKind::Broadcast:
    return 2 * in;
  }
  return 2 * in;
}

int64_t pow2_floor(int64_t x) {
  int64_t p = 1;
  while (p <= x / 2)
    p *= 2;
  return p;
}

int64_t pow2_ceil(int64_t x) {
  int64_t p = pow2_floor(x);
  return p == x ? p : p * 2;
}

std::vector<int64_t> measurement_sizes(int64_t bytes) {
  int64_t lo = pow2_floor(std::max<int64_t>(bytes, 1));
  int64_t hi = pow2_ceil(std::max<int64_t>(bytes, 1));
  if (lo == hi)
    return {lo};
  return {lo, hi};
}

std::optional<double> interpolate_ms(const std::vector<std::pair<int64_t, double>>& pts,
                                     int64_t bytes) {
  if (pts.empty())
    return std::nullopt;
  if (pts.size() == 1) {
    auto [b0, r0] = pts[0];
    return b0 == 0 ? r0 : r0 * static_cast<double>(bytes) / static_cast<double>(b0);
  }
  auto line = [&](size_t i, size_t j) {
    auto [b1, r1] = pts[i];
    auto [b2, r2] = pts[j];
    if (b1 == b2)
      return r1;
    double slope = (r2 - r1) / static_cast<double>(b2 - b1);
    return std::max(0.0, r1 + slope * static_cast<double>(bytes - b1));
  };
  auto it =
      std::lower_bound(pts.begin(), pts.end(), bytes,
                       [](const std::pair<int64_t, double>& p, int64_t b) { return p.first < b; });
  size_t idx = static_cast<size_t>(it - pts.begin());
  if (idx < pts.size() && pts[idx].first == bytes)
    return pts[idx].second;
  if (idx == 0)
    return line(0, 1);
  if (idx >= pts.size())
    return line(pts.size() - 2, pts.size() - 1);
  return line(idx - 1, idx);
}

} // namespace osched
