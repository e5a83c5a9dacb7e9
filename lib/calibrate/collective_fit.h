#pragma once
// Profiled collectives -> a measured collective table (calibrate). Each
// collective instance is timed without its arrival skew where several ranks
// were traced; each (group, group size, kind) gets a least-squares fit
// latency + bytes / bandwidth, written at the table's standard sizes, marked
// extrapolated past twice the largest size measured.

#include <string>
#include <vector>

#include "calibrate/kineto_trace.h"
#include "cost/collective_table.h"

namespace osched {

// One instance's time, as measured.
struct CollectiveSample {
  CollectiveKind kind = CollectiveKind::AllReduce;
  std::string group;
  int64_t group_size = 0;
  int64_t bytes = 0;
  double ms = 0;
};

struct CollectiveFit {
  size_t samples = 0;
  double latency_ms = 0;
  double ms_per_mib = 0;      // the fit's slope
  double rms_residual_ms = 0; // over the samples fitted
  double min_mib = 0, max_mib = 0;
};

struct CollectiveCalibration {
  // How the samples were timed: "arrival skew removed across N ranks (M
  // instances matched)" or why it could not be.
  std::string timing;
  CollectiveTable table;           // rows at kTableSizesMiB; extrapolation marked
  std::vector<CollectiveFit> fits; // one per table row
};

// Samples from the traces: with two or more ranks, each instance (matched by
// group and sequence number, or by its order within the group) takes the
// duration of the rank whose kernel started last, which did not wait for
// the others; with one rank, the fastest sample of each size.
std::vector<CollectiveSample> collective_samples(const std::vector<KinetoTrace>& traces,
                                                 std::string* timing);

// Fits and the table. Throws an input error when no trace has a collective.
CollectiveCalibration calibrate_collectives(const std::vector<KinetoTrace>& traces);

// The sizes a calibrated table has columns for: 1 MiB to 2048 MiB, as
// autoparallel's tables.
const std::vector<double>& table_sizes_mib();

} // namespace osched
