#pragma once
// One decoded view of a collective node: what it is (kind, group, group
// size, reduce op, dtype) and how big (input, in-flight and transferred
// bytes). Every pass reads collectives through this, so argument positions,
// group rules and sizing live in one place (ops/collective.cpp holds the
// per-op signature table this decodes with).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "graph/dtype.h"
#include "graph/graph.h"
#include "ops/collective.h"

namespace osched {

struct CollectiveInfo {
  NodeId node = -1;
  CollectiveKind kind = CollectiveKind::AllReduce;
  bool coalesced = false;
  // group_name (positional or kwarg), or "ranks:0,1,.." for the legacy
  // forms; "" when missing or malformed (validation rejects such graphs).
  std::string group;
  std::vector<int64_t> ranks; // member ranks; empty when the group is unknown
  int group_size = 1;         // ranks.size(), 1 when the group is unknown
  std::string reduce_op;      // "sum", "avg", ...; "" for kinds without one
  // The tensor inputs (the first argument, a list for coalesced forms): bytes
  // per rank and the first one's dtype. nullopt when metadata is missing or
  // a dim is unbacked, i.e. when the size cannot be benchmarked or bucketed.
  std::optional<int64_t> input_bytes;
  std::optional<DType> dtype;
  // Inputs + outputs, as PyTorch's comm_analysis sizes a collective for its
  // bandwidth model (0 without tensor inputs).
  int64_t size_bytes = 0;
  // Live while in flight: all-reduce runs in place, so half of size_bytes.
  int64_t memory_bytes = 0;

  // Hosts the group spans with `gpus_per_node` consecutive ranks per host.
  int num_hosts(int gpus_per_node) const;
};

// nullopt when node `n` is not a collective.
std::optional<CollectiveInfo> decode_collective(const Graph& g, NodeId n);

} // namespace osched
