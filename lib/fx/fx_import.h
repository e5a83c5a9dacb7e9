#pragma once
// FX text -> graph format: turns a printed FX graph (see fx/fx_text.h for
// the forms) into a validated Graph. Annotations give metadata; without
// them (minifier repros) placeholders take theirs from `load_args` and
// other nodes from shape propagation (fx/fx_shape_infer.h). Process groups
// come from the collectives' group_name/group_size arguments, or from the
// caller's explicit rank lists.

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fx/fx_meta.h"
#include "graph/graph.h"

#include "errors/error.h"

namespace osched {

// "FILE:LINE:COL: what is wrong" (COL omitted when no one token is at
// fault, LINE when the whole file is).
struct FxImportOptions {
  // Which `def forward` (0 = first; -1 = the largest); in a TORCH_TRACE
  // log, which graph record.
  int graph_index = -1;
  std::string name; // graph name; "" = the file's stem
  int64_t rank = 0;
  std::optional<int64_t> world_size;                  // default: the largest group
  std::map<std::string, std::vector<int64_t>> groups; // explicit member ranks by group name
  FxSymbolHints hints;                                // values of backed symbols
  nlohmann::json hardware;                            // null: none stamped
  std::string default_device = "cuda:0";              // for annotations without a device
};

struct FxImportResult {
  Graph graph;
  // The forward read: its index among the file's forwards, how many there
  // are, and its class ("" at top level).
  int graph_index = 0;
  int graph_count = 0;
  std::string graph_class;
  // From a TORCH_TRACE log: every graph record ("[0/0] inductor_post_grad_graph,
  // 123 lines"), and the compile id of the one read.
  std::vector<std::string> trace_graphs;
  std::string trace_compile_id;
  // Sizes from data (`_local_scalar_dense`, `item`) and SymInt inputs
  // without a value (`reader.symint(None)`) that no --hint values: they
  // stay symbolic and count 0 in costs.
  std::vector<std::string> unhinted_symbols;
  // Tensor-producing nodes whose metadata neither the text nor propagation
  // gave: they are costed as zero.
  int64_t unknown_shapes = 0;
  std::vector<std::string> unknown_shape_nodes; // the first few, for the message
  // Groups whose ranks were assumed (no --group): a consecutive block of
  // their size containing the rank, or the whole world.
  std::vector<std::string> assumed_groups;
};

// `file` names the input in errors. A TORCH_TRACE log is read through its
// graph records (fx/fx_trace_log.h). Throws an input error.
FxImportResult import_fx_text(const std::string& text, const std::string& file,
                              const FxImportOptions& opts);

// "0-7", "0,2,4", "0-3,8-11" -> rank list; throws an input error.
std::vector<int64_t> parse_rank_list(const std::string& text);

} // namespace osched
