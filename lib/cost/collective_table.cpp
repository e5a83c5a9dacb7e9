#include "cost/collective_table.h"

#include <cstdio>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>
#include <tuple>

#include "errors/error.h"
#include "format/graph_file.h"
#include "text/escape.h"

namespace osched {
namespace {

[[noreturn]] void fail(const std::string& path, int line, const std::string& why) {
  throw input_error(path + ":" + std::to_string(line) + ": " + why);
}

std::vector<std::string> words(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> out;
  for (std::string w; in >> w;)
    out.push_back(w);
  return out;
}

} // namespace

const char* table_collective_name(CollectiveKind kind) {
  switch (kind) {
  case CollectiveKind::AllGather:
    return "all_gather_into_tensor";
  case CollectiveKind::ReduceScatter:
    return "reduce_scatter_tensor";
  case CollectiveKind::AllReduce:
    return "all_reduce";
  case CollectiveKind::AllToAll:
    return "all_to_all_single";
  case CollectiveKind::Broadcast:
    return "broadcast";
  }
  return "";
}

double table_time_at(const CollectiveTableRow& row, double mib) {
  const auto& p = row.points;
  if (p.size() == 1 || mib <= p.front().first)
    return p.front().second; // below the first column: its time
  // Past the last column: the line through the last two.
  size_t hi = 1;
  while (hi + 1 < p.size() && p[hi].first < mib)
    ++hi;
  if (p[hi].first == mib)
    return p[hi].second; // a column's own time, exactly
  const auto& [x0, y0] = p[hi - 1];
  const auto& [x1, y1] = p[hi];
  return std::max(0.0, y0 + (y1 - y0) * (mib - x0) / (x1 - x0));
}

void CollectiveTable::index_rows() {
  row_index.clear();
  for (size_t i = 0; i < rows.size(); ++i)
    row_index[{rows[i].collective, rows[i].group}].push_back(i);
  indexed_rows = rows.size();
}

const CollectiveTableRow* CollectiveTable::find(CollectiveKind kind, const std::string& group,
                                                int group_size) const {
  const std::string name = table_collective_name(kind);
  auto matches = [&](const CollectiveTableRow& r) {
    return r.collective == name && r.group == group &&
           (group_size < 0 || r.group_size == group_size);
  };
  if (indexed_rows != rows.size()) {
    for (const CollectiveTableRow& r : rows)
      if (matches(r))
        return &r;
    return nullptr;
  }
  auto it = row_index.find({name, group});
  if (it == row_index.end())
    return nullptr;
  for (size_t i : it->second)
    if (matches(rows[i]))
      return &rows[i];
  return nullptr;
}

const CollectiveTableRow* CollectiveTable::row_for(const CollectiveInfo& c) const {
  auto mapped = group_mapping.find(c.group);
  const bool is_mapped = mapped != group_mapping.end();
  const std::string& group = is_mapped ? mapped->second : c.group;
  // As upstream: a mapped group takes its table group's timings whatever
  // their group size (the table was measured on another mesh), and an
  // all_reduce names no group size to match.
  const bool any_size = is_mapped || c.kind == CollectiveKind::AllReduce;
  return find(c.kind, group, any_size ? -1 : c.group_size);
}

std::optional<double> CollectiveTable::time_ms(const CollectiveInfo& c, bool* extrapolated) const {
  if (!c.input_bytes)
    return std::nullopt;
  const CollectiveTableRow* row = row_for(c);
  if (!row)
    return std::nullopt;
  const double mib = static_cast<double>(*c.input_bytes) / kTableMiB;
  if (extrapolated)
    *extrapolated = row->extrapolated_beyond_mib > 0 && mib > row->extrapolated_beyond_mib;
  const double ms = table_time_at(*row, mib);
  if (!std::isfinite(ms) || ms > 1e12)
    throw input_error(
        path + ": row " + row->group + " " + std::to_string(row->group_size) + " " +
        row->collective + ": the time at " + std::to_string(mib) +
        " MiB extrapolates past 1e12 ms (its last columns are too close or too steep)");
  return ms;
}

CollectiveTable parse_collective_table(const std::string& text, const std::string& path) {
  CollectiveTable t;
  t.path = path;
  std::istringstream in(text);
  std::string line;
  int line_no = 0;
  std::vector<double> sizes; // MiB per column
  bool header = false, separator = false;
  struct Mark {
    std::string group, collective;
    long size;
    double mib;
    int line;
  };
  std::vector<Mark> marks;
  // (group, group size, collective) -> row: repeated rows and marks found
  // by lookup, not by comparing with every row.
  std::map<std::tuple<std::string, long, std::string>, size_t> row_of;
  while (std::getline(in, line)) {
    ++line_no;
    if (!line.empty() && line.back() == '\r')
      line.pop_back();
    const size_t first = line.find_first_not_of(" \t");
    if (first != std::string::npos && line[first] == '#') {
      // `# extrapolated beyond X MiB: GROUP SIZE COLLECTIVE ...`
      static const std::string kMark = "# extrapolated beyond ";
      if (line.compare(first, kMark.size(), kMark) == 0) {
        const std::vector<std::string> m = words(line.substr(first + kMark.size()));
        char* end = nullptr;
        const double mib = m.size() >= 5 ? std::strtod(m[0].c_str(), &end) : 0;
        if (m.size() < 5 || *end != '\0' || !(mib > 0) || m[1] != "MiB:")
          fail(path, line_no, "expected '# extrapolated beyond X MiB: GROUP SIZE COLLECTIVE'");
        marks.push_back({m[2], m[4], std::strtol(m[3].c_str(), nullptr, 10), mib, line_no});
      }
      continue;
    }
    const std::vector<std::string> w = words(line);
    if (w.empty())
      continue;
    if (!header) {
      // "Group  Group Size  Collective  1MB (ms)  2MB (ms) ..."
      for (const std::string& x : w) {
        if (x.size() > 2 && x.compare(x.size() - 2, 2, "MB") == 0) {
          char* end = nullptr;
          const double mib = std::strtod(x.c_str(), &end);
          if (end != x.c_str() + x.size() - 2 || !(mib > 0) || !std::isfinite(mib))
            fail(path, line_no, "column '" + escape_excerpt(x) + "' is not a size in MB");
          if (!sizes.empty() && mib <= sizes.back())
            fail(path, line_no, "size columns must increase");
          sizes.push_back(mib);
        }
      }
      if (w[0] != "Group" || sizes.empty())
        fail(path, line_no,
             "not a collective table (expected a header 'Group  Group Size  "
             "Collective  1MB (ms) ...')");
      header = true;
      continue;
    }
    if (!separator && w.size() >= 1 && w[0].find_first_not_of('-') == std::string::npos) {
      separator = true;
      continue;
    }
    if (w.size() != 3 + sizes.size())
      fail(path, line_no,
           "expected group, group size, collective and " + std::to_string(sizes.size()) +
               " times, found " + std::to_string(w.size()) + " fields");
    CollectiveTableRow r;
    r.group = w[0];
    char* end = nullptr;
    const long gs = std::strtol(w[1].c_str(), &end, 10);
    if (*end != '\0' || gs < 1 || gs > (1 << 20))
      fail(path, line_no, "group size '" + escape_excerpt(w[1]) + "' is not an integer from 1");
    r.group_size = static_cast<int>(gs);
    r.collective = w[2];
    for (size_t i = 0; i < sizes.size(); ++i) {
      const double ms = std::strtod(w[3 + i].c_str(), &end);
      if (*end != '\0' || !(ms >= 0) || ms > 1e9)
        fail(path, line_no, "time '" + escape_excerpt(w[3 + i]) + "' is not a number of ms from 0");
      r.points.emplace_back(sizes[i], ms);
      // Columns so close that the line through them is steeper than a
      // double holds would extrapolate to inf: refused here, by line.
      if (i > 0) {
        const auto& [x0, y0] = r.points[i - 1];
        if (!std::isfinite((ms - y0) / (sizes[i] - x0)))
          fail(path, line_no,
               "times change too fast between the " + escape_excerpt(w[3 + i - 1]) + " and " +
                   escape_excerpt(w[3 + i]) + " ms columns for sizes between them to be costed");
      }
    }
    if (!row_of.emplace(std::make_tuple(r.group, long{r.group_size}, r.collective), t.rows.size())
             .second)
      fail(path, line_no,
           "a second row for group " + escape_excerpt(r.group) + ", size " +
               std::to_string(r.group_size) + ", " + escape_excerpt(r.collective));
    t.rows.push_back(std::move(r));
  }
  if (!header)
    fail(path, line_no, "empty collective table");
  if (t.rows.empty())
    fail(path, line_no, "a collective table without rows");
  for (const Mark& m : marks) {
    auto it = row_of.find(std::make_tuple(m.group, m.size, m.collective));
    if (it == row_of.end())
      fail(path, m.line, "the extrapolation mark names no row of the table");
    t.rows[it->second].extrapolated_beyond_mib = m.mib;
  }
  t.index_rows();
  return t;
}

std::string write_collective_table(const CollectiveTable& table,
                                   const std::vector<std::string>& header_comments,
                                   const std::vector<std::string>& row_notes) {
  std::ostringstream o;
  for (const std::string& c : header_comments)
    o << "# " << c << "\n";
  std::vector<double> sizes;
  if (!table.rows.empty())
    for (const auto& p : table.rows.front().points)
      sizes.push_back(p.first);
  auto cell = [](std::ostringstream& out, const std::string& s, size_t width) {
    out << std::string(width > s.size() ? width - s.size() : 0, ' ') << s << "  ";
  };
  auto number = [](double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    return std::string(buf);
  };
  cell(o, "Group", 7);
  cell(o, "Group Size", 12);
  cell(o, "Collective", 26);
  for (double mib : sizes) { // exact: columns must read back as they were
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17g", mib);
    cell(o, std::string(buf) + "MB (ms)", 12);
  }
  o << "\n";
  std::string dashes;
  for (size_t i = 0; i < 3 + sizes.size(); ++i)
    dashes += std::string(i == 0 ? 7 : i == 1 ? 12 : i == 2 ? 26 : 12, '-') + "  ";
  o << dashes << "\n";
  for (const CollectiveTableRow& r : table.rows) {
    cell(o, r.group, 7);
    cell(o, std::to_string(r.group_size), 12);
    cell(o, r.collective, 26);
    for (const auto& p : r.points)
      cell(o, number(p.second), 12);
    o << "\n";
  }
  for (size_t i = 0; i < table.rows.size(); ++i) {
    const CollectiveTableRow& r = table.rows[i];
    std::string note = i < row_notes.size() ? row_notes[i] : "";
    if (r.extrapolated_beyond_mib > 0)
      o << "# extrapolated beyond " << number(r.extrapolated_beyond_mib) << " MiB: " << r.group
        << " " << r.group_size << " " << r.collective << (note.empty() ? "" : " (" + note + ")")
        << "\n";
    else if (!note.empty())
      o << "# " << r.group << " " << r.group_size << " " << r.collective << ": " << note << "\n";
  }
  return o.str();
}

CollectiveTable load_collective_table(const std::string& path) {
  return parse_collective_table(read_file_bytes(path, kMaxSmallFileBytes), path);
}

} // namespace osched
