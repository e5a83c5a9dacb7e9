#pragma once
// Summary counts of a graph, for `overlap-sched stats`.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "graph/graph.h"

namespace osched {

struct CollectiveGroupStats {
  int64_t count = 0;
  int64_t bytes = 0;                      // sum of output bytes
  std::map<std::string, int64_t> by_kind; // kind -> count
};

struct GraphStats {
  int64_t nodes = 0;
  std::map<std::string, int64_t> by_op; // placeholder / get_attr / call_function / output
  int64_t compute_nodes = 0;
  int64_t collectives = 0;
  int64_t waits = 0;
  int64_t other_nodes = 0;
  std::map<std::string, CollectiveGroupStats> groups;
  int64_t total_tensor_bytes = 0;    // distinct storages, each counted once
  int64_t in_place_writers = 0;      // nodes that write an argument (ops/mutation.h)
  int64_t nodes_without_shape = 0;   // tensor ops with no metadata (costed as 0)
  std::vector<std::string> warnings; // e.g. unrecognised ops in collective namespaces
};

GraphStats compute_stats(const Graph& g);
nlohmann::json stats_to_json(const GraphStats& s);
std::string stats_to_text(const GraphStats& s);

} // namespace osched
