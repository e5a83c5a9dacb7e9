#pragma once
// The library's error: one line saying what is wrong and where, and its
// kind, which is all a caller needs to decide what to do (the CLI maps each
// kind to an exit code in one place, apps/exit_codes.h). The named errors
// (GraphError, IoError, ...) are this type with a fixed kind and, where
// they have it, more detail (a graph error's node and field, a syntax
// error's line and column).

#include <stdexcept>
#include <string>

namespace osched {

enum class ErrorKind {
  BadInput, // an input, option or file that cannot be used as given
  Output,   // an output that cannot be written
  Device,   // a GPU, NCCL or MPI facility needed but missing or failing
};

class Error : public std::runtime_error {
public:
  Error(ErrorKind kind, const std::string& what) : std::runtime_error(what), kind_(kind) {}
  ErrorKind kind() const { return kind_; }

private:
  ErrorKind kind_;
};

// A value that is not valid where it is used (an option, a field of a
// config, table, estimates or hardware file); callers that know where it
// came from catch it and say so.
struct ValueError : Error {
  explicit ValueError(const std::string& what) : Error(ErrorKind::BadInput, what) {}
};

} // namespace osched
