#pragma once
// Whether several ranks' graphs can run together without a collective hang:
// every member of a process group issues the same sequence of that group's
// collectives (kind, dtype, bytes, reduce op), and no two ranks issue
// collectives of different groups in orders that wait on each other (rank a
// issues group X's k-th before group Y's m-th while rank b does the reverse:
// a cycle in the precedence graph over (group, index) built from every
// rank's issue order).

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "graph/graph.h"

namespace osched {

struct RankGraph {
  int64_t rank = 0;
  std::string file; // for messages
  Graph graph;
};

struct RankCheckResult {
  bool consistent = true;
  size_t ranks = 0, groups = 0, collectives = 0; // collectives: distinct (group, index)
  // "consistent: ..." or the first divergence, one line.
  std::string line;
  // The same for --json: {consistent, ranks, groups, collectives} and, on
  // divergence, {problem, group, position, ranks: [{rank, file, node, ...}]}.
  nlohmann::json detail;
};

// Ranks must be distinct (the caller says how they were assigned).
RankCheckResult check_ranks(const std::vector<RankGraph>& graphs);

} // namespace osched
