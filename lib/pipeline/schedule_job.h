#pragma once
// The `schedule` job from a graph file to its result, on one rank or on
// every rank of an MPI launch: prepare the input (pipeline/prepare_input.h),
// measure runtimes when asked (aligned across ranks), schedule. The CLI
// only parses options before and writes the result after.

#include <string>

#include "format/graph_file.h"
#include "pipeline/schedule_config.h"
#include "pipeline/schedule_pipeline.h"

namespace osched {

struct ScheduleJobResult {
  ScheduleOutput output;
  int rank = 0; // this process's rank; every rank holds the same result
};

// `input` is a graph path ("-": standard input, read once). Any rank's bad
// input fails every rank (none waits in a collective for it). Throws
// an input error, GraphError, a device error, and an output error when the benchmark
// cache cannot be written.
ScheduleJobResult run_schedule_job(const std::string& input, GraphFormat format,
                                   const ScheduleConfig& cfg, const RunSettings& run = {});

} // namespace osched
