#pragma once
// The library's error: one line saying what is wrong and where, and its
// kind, which is all a caller needs to decide what to do (the CLI maps each
// kind to an exit code in one place, apps/exit_codes.h). It is raised with
// the context its raiser knows (a path, a flag) and gains what it lacks at
// most once on the way up (with_context). Only errors that carry data have
// types of their own: a graph error's node and field (validate/
// graph_error.h), a syntax error's line and column (fx/fx_text.h).

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
  // The same error with "context: " before its message.
  Error in_context(const std::string& context) const {
    return Error(kind_, context + ": " + what());
  }

private:
  ErrorKind kind_;
};

// An input, option or file that cannot be used as given.
inline Error input_error(const std::string& what) {
  return Error(ErrorKind::BadInput, what);
}
// An output that cannot be written.
inline Error output_error(const std::string& what) {
  return Error(ErrorKind::Output, what);
}
// A GPU, NCCL or MPI facility needed but missing or failing.
inline Error device_error(const std::string& what) {
  return Error(ErrorKind::Device, what);
}

// fn(), with `context` (the path or flag its input came from) put before
// the message of any Error it throws: for code that raises errors about a
// value without knowing where the value came from.
template <typename Fn> decltype(auto) with_context(const std::string& context, Fn&& fn) {
  try {
    return fn();
  } catch (const Error& e) {
    throw e.in_context(context);
  }
}

} // namespace osched
