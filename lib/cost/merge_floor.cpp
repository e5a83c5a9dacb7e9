#include "cost/merge_floor.h"

#include <algorithm>
#include <cmath>

namespace osched {

std::optional<MergeFloor> MergeFloor::of(const CollectiveInfo& c, const CollectiveTable* table,
                                         const HardwareSpec& hw) {
  if (!c.input_bytes)
    return std::nullopt;
  MergeFloor f;
  f.row_ = table ? table->row_for(c) : nullptr;
  f.shape_ = {c.kind, c.size_bytes, c.group_size, c.num_hosts(hw.gpus_per_node)};
  f.hw_ = hw;
  return f;
}

double MergeFloor::bytes(const CollectiveInfo& c) const {
  return row_ ? static_cast<double>(c.input_bytes.value_or(0)) : static_cast<double>(c.size_bytes);
}

double MergeFloor::ms_at(double bytes) const {
  if (row_)
    return table_time_at(*row_, bytes / kTableMiB);
  CollectiveShape s = shape_;
  s.bytes = static_cast<int64_t>(std::floor(bytes));
  return nccl_ms_floor(s, hw_);
}

double MergeFloor::least_ms(double lo, double hi) const {
  if (!row_)
    return ms_at(lo); // the floor never falls with size
  double best = std::min(ms_at(lo), ms_at(hi));
  for (const auto& [mib, ms] : row_->points)
    if (mib * kTableMiB > lo && mib * kTableMiB < hi)
      best = std::min(best, ms);
  return best;
}

double MergeFloor::least_ms_per_byte(double lo, double hi) const {
  if (!row_)
    return ms_at(hi) / hi; // never rises per byte
  double best = std::min(ms_at(lo) / lo, ms_at(hi) / hi);
  for (const auto& [mib, ms] : row_->points)
    if (mib * kTableMiB > lo && mib * kTableMiB < hi)
      best = std::min(best, ms / (mib * kTableMiB));
  return best;
}

} // namespace osched
