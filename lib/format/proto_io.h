#pragma once
// Protobuf form of the graph format (proto/graph.proto). Nodes are read
// straight from the wire format into the model (proto_fast_reader.h) and
// written straight to it (proto_node_writer.h); graphs the fast reader
// gives up on, and every error, go through the JSON document model of the
// JSON reader, so both forms are validated by one code path and round-trip
// byte-identically.

#include <functional>
#include <string>
#include <string_view>

#include "files/input_bytes.h"
#include "format/json_io.h"
#include "graph/graph.h"

namespace osched {

Graph graph_from_proto_bytes(std::string_view bytes, const ReadOptions& opts = {});
// The same, letting go of a mapped file's pages as its nodes are read.
Graph graph_from_proto_input(const InputBytes& input, const ReadOptions& opts = {});
std::string graph_to_proto_bytes(const Graph& g);
// The same bytes, handed to `emit` in pieces (nodes a batch at a time).
void write_graph_proto(const Graph& g, const std::function<void(std::string_view)>& emit);
// The general path alone (each node through a JSON value), for comparing.
Graph graph_from_proto_bytes_general(std::string_view bytes, const ReadOptions& opts = {});
std::string graph_to_proto_bytes_general(const Graph& g);

} // namespace osched
