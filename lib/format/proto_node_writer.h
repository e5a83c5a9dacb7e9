#pragma once
// Writes a node of the model straight to the protobuf wire format (no
// message per node): the bytes a deterministic serialization of the general
// path's message gives (tests and the fuzz_graph_proto target compare them).

#include <string>

#include "graph/graph.h"

namespace osched {

// Appends node `n` of `g` as field 8 (nodes) of the Graph message.
void append_node_proto(std::string& out, const Node& n, const Graph& g);

} // namespace osched
