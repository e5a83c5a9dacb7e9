#pragma once
// The schedule report as JSON: every section of ScheduleReport under its
// name, optional sections only when present.

#include <nlohmann/json.hpp>

#include "report/schedule_report.h"

namespace osched {

nlohmann::json report_to_json(const ScheduleReport& r);

} // namespace osched
