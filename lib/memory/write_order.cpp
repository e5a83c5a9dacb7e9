#include "memory/write_order.h"

#include <algorithm>

#include "ops/collective.h"
#include "ops/op_table.h"

namespace osched {

std::vector<WriteOrderEdge> write_order_edges(const Graph& g, const StorageMap& map) {
  const NodeId n = g.size();
  if (map.writes.items.empty())
    return {};
  std::vector<std::vector<StorageId>> writes(static_cast<size_t>(n));
  for (NodeId i = 0; i < n; ++i)
    writes[i].assign(map.writes[i].begin(), map.writes[i].end());
  // A wait completes the writes of the collective it waits on.
  for (NodeId i = 0; i < n; ++i) {
    NodeId c = collective_of_wait(g, i);
    if (c >= 0)
      writes[i].insert(writes[i].end(), writes[c].begin(), writes[c].end());
  }
  std::vector<bool> written(map.bytes.size(), false);
  for (const auto& w : writes)
    for (StorageId s : w)
      written[s] = true;

  std::vector<NodeId> last_writer(map.bytes.size(), -1);
  std::vector<std::vector<NodeId>> readers_since(map.bytes.size());
  std::vector<WriteOrderEdge> edges;
  using Why = WriteOrderEdge::Why;
  for (NodeId i = 0; i < n; ++i) {
    const Node& node = g.nodes[i];
    // Views and metadata reads touch no data; a writer is handled below.
    const bool reads_data = !is_view_node(node) && !is_metadata_node(node);
    if (reads_data) {
      for (StorageId s : map.reads[i]) {
        if (!written[s] || std::find(writes[i].begin(), writes[i].end(), s) != writes[i].end())
          continue;
        if (last_writer[s] >= 0)
          edges.push_back({last_writer[s], i, Why::ReadAfterWrite});
        readers_since[s].push_back(i);
      }
    }
    for (StorageId s : writes[i]) {
      if (last_writer[s] >= 0)
        edges.push_back({last_writer[s], i, Why::WriteAfterWrite});
      for (NodeId r : readers_since[s])
        edges.push_back({r, i, Why::WriteAfterRead});
      readers_since[s].clear();
      last_writer[s] = i;
    }
  }
  edges.erase(std::remove_if(edges.begin(), edges.end(),
                             [](const WriteOrderEdge& e) { return e.before == e.after; }),
              edges.end());
  return edges;
}

} // namespace osched
