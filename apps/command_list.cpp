#include <cstring>

#include "commands.h"

namespace osched::cli {

std::vector<Command> commands_to_register(int argc, char** argv) {
  static const Command kAll[] = {
      {"validate", add_validate_command},
      {"convert", add_convert_command},
      {"stats", add_stats_command},
      {"verify", add_verify_command},
      {"check-ranks", add_check_ranks_command},
      {"schedule", add_schedule_command},
      {"import-fx", add_import_fx_command},
      {"diff", add_diff_command},
      {"batch", add_batch_command},
      {"calibrate", add_calibrate_command},
  };
  bool version = false, help = false;
  for (int i = 1; i < argc; ++i) {
    for (const Command& c : kAll)
      if (std::strcmp(argv[i], c.name) == 0)
        return {c};
    version = version || std::strcmp(argv[i], "--version") == 0;
    help = help || std::strcmp(argv[i], "-h") == 0 || std::strcmp(argv[i], "--help") == 0;
  }
  if (version && !help)
    return {};
  return {std::begin(kAll), std::end(kAll)};
}

} // namespace osched::cli
