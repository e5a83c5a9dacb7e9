#pragma once
// Direct conversion between protobuf nodes and the model, without the JSON
// value the general path goes through (proto_io.cpp).
//
// Writing gives the same message as the general path for every node.
// Reading covers nodes in topological order without embedded JSON (meta,
// unknown fields); anything else, every error included, makes it decline
// (false), and the general path reads the message again and words the
// error, so both accept the same graphs.

#include <string_view>
#include <unordered_map>

#include "graph.pb.h"
#include "graph/graph.h"

namespace osched {

void node_to_proto(const Node& n, const Graph& g, overlap_sched::pb::Node* out);

// Names of the nodes read so far (views of their names: the node vector
// must not reallocate while reading).
using NodeNames = std::unordered_map<std::string_view, NodeId>;

// Reads `in` as node number `nodes.size()`, appended to `nodes`; false:
// declined.
bool node_from_proto(const overlap_sched::pb::Node& in, std::vector<Node>& nodes, NodeNames& names);

} // namespace osched
