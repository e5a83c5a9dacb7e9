#pragma once
// What profiled ops with recorded shapes tell: each op+shape's GPU time
// (runtime estimates), and how close matmuls came to the GPU's peak.

#include <map>
#include <string>
#include <vector>

#include "calibrate/kineto_trace.h"
#include "cost/hardware.h"

namespace osched {

// The median GPU time of each op+shape key (the estimates file's "ops"
// keys), in ms.
std::map<std::string, double> op_median_ms(const std::vector<KinetoTrace>& traces);

// Per op class, the achieved FLOP/s of each profiled op (from its shapes)
// as a fraction of the tensor-core peak for its dtype.
struct OpClassRoofline {
  std::string target;         // "aten.mm.default"
  size_t ops = 0;             // profiled ops with a FLOP count
  double median_fraction = 0; // achieved / peak, the median over them
};

// Ops whose FLOPs the shapes give (mm, addmm, bmm, baddbmm); others are left
// out. Sorted by target.
std::vector<OpClassRoofline> roofline_fractions(const std::vector<KinetoTrace>& traces,
                                                const HardwareSpec& hw);

} // namespace osched
