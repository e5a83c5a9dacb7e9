// diff BASE NEW: compare two schedule reports (or two graphs, scheduled here
// with the same options) and gate on thresholds.

#include <iostream>

#include "commands.h"
#include "errors/error.h"
#include "exit_codes.h"
#include "format/graph_file.h"
#include "pipeline/prepare_input.h"
#include "report/report_diff.h"
#include "report/report_json.h"
#include "schedule_flags.h"
#include "text/escape.h"
#include "text/json_limits.h"

namespace osched::cli {
namespace {

struct DiffArgs {
  std::string base, next, format = "text", fail_on, config;
  ScheduleConfigDraft options;
};

bool looks_like_report(const nlohmann::json& j) {
  return j.is_object() && j.contains("simulation") && j.contains("collectives") &&
         !j.contains("nodes");
}

// A report as JSON: read, or computed by scheduling a graph file.
nlohmann::json load_report(const std::string& path, const ScheduleConfig& cfg,
                           const std::shared_ptr<const CostFiles>& costs) {
  const InputBytes bytes = InputBytes::read(path);
  if (resolve_format(path, GraphFormat::Auto) == GraphFormat::Json) {
    const nlohmann::json j = parse_json_limited(bytes.view(), path + ": " + kMalformedJson);
    if (looks_like_report(j))
      return j;
  }
  if (cfg.benchmarking())
    throw input_error("diff: benchmark estimators need the schedule job; diff its reports instead");
  ScheduleOutput out =
      run_schedule(prepare_input(bytes, {path, GraphFormat::Auto, {}}, cfg, costs), cfg);
  return report_to_json(out.report);
}

} // namespace

void add_diff_command(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "diff", "Compare two schedule reports (or two graphs, scheduled with the same options); "
              "exit 1 on a regression past --fail-on");
  auto a = std::make_shared<DiffArgs>();
  cmd->add_option("BASE", a->base, "base report (.json) or graph (.json/.pb)")->required();
  cmd->add_option("NEW", a->next, "new report or graph")->required();
  cmd->add_option("--format", a->format, "text, markdown (for a pull-request comment) or json")
      ->check(CLI::IsMember({"text", "markdown", "json"}))
      ->capture_default_str();
  cmd->add_option("--fail-on", a->fail_on,
                  "regressions that fail, e.g. \"step_ms>+2%,peak_bytes>+0,exposed_count>+0\" "
                  "(metrics: step_ms, exposed_ms, exposed_count, peak_bytes, buckets, compute_ms, "
                  "hideable_ms, collectives; > a rise, < a fall; % relative to BASE)");
  cmd->add_option("--config", a->config, "schedule options for graph inputs (as schedule's)");
  add_table_options(*cmd, a->options);
  cmd->footer("Exit codes: 0 no regression, 1 regression, 2 bad input.\nExamples:\n"
              "  overlap-sched diff base.report.json new.report.json --fail-on "
              "\"step_ms>+2%,peak_bytes>+0\"\n"
              "  overlap-sched diff old.json new.json --format markdown > comment.md");
  cmd->callback([&exit_code, a, cmd] {
    exit_code = run_guarded([&] {
      const ScheduleConfig cfg = finish_config(a->config, *cmd, a->options);
      const std::vector<Threshold> thresholds =
          with_context("--fail-on", [&] { return parse_thresholds(a->fail_on); });
      const std::shared_ptr<const CostFiles> costs = load_cost_files(cfg);
      const nlohmann::json base = load_report(a->base, cfg, costs);
      const nlohmann::json next = load_report(a->next, cfg, costs);
      const ReportDiff d =
          with_context("diff: not a schedule report", [&] { return diff_reports(base, next); });
      const std::vector<Regression> regressions = find_regressions(d, thresholds);
      if (a->format == "json")
        std::cout << diff_to_json(d, regressions).dump(2) << "\n";
      else if (a->format == "markdown")
        std::cout << diff_to_markdown(d, regressions);
      else
        std::cout << diff_to_text(d, regressions);
      return regressions.empty() ? kOk : kVerifyFailed;
    });
  });
}

} // namespace osched::cli
