#pragma once
// The schedule job's options, each declared once: command-line flag,
// config-file key, help, accepted values, and whether the report echoes it.
// The CLI registers its flags from this table, config files load through it,
// values are checked by it and the report's `config` section is written from
// it. Adding an option = one field in ScheduleConfig + one row in
// schedule_options.cpp.

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "pipeline/schedule_config.h"

namespace osched {

template <typename T> using OptionFieldRef = T& (*)(ScheduleConfig&);

// An enum field, read and set by the words that name its values.
struct ChoiceField {
  std::string_view (*get)(const ScheduleConfig&);
  bool (*set)(ScheduleConfig&, std::string_view); // false: not one of the words
};

using OptionField = std::variant<OptionFieldRef<double>, OptionFieldRef<int>, OptionFieldRef<bool>,
                                 OptionFieldRef<std::string>, OptionFieldRef<std::optional<int>>,
                                 OptionFieldRef<nlohmann::json>, ChoiceField>;

// Visits an OptionField with one lambda per field type.
template <class... Fs> struct OptionVisitor : Fs... { using Fs::operator()...; };
template <class... Fs> OptionVisitor(Fs...) -> OptionVisitor<Fs...>;

struct OptionSpec {
  std::string_view flag; // "--max-in-flight-gb"; "" for config-file only
  std::string_view key;  // "max_in_flight_gb"; "" for command-line only
  std::string_view help;
  OptionField field;
  // Numbers: lo <= v <= hi (lo < v when lo_open); written so NaN fails.
  double lo = 0, hi = 0;
  bool lo_open = false;
  // Choices: the words accepted, in the order errors list them.
  std::vector<std::string_view> choices;
  // Anything else: "" when fine, else the reason ("unknown GPU 'X' ...").
  std::string (*check)(const ScheduleConfig&) = nullptr;
  bool echo = true;            // recorded in the report's `config`
  bool benchmark_only = false; // echoed as "" when nothing is benchmarked
};

// In the order `schedule --help` lists them.
const std::vector<OptionSpec>& schedule_options();

// A config as the command line and a config file give it: typed values,
// and the word given for each choice, which finish_schedule_config checks
// with the other values so the first bad one in table order is reported
// whichever way it came.
struct ScheduleConfigDraft {
  ScheduleConfig values;
  std::map<std::string, std::string, std::less<>> choices; // by config key
};

// `draft` with a config file's JSON object applied (`path` names it in
// errors). Keys the command line `given` already set keep their
// command-line value. Throws
// input_error("PATH: KEY: reason") on unknown keys and wrong types; values
// are checked by finish_schedule_config afterwards.
ScheduleConfigDraft apply_schedule_config(const std::string& text, const std::string& path,
                                          ScheduleConfigDraft draft,
                                          const std::function<bool(std::string_view flag)>& given);

// The config a draft describes, once every value is checked: throws
// input_error("--flag: reason") on the first bad one in table order.
ScheduleConfig finish_schedule_config(const ScheduleConfigDraft& draft);

// The same checks on a config built in code.
void check_schedule_options(const ScheduleConfig& cfg);

// The report's `config` section (the effective values of echoed options).
nlohmann::json schedule_options_echo(const ScheduleConfig& cfg);

} // namespace osched
