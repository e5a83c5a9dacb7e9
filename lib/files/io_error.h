#pragma once
// The error of reading or writing a file (missing, unreadable, disk full,
// a rename that fails): its message names the path.

#include <stdexcept>

namespace osched {

struct IoError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

} // namespace osched
