#pragma once
// The schedule options on a command line: every row of the option table as
// a flag, and --config FILE (flags win over the file). Shared by schedule,
// batch and diff (which schedules graphs it is given).

#include <string>

#include <CLI/CLI.hpp>

#include "pipeline/schedule_options.h"

namespace osched::cli {

// Registers every table option on `cmd`, bound to `draft`.
void add_table_options(CLI::App& cmd, ScheduleConfigDraft& draft);

// Loads `path` into `draft`, keeping the options given as flags on `cmd`,
// and returns the checked config. Throws an input error.
ScheduleConfig finish_config(const std::string& path, CLI::App& cmd, ScheduleConfigDraft& draft);

} // namespace osched::cli
