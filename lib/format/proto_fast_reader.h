#pragma once
// The fast path of protobuf graph reading: nodes are decoded from the wire
// format straight into the model (no protobuf message per node), big graphs
// in two halves on two threads.
//
// It covers graphs in topological order whose nodes carry no embedded JSON
// (meta, unknown fields), with each singular field at most once, known field
// numbers and ASCII strings; anything else, every error included, makes it
// give up (nullopt) and the message-based readers (proto_io.cpp) read the
// bytes again and word the error. So the paths accept the same graphs and
// build the same model (tests and the fuzz_graph_proto target compare them).

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "format/range_names.h"
#include "graph/graph.h"

namespace osched {

struct ProtoFastNodes {
  std::vector<Node> nodes;
  NameIndex names; // every node's name (all distinct)
  // The Graph message's other fields, as wire bytes in their order.
  std::string header;
};

// `done_with(begin, end)`, when given, is told of byte ranges of nodes
// already read (InputBytes::done_with lets go of a mapping's pages there).
std::optional<ProtoFastNodes>
read_proto_nodes_fast(std::string_view bytes, size_t parallel_min_nodes = kParallelReadMinNodes,
                      const std::function<void(size_t, size_t)>& done_with = {});

} // namespace osched
