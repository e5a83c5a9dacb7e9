#pragma once
// Each subcommand registers its options on the CLI app and runs through
// run_guarded, which maps exceptions to exit codes and one-line errors.

#include <functional>
#include <vector>

#include <CLI/CLI.hpp>

namespace osched::cli {

// Calls fn; returns its exit code, or the code of the error it threw after
// printing one line to stderr.
int run_guarded(const std::function<int()>& fn);

void add_validate_command(CLI::App& app, int& exit_code);
void add_convert_command(CLI::App& app, int& exit_code);
void add_stats_command(CLI::App& app, int& exit_code);
void add_verify_command(CLI::App& app, int& exit_code);
void add_check_ranks_command(CLI::App& app, int& exit_code);
void add_schedule_command(CLI::App& app, int& exit_code);
void add_import_fx_command(CLI::App& app, int& exit_code);
void add_diff_command(CLI::App& app, int& exit_code);
void add_batch_command(CLI::App& app, int& exit_code);
void add_calibrate_command(CLI::App& app, int& exit_code);

struct Command {
  const char* name;
  void (*add)(CLI::App& app, int& exit_code);
};

// The commands main() registers. Registering one costs more than the rest of
// a small run (CLI11 checks each new option against the others), so a command
// line that names a command registers that one alone, `--version` none, and
// anything else (help, a typo) all of them, so help and errors list them.
std::vector<Command> commands_to_register(int argc, char** argv);

} // namespace osched::cli
