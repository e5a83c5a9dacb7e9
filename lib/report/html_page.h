#pragma once
// A self-contained HTML page of one schedule (no scripts, no network): the
// summary, the original and scheduled timelines drawn as SVG on one time
// scale, the exposed collectives with the reasons, and live memory over
// time against the budget.

#include <string>

#include "report/schedule_report.h"
#include "report/timeline.h"

namespace osched {

std::string schedule_html(const ScheduleReport& report, const Timeline& original,
                          const Timeline& scheduled);

} // namespace osched
