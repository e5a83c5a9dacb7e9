#pragma once
// The library's named errors the commands throw; every one is an
// osched::Error, whose kind run_guarded maps to the exit code.

#include "pipeline/job_errors.h"
#include "ranks/device_error.h"

namespace osched::cli {

using osched::InputError;
using osched::OutputError;

} // namespace osched::cli
