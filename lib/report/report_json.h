#pragma once
// The schedule report as JSON: every section of ScheduleReport under its
// name, optional sections only when present.

#include <string>

#include <nlohmann/json.hpp>

#include "report/schedule_report.h"

namespace osched {

nlohmann::json report_to_json(const ScheduleReport& r);

// report_to_json(r).dump(2) + "\n", byte for byte, with the per-collective
// entries (nearly all of a large graph's report) printed directly instead
// of through a JSON tree.
std::string report_json_text(const ScheduleReport& r);

} // namespace osched
