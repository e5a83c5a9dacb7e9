#pragma once
// Canonical JSON text of one node, appended straight to a buffer: the same
// bytes as node_to_json(n, g).dump() (sorted keys, compact), without
// building a JSON tree per node. Graph writing spends most of its time here.

#include <string>

#include "graph/graph.h"

namespace osched {

void append_node_json(std::string& out, const Node& n, const Graph& g);

} // namespace osched
