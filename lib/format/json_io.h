#pragma once
// JSON form of the graph format: parse into a Graph, print canonically.
// Canonical printing sorts object keys, prints one node per line and is the
// same for a graph read from JSON or from protobuf.

#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "files/input_bytes.h"
#include "graph/graph.h"
#include "text/json_limits.h"

namespace osched {

struct ReadOptions {
  // When false, references to later nodes are accepted (verify reads a
  // possibly-broken reordered graph and reports order violations itself).
  bool require_topological_order = true;
};

// Throws GraphError (without file prefix) on malformed or invalid content.
// Well-formed graphs whose nodes hold only the format's fields take the
// fast path (json_fast_reader.h); the rest, and every error, the general one.
Graph graph_from_json_text(const std::string& text, const ReadOptions& opts = {});
// The same over bytes read or mapped (input_bytes.h): no padded copy is made
// where they have room past the end, and mapped pages are let go once read.
Graph graph_from_json_bytes(const InputBytes& bytes, const ReadOptions& opts = {});
// The general reader alone (nlohmann/json), for comparing the two paths.
Graph graph_from_json_text_general(std::string_view text, const ReadOptions& opts = {});
Graph graph_from_json(const nlohmann::json& doc, const ReadOptions& opts = {});

// Builds a Graph from nodes given one at a time as JSON objects, so readers
// never hold a whole graph as a JSON tree (the protobuf reader feeds it).
class JsonGraphBuilder {
public:
  explicit JsonGraphBuilder(const ReadOptions& opts = {});
  ~JsonGraphBuilder();
  void add_node(const nlohmann::json& node);
  // Nodes already in the model (read directly from protobuf), instead of
  // add_node(): references resolved, in topological order.
  // `names`, when given: the nodes' names indexed by their reader, all
  // distinct.
  void adopt_nodes(std::vector<Node> nodes, std::optional<NameIndex> names = std::nullopt);
  // `top_level`: the document's other fields; its "nodes" must be an array
  // (its content is ignored). Throws GraphError; validates the graph.
  Graph finish(const nlohmann::json& top_level);
  // finish() without the validation, for a caller that validates apart.
  Graph assemble(const nlohmann::json& top_level);

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

nlohmann::json graph_to_json(const Graph& g);
// Every top-level field but "nodes", and one node, as graph_to_json has them.
nlohmann::json graph_header_to_json(const Graph& g);
nlohmann::json node_to_json(const Node& n, const Graph& g);
std::string graph_to_json_text(const Graph& g);
// The same text, handed to `emit` in pieces (a node at a time), so a large
// graph can be written without holding all of its text.
void write_graph_json(const Graph& g, const std::function<void(std::string_view)>& emit);

// Canonical text of any JSON value (sorted keys, compact), used for extras.
std::string canonical_json(const nlohmann::json& j);

} // namespace osched
