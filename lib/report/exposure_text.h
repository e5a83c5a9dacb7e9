#pragma once
// The sentence the report gives for each recorded exposure reason.

#include <string>

#include "graph/graph.h"
#include "scheduler/schedule_result.h"

namespace osched {

std::string exposure_text(const Graph& g, const CollectiveOutcome& c, const ExposureNote& n);

} // namespace osched
