#include "format/graph_snapshot.h"

#include "format/proto_io.h"

namespace osched {

GraphSnapshot::GraphSnapshot(const Graph& g, size_t compact_from_nodes) {
  if (g.nodes.size() < compact_from_nodes) {
    copy_ = g;
    return;
  }
  bytes_.reserve(g.nodes.size() * 128); // typical bytes per node: no regrowth
  write_graph_proto(g, [&](std::string_view piece) { bytes_.append(piece); });
}

Graph GraphSnapshot::restore() const {
  return copy_ ? Graph(*copy_) : graph_from_proto_bytes(bytes_);
}

} // namespace osched
