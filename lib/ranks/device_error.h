#pragma once
// Raised when a GPU, NCCL or MPI facility is needed but missing or failing.

#include <stdexcept>

namespace osched {

struct DeviceError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

} // namespace osched
