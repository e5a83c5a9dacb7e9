#pragma once
// The collectives a graph issues per process group, in issue order (graph
// order of the starts), with what must match on every member rank: kind,
// dtype, bytes per rank and reduce op. NCCL runs a group's collectives in
// the order each rank issues them, so two members issuing different
// sequences wait on each other forever.

#include <cstdint>
#include <string>
#include <vector>

#include "graph/graph.h"
#include "ops/collective.h"

namespace osched {

struct IssuedCollective {
  NodeId node = -1;
  CollectiveKind kind = CollectiveKind::AllReduce;
  std::string dtype;     // "" when unknown
  int64_t bytes = -1;    // input bytes per rank; -1 when unknown
  std::string reduce_op; // "" for kinds without one
  bool operator==(const IssuedCollective& o) const {
    return kind == o.kind && dtype == o.dtype && bytes == o.bytes && reduce_op == o.reduce_op;
  }
  bool operator!=(const IssuedCollective& o) const { return !(*this == o); }
};

struct GroupSequence {
  std::string group;
  std::vector<int64_t> ranks; // members, as the graph declares them (empty: unknown)
  std::vector<IssuedCollective> issued;
};

// Per group (sorted by name), its collectives in issue order.
std::vector<GroupSequence> group_sequences(const Graph& g);

// "ag_3 (all_gather, bf16, 4096 bytes)".
std::string describe_issued(const Graph& g, const IssuedCollective& c);

// One line per group, "GROUP: kind/dtype/bytes/op ...", naming no node:
// equal lines mean the same issue sequence.
std::vector<std::string> sequence_lines(const std::vector<GroupSequence>& seqs);

} // namespace osched
