#pragma once
// Error categories the CLI maps to exit codes: the library's GraphError,
// IoError, DeviceError, InputError and OutputError.

#include "pipeline/job_errors.h"
#include "ranks/device_error.h"

namespace osched::cli {

using osched::InputError;
using osched::OutputError;

} // namespace osched::cli
