#pragma once
// Failures of a job the caller must tell apart (the CLI maps them to exit
// codes): bad input (graph, options, config, estimates) and outputs that
// could not be written. Graph and device errors have their own types
// (validate/graph_error.h, ranks/device_error.h).

#include <stdexcept>

#include "errors/error.h"

namespace osched {

struct InputError : Error {
  explicit InputError(const std::string& what) : Error(ErrorKind::BadInput, what) {}
};
struct OutputError : Error {
  explicit OutputError(const std::string& what) : Error(ErrorKind::Output, what) {}
};

} // namespace osched
