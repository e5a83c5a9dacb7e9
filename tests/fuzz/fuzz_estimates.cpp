// The runtime-estimates reader and the hardware overrides (the config's
// `hardware` object and a graph's) on arbitrary JSON.

#include <cstddef>
#include <cstdint>
#include <exception>
#include <string>

#include <nlohmann/json.hpp>

#include "cost/estimator.h"
#include "cost/hardware.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    (void)osched::parse_custom_estimates(text, "fuzz.json");
  } catch (const std::exception&) {
  }
  try {
    nlohmann::json j = nlohmann::json::parse(text);
    osched::HardwareSpec hw = osched::default_hardware();
    osched::apply_hardware_overrides(hw, j);
  } catch (const std::exception&) {
  }
  return 0;
}
