#pragma once
// JSON form of the graph format: parse into a Graph, print canonically.
// Canonical printing sorts object keys, prints one node per line and is the
// same for a graph read from JSON or from protobuf.

#include <string>

#include <nlohmann/json.hpp>

#include "graph/graph.h"

namespace osched {

struct ReadOptions {
  // When false, references to later nodes are accepted (verify reads a
  // possibly-broken reordered graph and reports order violations itself).
  bool require_topological_order = true;
};

// Throws GraphError (without file prefix) on malformed or invalid content.
Graph graph_from_json_text(const std::string& text, const ReadOptions& opts = {});
Graph graph_from_json(const nlohmann::json& doc, const ReadOptions& opts = {});

nlohmann::json graph_to_json(const Graph& g);
std::string graph_to_json_text(const Graph& g);

// Canonical text of any JSON value (sorted keys, compact), used for extras.
std::string canonical_json(const nlohmann::json& j);

}  // namespace osched
