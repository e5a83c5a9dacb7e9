#pragma once
// Raised when a GPU, NCCL or MPI facility is needed but missing or failing.

#include <stdexcept>

#include "errors/error.h"

namespace osched {

struct DeviceError : Error {
  explicit DeviceError(const std::string& what) : Error(ErrorKind::Device, what) {}
};

} // namespace osched
