#pragma once
// Recognition of PyTorch functional collectives and their waits.

#include <optional>
#include <string>
#include <string_view>

#include "graph/graph.h"

namespace osched {

enum class CollectiveKind : uint8_t { AllGather, ReduceScatter, AllReduce, AllToAll };

std::string_view collective_kind_name(CollectiveKind k);

struct CollectiveSignature {
  CollectiveKind kind;
  bool coalesced;
  size_t group_name_pos;  // positional index of group_name
};

// Signature of a collective target, or nullopt if it is not one.
std::optional<CollectiveSignature> collective_signature(std::string_view target);
bool is_collective_node(const Node& n);
bool is_wait_node(const Node& n);

// The node's group name (positional or kwarg), nullopt if missing / not a string or int.
std::optional<std::string> collective_group_name(const Node& n);

}  // namespace osched
