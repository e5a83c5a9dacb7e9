#pragma once
// How a bucket's time can grow with its bytes, for a bound over every
// bucketing (bucketing/any_bucketing_bound.h). A bucket of one group and
// kind is costed by the rule that costs its members: the measured table's
// row, else the NCCL model. Over a range of bucket sizes this answers the
// least time of any bucket and the least time per byte, exactly for a
// table (piecewise linear: both are monotone between columns, so the ends
// and the columns inside the range decide) and from nccl_ms_floor for the
// model (never falling with size, and never rising per byte).

#include <cstdint>
#include <optional>

#include "cost/collective_table.h"
#include "cost/hardware.h"
#include "cost/nccl_model.h"
#include "ops/collective_info.h"

namespace osched {

class MergeFloor {
public:
  // The rule that costs `c` and buckets of its group and kind; nullopt
  // when its size is unknown (no bucket takes it).
  static std::optional<MergeFloor> of(const CollectiveInfo& c, const CollectiveTable* table,
                                      const HardwareSpec& hw);
  // `c`'s size in the measure the rule reads: input bytes for a table,
  // input + output bytes for the model. Merging adds sizes in both.
  double bytes(const CollectiveInfo& c) const;
  // The least time, in ms, of a bucket of any size in [lo, hi] bytes.
  double least_ms(double lo, double hi) const;
  // The least time per byte of a bucket of any size in [lo, hi] (lo > 0).
  double least_ms_per_byte(double lo, double hi) const;

private:
  double ms_at(double bytes) const;
  const CollectiveTableRow* row_ = nullptr; // else the model
  CollectiveShape shape_{};
  HardwareSpec hw_;
};

} // namespace osched
