#pragma once
// The readable summary the CLI prints on stderr: step time, exposed
// communication, counts, memory, optional sections and the first exposed
// collectives with their first reason. Every line is escaped (names come
// from the input).

#include <string>

#include "report/schedule_report.h"

namespace osched {

std::string report_summary(const ScheduleReport& r);

} // namespace osched
