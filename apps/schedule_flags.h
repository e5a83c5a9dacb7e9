#pragma once
// The schedule options on a command line: every row of the option table as
// a flag, and --config FILE (flags win over the file). Shared by schedule,
// batch and diff (which schedules graphs it is given).

#include <string>

#include <CLI/CLI.hpp>

#include "pipeline/schedule_config.h"

namespace osched::cli {

// Registers every table option on `cmd`, bound to `cfg`'s fields.
void add_table_options(CLI::App& cmd, ScheduleConfig& cfg);

// Loads `path` into `cfg`, keeping the options given as flags on `cmd`, then
// checks every option. Throws InputError.
void load_config_and_check(const std::string& path, CLI::App& cmd, ScheduleConfig& cfg);

} // namespace osched::cli
