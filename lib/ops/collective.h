#pragma once
// Recognition of PyTorch collectives and their waits: the functional
// collectives (`_c10d_functional`, its autograd twins), their in-place and
// `out=` forms, the coalesced forms, and the legacy `c10d_functional`
// namespace that names a group by its ranks.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "graph/graph.h"

namespace osched {

enum class CollectiveKind : uint8_t { AllGather, ReduceScatter, AllReduce, AllToAll, Broadcast };

std::string_view collective_kind_name(CollectiveKind k);

struct CollectiveSignature {
  CollectiveKind kind;
  bool coalesced;
  int group_name_pos; // positional index of group_name; -1 for the legacy forms
  int ranks_pos;      // legacy forms: positional index of the rank list; else -1
  int group_size_pos; // positional index of group_size; -1 when the op has none
};

// Signature of a collective target, or nullopt if it is not one.
std::optional<CollectiveSignature> collective_signature(std::string_view target);
// The same for an interned target, decided once per distinct target
// (target_traits.h).
std::optional<CollectiveSignature> collective_signature(const InternedString& target);
inline std::optional<CollectiveSignature> collective_signature(const std::string& target) {
  return collective_signature(std::string_view(target));
}
inline std::optional<CollectiveSignature> collective_signature(const char* target) {
  return collective_signature(std::string_view(target));
}
// A wait_tensor target of one of the collective namespaces.
bool is_wait_target(std::string_view target);
bool is_collective_node(const Node& n);
bool is_wait_node(const Node& n);

// The node's group: its group_name (positional or kwarg, a string or an
// int), or for the legacy forms "ranks:0,1,2" from its rank list. nullopt if
// missing or malformed.
std::optional<std::string> collective_group_name(const Node& n);
// The same into `out` (its buffer reused): false, and `out` unspecified,
// when the node names no group. For callers that ask it of every collective.
bool collective_group_name_into(const Node& n, std::string& out);
// Legacy forms: the rank list, when well formed.
std::optional<std::vector<int64_t>> collective_ranks(const Node& n);
// Member ranks: the legacy rank list, or the declared process group.
std::optional<std::vector<int64_t>> collective_group_ranks(const Graph& g, const Node& n);
// The same, given the node's collective_group_name (read once by callers
// that need both: each read is a cache miss on a node's arguments).
std::optional<std::vector<int64_t>> collective_group_ranks(const Graph& g, const Node& n,
                                                           const std::optional<std::string>& name);
// The group_size argument when the op has one and it is an integer.
std::optional<int64_t> collective_group_size_arg(const Node& n);

// The collective a wait node waits on (through one getitem node, as FX
// writes waits on coalesced outputs), or -1.
NodeId collective_of_wait(const Graph& g, NodeId wait);

// The namespaces of PyTorch's collectives (_c10d_functional, c10d, _dtensor,
// symm_mem, ...), whether or not the op in it is recognised.
bool is_collective_namespace(std::string_view ns);

// Ops in a collective namespace that are neither a recognised collective nor
// a wait (e.g. c10d.allreduce_, _dtensor.shard_dim_alltoall): the tool does
// not model them (no collective moves across them: ops/op_barrier.h), so it
// says so.
bool is_unrecognised_collective_op(const Node& n);
std::vector<std::string> unrecognised_collective_warnings(const Graph& g);

} // namespace osched
