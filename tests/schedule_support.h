#pragma once
// The schedule core on a graph in memory, prepared as a command would
// prepare it from a file.

#include <memory>
#include <string>
#include <string_view>

#include "cost/estimator.h"
#include "files/content_hash.h"
#include "pipeline/prepare_input.h"
#include "test_support.h"

namespace osched::test {

// `text` is the graph's serialized form (its hash is the report's).
inline ScheduleOutput schedule_graph(Graph g, std::string_view text, const ScheduleConfig& cfg,
                                     std::shared_ptr<const CostFiles> costs = nullptr) {
  return run_schedule(prepare_graph(std::move(g), content_hash(text), cfg, std::move(costs)), cfg);
}

// testdata/scenarios/FILE as the job's runtime estimates.
inline std::shared_ptr<CostFiles> scenario_estimates(const std::string& file) {
  auto costs = std::make_shared<CostFiles>();
  costs->estimates = load_custom_estimates(source_path("testdata/scenarios/" + file));
  return costs;
}

} // namespace osched::test
