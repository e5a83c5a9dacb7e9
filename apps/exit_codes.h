#pragma once
// Stable exit codes of the overlap-sched CLI (documented in README.md and
// docs/commands.md), and the one place an error's kind becomes one.

#include "errors/error.h"

namespace osched::cli {

constexpr int kOk = 0;
constexpr int kVerifyFailed = 1; // verify found a violation
constexpr int kBadInput = 2;     // invalid graph, options or config; unreadable input
constexpr int kDeviceError = 3;  // no GPU / MPI / CUDA or NCCL failure
constexpr int kOutputError = 4;  // could not write an output file

constexpr int exit_code_of(ErrorKind kind) {
  switch (kind) {
  case ErrorKind::BadInput:
    return kBadInput;
  case ErrorKind::Output:
    return kOutputError;
  case ErrorKind::Device:
    return kDeviceError;
  }
  return kBadInput;
}

} // namespace osched::cli
