#pragma once
// Direct conversion of a node of the model to its protobuf message, without
// the JSON value the general path goes through (proto_io.cpp): the same
// message as the general path for every node. (Reading is
// proto_fast_reader.h's.)

#include <optional>
#include <string_view>
#include <vector>

#include "graph.pb.h"
#include "graph/graph.h"

namespace osched {

void node_to_proto(const Node& n, const Graph& g, overlap_sched::pb::Node* out);

} // namespace osched
