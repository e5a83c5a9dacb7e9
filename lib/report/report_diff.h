#pragma once
// Two schedule reports compared, for CI gates: headline metrics with their
// change, per-collective changes (became exposed or hidden, exposure and
// estimate changes, added or removed), and thresholds such as
// "step_ms>+2%,peak_bytes>+0" that mark a change as a regression.

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace osched {

struct MetricChange {
  std::string name; // step_ms, exposed_ms, exposed_count, peak_bytes, ...
  double base = 0, next = 0;
  double delta() const { return next - base; }
  // Relative change in percent; nullopt when base is 0.
  std::optional<double> percent() const;
};

struct CollectiveChange {
  std::string name;
  enum class Kind : uint8_t {
    BecameExposed,
    BecameHidden,
    ExposureChanged,
    EstimateChanged,
    Added,
    Removed
  };
  Kind kind;
  double base_ms = 0, next_ms = 0; // exposed ms (estimate ms for EstimateChanged)
};

struct Threshold {
  std::string metric;
  bool greater = true; // '>' (a rise past the limit) or '<' (a fall past it)
  double limit = 0;
  bool percent = false;
  std::string text; // as written
};

struct Regression {
  const Threshold* threshold;
  const MetricChange* metric;
};

struct ReportDiff {
  std::vector<MetricChange> metrics;
  std::vector<CollectiveChange> collectives;
};

// Throws an input error naming the field when a report lacks one.
ReportDiff diff_reports(const nlohmann::json& base, const nlohmann::json& next);

// "step_ms>+2%,peak_bytes>+0,exposed_count>+0"; throws an input error.
std::vector<Threshold> parse_thresholds(const std::string& spec);
std::vector<Regression> find_regressions(const ReportDiff& d, const std::vector<Threshold>& ts);

std::string diff_to_text(const ReportDiff& d, const std::vector<Regression>& r);
std::string diff_to_markdown(const ReportDiff& d, const std::vector<Regression>& r);
nlohmann::json diff_to_json(const ReportDiff& d, const std::vector<Regression>& r);

// The metric names thresholds may use.
const std::vector<std::string>& diff_metric_names();

} // namespace osched
