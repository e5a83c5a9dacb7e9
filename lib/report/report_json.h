#pragma once
// The schedule report as JSON: every section of ScheduleReport under its
// name, optional sections only when present.

#include <functional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "report/schedule_report.h"

namespace osched {

nlohmann::json report_to_json(const ScheduleReport& r);

// report_to_json(r).dump(2) + "\n", byte for byte, with the per-collective
// entries (nearly all of a large graph's report) printed directly instead
// of through a JSON tree.
std::string report_json_text(const ScheduleReport& r);
// The same text handed to `emit` in pieces (the collectives in chunks,
// rendered on two threads for big reports), so it is never held whole: a
// 1M-node graph's report runs to hundreds of megabytes.
void write_report_json(const ScheduleReport& r, const std::function<void(std::string_view)>& emit);

} // namespace osched
