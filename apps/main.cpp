// overlap-sched: reorder a training-step graph to hide collective time.

#include <iostream>

#include <CLI/CLI.hpp>
#include <google/protobuf/stubs/logging.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "commands.h"
#include "exit_codes.h"
#include "files/output_batch.h"
#include "malloc_tuning.h"
#include "stdout_guard.h"
#include "text/escape.h"

int main(int argc, char** argv) {
  osched::cli::reexec_with_malloc_tuning(argv);
  osched::cli::guard_standard_streams();
  osched::remove_temporaries_on_signals();
  // Protobuf's own log lines (e.g. on invalid UTF-8) would break the
  // one-line error form; its failures surface as our errors instead.
  google::protobuf::SetLogHandler(nullptr);
  CLI::App app{
      "overlap-sched: reorder distributed training graphs to overlap collectives with compute"};
  app.set_version_flag("--version", std::string("overlap-sched ") + OSCHED_VERSION);
  app.require_subcommand(1);
  std::string log_level = "warn";
  app.add_option("-v,--log-level", log_level, "trace, debug, info, warn, error, off")
      ->capture_default_str();
  app.footer(
      "Exit codes: 0 ok, 1 verify violation, 2 invalid input, 3 device/MPI error, 4 write error.\n"
      "Examples:\n"
      "  overlap-sched schedule testdata/example_llama_fsdp.json -o /tmp/out.json --report "
      "/tmp/report.json\n"
      "  overlap-sched validate testdata/fsdp_tiny.json\n"
      "  overlap-sched stats testdata/tp_two_groups.json\n"
      "  overlap-sched verify testdata/fsdp_tiny.json /tmp/out.json\n"
      "  overlap-sched import-fx testdata/fx/fsdp_post_grad.py -o /tmp/fsdp.json");

  int exit_code = osched::cli::kOk;
  for (const osched::cli::Command& command : osched::cli::commands_to_register(argc, argv))
    command.add(app, exit_code);

  // Logs go to stderr so stdout stays clean for "-" outputs.
  auto logger = spdlog::stderr_color_mt("overlap-sched");
  spdlog::set_default_logger(logger);
  spdlog::set_pattern("[%l] %v");
  app.parse_complete_callback([&] {
    auto level = spdlog::level::from_str(log_level);
    if (level == spdlog::level::off && log_level != "off") {
      std::cerr << "error: --log-level: unknown level '" << osched::escape_quoted(log_level)
                << "'\n";
      std::exit(osched::cli::kBadInput);
    }
    spdlog::set_level(level);
  });

  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    exit_code = app.exit(e);
  } catch (const CLI::ParseError& e) {
    // One line, as every other error: CLI11's own print is two, without "error:".
    std::cerr << "error: " << osched::escape_line(e.what()) << " (--help lists the options)\n";
    exit_code = osched::cli::kBadInput;
  }
  // What went to standard output must have arrived.
  const std::string lost = osched::cli::stdout_error();
  if (!lost.empty() && exit_code == osched::cli::kOk) {
    std::cerr << "error: <stdout>: write failed: " << lost << "\n";
    return osched::cli::kOutputError;
  }
  return exit_code;
}
