#pragma once
// Canonical JSON text of one node, appended straight to a buffer: the same
// bytes as node_to_json(n, g).dump() (sorted keys, compact), without
// building a JSON tree per node. Graph writing spends most of its time here.

#include <cstdint>
#include <string>
#include <string_view>

#include "graph/graph.h"

namespace osched {

void append_node_json(std::string& out, const Node& n, const Graph& g);

// The pieces, printed as nlohmann's dump() prints them (shared with the
// report's direct writer): a quoted string (nlohmann's escaping and UTF-8
// checks unless plainly printable ASCII), an integer, a double (its
// shortest form, "1.0", null for NaN).
void append_json_string(std::string& out, std::string_view s);
void append_json_int(std::string& out, int64_t v);
void append_json_double(std::string& out, double v);

} // namespace osched
