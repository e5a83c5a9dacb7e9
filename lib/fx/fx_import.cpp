#include "fx/fx_import.h"
#include "graph/nonfinite.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <set>
#include <unordered_map>

#include "errors/error.h"
#include "fx/fx_importer.h"
#include "fx/fx_shape_infer.h"
#include "fx/fx_text.h"
#include "fx/fx_trace_log.h"
#include "ops/collective.h"
#include "ops/op_table.h"
#include "text/escape.h"
#include "text/json_limits.h"
#include "validate/graph_error.h"
#include "validate/validate.h"

namespace osched {

std::vector<int64_t> parse_rank_list(const std::string& text) {
  std::vector<int64_t> out;
  size_t pos = 0;
  auto number = [&](size_t& p) {
    size_t b = p;
    while (p < text.size() && std::isdigit(static_cast<unsigned char>(text[p])))
      ++p;
    if (p == b || p - b > 7)
      throw input_error("'" + text + "' is not a rank list such as 0-7 or 0,2,4");
    return std::stoll(text.substr(b, p - b));
  };
  while (pos < text.size()) {
    int64_t a = number(pos);
    int64_t b = a;
    if (pos < text.size() && text[pos] == '-') {
      ++pos;
      b = number(pos);
    }
    if (b < a || b >= kMaxWorldSize)
      throw input_error("'" + text + "': bad rank range");
    for (int64_t r = a; r <= b; ++r)
      out.push_back(r);
    if (pos < text.size()) {
      if (text[pos] != ',')
        throw input_error("'" + text + "' is not a rank list such as 0-7 or 0,2,4");
      ++pos;
    }
  }
  if (out.empty())
    throw input_error("empty rank list");
  std::vector<int64_t> sorted = out;
  std::sort(sorted.begin(), sorted.end());
  if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
    throw input_error("'" + text + "' names a rank twice");
  return out;
}

FxImportResult import_fx_text(const std::string& text, const std::string& file,
                              const FxImportOptions& opts) {
  if (!looks_like_torch_trace(text))
    return fx_importer::Importer(file, opts).run(text);
  // A TORCH_TRACE log: one of its graph records, by default the largest.
  std::vector<FxTraceGraph> graphs = read_torch_trace_graphs(text);
  if (graphs.empty())
    throw input_error(file + ": a TORCH_TRACE log without a post-grad or AOT graph record");
  if (opts.graph_index >= static_cast<int>(graphs.size()))
    throw input_error(file + ": --graph " + std::to_string(opts.graph_index) +
                      ": the log has only " + std::to_string(graphs.size()) + " graph(s)");
  size_t pick = 0;
  if (opts.graph_index >= 0)
    pick = static_cast<size_t>(opts.graph_index);
  else
    for (size_t k = 1; k < graphs.size(); ++k)
      if (graphs[k].payload.size() > graphs[pick].payload.size())
        pick = k;
  FxImportOptions inner = opts;
  inner.graph_index = -1;
  const FxTraceGraph& g = graphs[pick];
  // Payload line k is log line g.line + k, one tab in.
  FxImportResult r = fx_importer::Importer(file, inner, g.line, 1).run(g.payload);
  r.graph_index = static_cast<int>(pick);
  r.graph_count = static_cast<int>(graphs.size());
  r.trace_compile_id = g.compile_id;
  for (const auto& t : graphs)
    r.trace_graphs.push_back("[" + t.compile_id + "] " + t.event + ", line " +
                             std::to_string(t.line));
  if (opts.name.empty()) {
    std::string id = g.compile_id;
    std::replace(id.begin(), id.end(), '/', '_');
    r.graph.name = fx_importer::file_stem(file) + "_" + id;
  }
  return r;
}

} // namespace osched
