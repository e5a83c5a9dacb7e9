#pragma once
// The error of reading or writing a file (missing, unreadable, disk full,
// a rename that fails): its message names the path.

#include <stdexcept>

#include "errors/error.h"

namespace osched {

struct IoError : Error {
  explicit IoError(const std::string& what) : Error(ErrorKind::BadInput, what) {}
};

} // namespace osched
