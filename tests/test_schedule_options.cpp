// The option table (pipeline/schedule_options.h): one row per option gives
// its flag, config key, checks and report echo, so these tests walk the
// table rather than naming options one by one.

#include <catch2/catch.hpp>

#include <cmath>
#include <set>
#include <variant>

#include "errors/error.h"
#include "pipeline/schedule_options.h"
#include "test_support.h"

using namespace osched;
using namespace osched::test;

namespace {

std::string load_error(const std::string& text) {
  ScheduleConfigDraft draft;
  try {
    draft = apply_schedule_config(text, "c.json", std::move(draft), {});
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

} // namespace

TEST_CASE("option table: every row is reachable, and names are unique") {
  std::set<std::string> flags, keys;
  for (const OptionSpec& s : schedule_options()) {
    INFO(std::string(s.flag) << " / " << std::string(s.key));
    CHECK((!s.flag.empty() || !s.key.empty()));
    CHECK(!s.help.empty());
    if (!s.flag.empty())
      CHECK(flags.insert(std::string(s.flag)).second);
    if (!s.key.empty())
      CHECK(keys.insert(std::string(s.key)).second);
    CHECK((!s.echo || !s.key.empty()));
  }
  // The CLI registers every flag of the table.
  CliResult help = run_cli("schedule --help");
  for (const std::string& f : flags)
    CHECK(help.out.find(f) != std::string::npos);
}

TEST_CASE("option table: a config naming every key is loaded and echoed as given") {
  const std::string text = read_text(source_path("testdata/configs/every_option.json"));
  nlohmann::json want = nlohmann::json::parse(text);
  ScheduleConfigDraft draft;
  draft = apply_schedule_config(text, "every_option.json", std::move(draft), {});
  const ScheduleConfig cfg = finish_schedule_config(draft);
  nlohmann::json echo = schedule_options_echo(cfg);
  for (const OptionSpec& s : schedule_options()) {
    if (s.key.empty())
      continue;
    const std::string key(s.key);
    INFO(key);
    REQUIRE(want.contains(key)); // the seed config covers the whole table
    if (s.echo && !s.benchmark_only)
      CHECK(echo[key] == want[key]);
  }
  CHECK(cfg.hardware_overrides == want["hardware"]);
  // Benchmark-only options are echoed empty when nothing is benchmarked.
  CHECK(echo["benchmark_backend"] == "");
}

TEST_CASE("option table: command-line values win over the config file") {
  ScheduleConfigDraft draft;
  draft.values.scheduler.max_coll_distance = 7;
  draft.choices["policy"] = "upstream";
  draft = apply_schedule_config(R"({"max_coll_distance": 3, "max_in_flight_gb": 2.5, "policy": "x",
                            "cost_model": "compute-only"})",
                                "c.json", std::move(draft), [](std::string_view flag) {
                                  return flag == "--max-coll-distance" || flag == "--policy";
                                });
  const ScheduleConfig cfg = finish_schedule_config(draft);
  CHECK(cfg.scheduler.max_coll_distance == 7);
  CHECK(cfg.scheduler.max_in_flight_gb == 2.5);
  CHECK(cfg.policy == OrderSearchKind::Upstream);
  CHECK(cfg.cost_model == CostModel::ComputeOnly);
}

TEST_CASE("option table: config errors name the file and the key") {
  CHECK(load_error(R"({"max_in_flght_gb": 1})") == "c.json: max_in_flght_gb: unknown option");
  CHECK(load_error(R"({"max_in_flight_gb": "1"})") == "c.json: max_in_flight_gb: must be a number");
  CHECK(load_error(R"({"max_coll_distance": 1.5})") ==
        "c.json: max_coll_distance: must be an integer that fits in 32 bits");
  CHECK(load_error(R"({"max_coll_distance": 4294967296})") ==
        "c.json: max_coll_distance: must be an integer that fits in 32 bits");
  CHECK(load_error(R"({"collective_bucketing": 1})") ==
        "c.json: collective_bucketing: must be true or false");
  CHECK(load_error(R"({"runtime_estimates": 3})") == "c.json: runtime_estimates: must be a string");
  CHECK(load_error(R"({"collective_estimator": 3})") ==
        "c.json: collective_estimator: must be a string");
  CHECK(load_error("[1]") == "c.json: config must be a JSON object");
  CHECK(load_error("{").rfind("c.json: malformed JSON: parse error at line 1, column 2", 0) == 0);
  // The graph format's JSON limits hold for configs too.
  CHECK(load_error(R"({"policy": "upstream", "policy": "improved"})") ==
        "c.json: malformed JSON: duplicate key 'policy' in one object");
  CHECK(load_error(std::string(64, '[') + std::string(64, ']')) ==
        "c.json: config must be a JSON object");
  CHECK(load_error(std::string(65, '[') + std::string(65, ']')) ==
        "c.json: malformed JSON: nested deeper than 64 levels");
  // A bad hardware value is the config's fault, named with its file.
  CHECK(load_error(R"({"hardware": {"hbm_gbps": -1}})") ==
        "c.json: hardware.hbm_gbps: must be a positive number (at most 1e9)");
}

TEST_CASE(
    "option table: every number rejects NaN and every choice an unknown value, naming the flag") {
  for (const OptionSpec& s : schedule_options()) {
    ScheduleConfigDraft draft;
    const std::string name(s.flag.empty() ? s.key : s.flag);
    INFO(name);
    if (auto f = std::get_if<OptionFieldRef<double>>(&s.field)) {
      (*f)(draft.values) = std::nan("");
    } else if (auto f = std::get_if<OptionFieldRef<int>>(&s.field)) {
      (*f)(draft.values) = -1;
    } else if (std::holds_alternative<ChoiceField>(s.field)) {
      draft.choices[std::string(s.key)] = "nonsense";
    } else {
      continue;
    }
    try {
      (void)finish_schedule_config(draft);
      FAIL("accepted");
    } catch (const Error& e) {
      CHECK(std::string(e.what()).rfind(name + ": ", 0) == 0);
    }
  }
  // Each choice accepts exactly its words, and echoes the word it was given.
  for (const OptionSpec& s : schedule_options()) {
    const auto* f = std::get_if<ChoiceField>(&s.field);
    if (!f)
      continue;
    INFO(std::string(s.key));
    CHECK(s.choices.size() >= 2);
    for (std::string_view word : s.choices) {
      ScheduleConfigDraft draft;
      draft.choices[std::string(s.key)] = std::string(word);
      const ScheduleConfig cfg = finish_schedule_config(draft);
      CHECK(f->get(cfg) == word);
    }
    ScheduleConfig cfg;
    CHECK_FALSE(f->set(cfg, "Upstream"));
  }
  ScheduleConfig cfg;
  cfg.gpu = "TPU";
  CHECK_THROWS_WITH(check_schedule_options(cfg), Catch::Contains("--gpu: unknown GPU 'TPU'"));
  cfg = ScheduleConfig{};
  cfg.gpus_per_node = 0;
  CHECK_THROWS_WITH(check_schedule_options(cfg), "--gpus-per-node: must be from 1 to 1024, got 0");
  CHECK_NOTHROW(check_schedule_options(ScheduleConfig{}));
}
