#pragma once
// Failures of a job the caller must tell apart (the CLI maps them to exit
// codes): bad input (graph, options, config, estimates) and outputs that
// could not be written. Graph and device errors have their own types
// (io/graph_error.h, ranks/device_error.h).

#include <stdexcept>

namespace osched {

struct InputError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
struct OutputError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

} // namespace osched
