#pragma once
// Floats JSON numbers cannot hold. PyTorch prints them in arguments (a mask
// filled with -inf, a comparison with nan); the JSON form writes them as
// {"float": "inf" | "-inf" | "nan"}, protobuf as the double itself.

#include <cmath>
#include <limits>
#include <optional>
#include <string_view>

namespace osched {

inline constexpr std::string_view kNonFiniteKey = "float";

inline std::string_view nonfinite_name(double f) {
  return std::isnan(f) ? "nan" : f > 0 ? "inf" : "-inf";
}

inline std::optional<double> parse_nonfinite(std::string_view s) {
  if (s == "inf")
    return std::numeric_limits<double>::infinity();
  if (s == "-inf")
    return -std::numeric_limits<double>::infinity();
  if (s == "nan")
    return std::numeric_limits<double>::quiet_NaN();
  return std::nullopt;
}

} // namespace osched
