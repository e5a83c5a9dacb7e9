#include "schedule_flags.h"

#include <fstream>
#include <iterator>
#include <variant>

#include "cost/estimator.h"
#include "errors/error.h"
#include "files/input_bytes.h"
#include "pipeline/schedule_options.h"

namespace osched::cli {

void add_table_options(CLI::App& cmd, ScheduleConfigDraft& draft) {
  ScheduleConfig& cfg = draft.values;
  for (const OptionSpec& s : schedule_options()) {
    if (s.flag.empty())
      continue;
    const std::string flag(s.flag), help(s.help);
    std::visit(
        OptionVisitor{
            [&](OptionFieldRef<bool> f) { cmd.add_flag(flag, f(cfg), help); },
            [&](OptionFieldRef<nlohmann::json>) {},
            [&](OptionFieldRef<std::optional<int>> f) { cmd.add_option(flag, f(cfg), help); },
            [&](OptionFieldRef<std::string> f) {
              auto* o = cmd.add_option(flag, f(cfg), help);
              if (!f(cfg).empty())
                o->capture_default_str();
            },
            [&](ChoiceField f) {
              const std::string key(s.key);
              cmd.add_option_function<std::string>(
                     flag, [&draft, key](const std::string& word) { draft.choices[key] = word; },
                     help)
                  ->default_str(std::string(f.get(cfg)));
            },
            [&](auto f) { cmd.add_option(flag, f(cfg), help)->capture_default_str(); }},
        s.field);
  }
}

ScheduleConfig finish_config(const std::string& path, CLI::App& cmd, ScheduleConfigDraft& draft) {
  if (!path.empty()) {
    const std::string text = read_file_bytes(path, kMaxSmallFileBytes);
    draft = apply_schedule_config(text, path, std::move(draft), [&](std::string_view flag) {
      return cmd.get_option(std::string(flag))->count() > 0;
    });
  }
  return finish_schedule_config(draft);
}

} // namespace osched::cli
