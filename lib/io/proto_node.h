#pragma once
// Direct conversion between protobuf nodes and the model, without the JSON
// value the general path goes through (proto_io.cpp).
//
// Writing gives the same message as the general path for every node.
// Reading covers nodes in topological order without embedded JSON (meta,
// unknown fields); anything else, every error included, makes it decline
// (false), and the general path reads the message again and words the
// error, so both accept the same graphs.

#include <optional>
#include <string_view>
#include <vector>

#include "graph.pb.h"
#include "graph/graph.h"

namespace osched {

void node_to_proto(const Node& n, const Graph& g, overlap_sched::pb::Node* out);

// Names of the nodes read so far, looked up in `nodes` (sized up front for
// `reserve`'s count: the vector must not reallocate while reading).
struct NodeNames {
  const std::vector<Node>* nodes = nullptr;
  NameIndex index;
  void reserve(size_t n) { index.reserve(n); }
  std::optional<NodeId> find(std::string_view name) const { return index.find(*nodes, name); }
};

// Reads `in` as node number `nodes.size()`, appended to `nodes`; false:
// declined.
bool node_from_proto(const overlap_sched::pb::Node& in, std::vector<Node>& nodes, NodeNames& names);

} // namespace osched
