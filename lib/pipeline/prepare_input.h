#pragma once
// What every command that schedules does before the core runs, in one
// place: the cost files a config names, loaded once per job; then per
// input, parse (hashing the bytes on a second thread), the collective table
// the graph records, and the hardware, resolved once. schedule, diff and
// batch all go prepare -> run_schedule -> write.

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "cost/collective_table.h"
#include "cost/estimator.h"
#include "files/input_bytes.h"
#include "format/graph_file.h"
#include "pipeline/schedule_config.h"
#include "pipeline/schedule_pipeline.h"

namespace osched {

// The files a config names for costs (runtime_estimates, and
// collective_table unless "none"). Throws an input error.
std::shared_ptr<const CostFiles> load_cost_files(const ScheduleConfig& cfg);

// Effective hardware: defaults, then the graph's `hardware`, then the
// config's overrides with --gpu / --gpus-per-node. `measured_gpu`, the GPU
// runtimes were measured on, stands for --gpu when neither the graph nor
// the options say anything of the hardware. Throws an input error.
HardwareSpec resolve_hardware(const Graph& g, const ScheduleConfig& cfg,
                              std::string_view measured_gpu = {});

// Where an input's bytes came from.
struct InputSource {
  std::string path; // "-" for standard input
  GraphFormat format = GraphFormat::Auto;
  std::string known_hash; // the bytes' content_hash when the caller has it
};
// `bytes` read from `source` as an input of the core. Throws GraphError
// (bad graph), input_error("PATH: ...") (bad hardware or recorded table)
// and an input error.
ScheduleInput prepare_input(const InputBytes& bytes, const InputSource& source,
                            const ScheduleConfig& cfg, std::shared_ptr<const CostFiles> costs);
// A graph already in memory (embedders, tests): no recorded table is
// looked for, as there is no file beside which it could sit.
ScheduleInput prepare_graph(Graph g, std::string input_hash, const ScheduleConfig& cfg,
                            std::shared_ptr<const CostFiles> costs = nullptr);

} // namespace osched
