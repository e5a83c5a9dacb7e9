#pragma once
// Measured collective times in the table format of autoparallel's overlap
// simulator (colls*.table): one row per (group, group size, collective),
// a time in ms at each message size column ("1MB (ms)" ... "2048MB (ms)",
// MB meaning MiB). A collective is looked up by its kind, its process group
// (through an optional mapping to the table's groups) and its group size
// (not for a mapped group, nor for all_reduce, as upstream),
// at its input tensor's size, with upstream's rule: below the first column
// that column's time; linear interpolation between columns; linear
// extrapolation from the last two columns beyond the last.

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ops/collective_info.h"

namespace osched {

// The table's size unit: its "MB" columns are MiB.
inline constexpr double kTableMiB = 1024.0 * 1024.0;

struct CollectiveTableRow {
  std::string group;
  int group_size = 0;
  std::string collective;                        // "all_gather_into_tensor", ...
  std::vector<std::pair<double, double>> points; // (MiB, ms), by size
  // From a calibrated table's comment `# extrapolated beyond X MiB: GROUP
  // SIZE COLLECTIVE ...`: sizes past X are the fit's, not measured. 0: none said.
  double extrapolated_beyond_mib = 0;
};

struct CollectiveTable {
  std::string path;
  std::vector<CollectiveTableRow> rows;
  std::map<std::string, std::string> group_mapping; // graph group -> table group
  // Rows by (collective, group), in row order: what find() looks up, so a
  // table of many rows costs a lookup each, not a scan. index_rows() builds
  // it (the reader does); while it does not cover every row, find() scans.
  std::map<std::pair<std::string, std::string>, std::vector<size_t>> row_index;
  size_t indexed_rows = 0;
  void index_rows();

  // The row for a collective of `kind` in table group `group` of
  // `group_size` ranks (any size when negative), or nullptr.
  const CollectiveTableRow* find(CollectiveKind kind, const std::string& group,
                                 int group_size) const;
  // The row that costs collective `c` (by its kind, group and size), or nullptr.
  const CollectiveTableRow* row_for(const CollectiveInfo& c) const;
  // The collective's time, or nullopt when no row matches or its input size
  // is unknown (the caller's model then costs it). `extrapolated`, when
  // given, says whether the size lies past what the row was measured at.
  std::optional<double> time_ms(const CollectiveInfo& c, bool* extrapolated = nullptr) const;
};

// Time of `row` at `mib` MiB by upstream's rule.
double table_time_at(const CollectiveTableRow& row, double mib);

// Throws input_error("PATH:LINE: reason"). Lines starting with
// `#` are comments.
CollectiveTable parse_collective_table(const std::string& text, const std::string& path);
// The table in the format parse_collective_table reads (one comment line
// per row that has an extrapolation limit; `header_comments` first).
std::string write_collective_table(const CollectiveTable& table,
                                   const std::vector<std::string>& header_comments,
                                   const std::vector<std::string>& row_notes);
// parse_collective_table of a file; an input error when it cannot be read.
CollectiveTable load_collective_table(const std::string& path);

// The table's name for a collective kind ("all_gather_into_tensor", ...).
const char* table_collective_name(CollectiveKind kind);

} // namespace osched
