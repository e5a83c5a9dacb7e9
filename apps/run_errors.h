#pragma once
// Error categories the CLI maps to exit codes. The library throws
// GraphError / IoError / DeviceError; the CLI adds input and output errors.

#include <stdexcept>

#include "benchmark/device_error.h"

namespace osched::cli {

struct InputError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
struct OutputError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace osched::cli
