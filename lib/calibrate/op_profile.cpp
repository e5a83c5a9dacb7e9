#include "calibrate/op_profile.h"

#include <algorithm>
#include <map>
#include <optional>

namespace osched {
namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

// FLOPs of a matmul-class op from its inputs' sizes: 2mkn (batched: x b).
std::optional<double> matmul_flops(const ShapedOp& op) {
  const auto& d = op.dims;
  auto mm = [](const std::vector<int64_t>& a,
               const std::vector<int64_t>& b) -> std::optional<double> {
    if (a.size() != 2 || b.size() != 2 || a[1] != b[0])
      return std::nullopt;
    return 2.0 * static_cast<double>(a[0]) * static_cast<double>(a[1]) * static_cast<double>(b[1]);
  };
  auto bmm = [](const std::vector<int64_t>& a,
                const std::vector<int64_t>& b) -> std::optional<double> {
    if (a.size() != 3 || b.size() != 3 || a[0] != b[0] || a[2] != b[1])
      return std::nullopt;
    return 2.0 * static_cast<double>(a[0]) * static_cast<double>(a[1]) * static_cast<double>(a[2]) *
           static_cast<double>(b[2]);
  };
  if (op.target == "aten.mm.default" && d.size() >= 2)
    return mm(d[0], d[1]);
  if (op.target == "aten.addmm.default" && d.size() >= 3)
    return mm(d[1], d[2]);
  if (op.target == "aten.bmm.default" && d.size() >= 2)
    return bmm(d[0], d[1]);
  if (op.target == "aten.baddbmm.default" && d.size() >= 3)
    return bmm(d[1], d[2]);
  return std::nullopt;
}

} // namespace

std::vector<OpClassRoofline> roofline_fractions(const std::vector<KinetoTrace>& traces,
                                                const HardwareSpec& hw) {
  std::map<std::string, std::vector<double>> fractions;
  for (const KinetoTrace& t : traces)
    for (const ShapedOp& op : t.ops) {
      auto flops = matmul_flops(op);
      auto dtype = parse_dtype(op.dtype);
      if (!flops || !dtype || op.gpu_us <= 0)
        continue;
      fractions[op.target].push_back(*flops / (op.gpu_us * 1e-6) / hw.peak_flops(*dtype));
    }
  std::vector<OpClassRoofline> out;
  for (const auto& [target, f] : fractions)
    out.push_back({target, f.size(), median(f)});
  return out;
}

std::map<std::string, double> op_median_ms(const std::vector<KinetoTrace>& traces) {
  std::map<std::string, std::vector<double>> us;
  for (const KinetoTrace& t : traces)
    for (const ShapedOp& op : t.ops)
      us[op.key].push_back(op.gpu_us);
  std::map<std::string, double> ms;
  for (const auto& [key, v] : us)
    ms[key] = median(v) / 1e3;
  return ms;
}

} // namespace osched
