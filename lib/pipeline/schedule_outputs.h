#pragma once
// Where a schedule job's results go: the reordered graph, the report, the
// trace and the HTML page, checked for clashes before anything runs and
// written together, so a failure leaves none of them.

#include <string>

#include "format/graph_file.h"
#include "pipeline/schedule_pipeline.h"

namespace osched {

struct ScheduleOutputPaths {
  std::string input;               // the graph read ("-": stdin)
  std::string output;              // the reordered graph ("-": stdout)
  std::string report, trace, html; // empty: not written
  std::string benchmark_cache;     // read and updated by the job; empty: none
  bool per_rank = false;           // every rank writes NAME.rankN.EXT
  std::string sim_model;           // the written graph's simulation model; empty: not written
};

// Throws an input error for outputs naming each other or the input (also
// through links), stdout for the trace, HTML or per-rank outputs, and stdin
// under mpirun (only one rank would get it).
void check_output_paths(const ScheduleOutputPaths& paths);

// Writes this rank's outputs (rank 0's unless per_rank) as one batch; the
// report is rendered into its file as it is written. Returns the seconds
// spent rendering the report. Throws an output error.
double write_schedule_outputs(const ScheduleOutput& out, const ScheduleOutputPaths& paths, int rank,
                              GraphFormat out_format);

} // namespace osched
