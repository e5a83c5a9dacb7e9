#include "bucketing/written_buffers.h"

#include <algorithm>

#include "ops/mutation.h"

namespace osched {

WrittenBuffers::WrittenBuffers(const Graph& g)
    : any_(std::any_of(g.nodes.begin(), g.nodes.end(),
                       [](const Node& n) { return !mutated_args(n).empty(); })) {
  if (!any_)
    return;
  storages_ = build_storage_map(g);
  written_.assign(storages_.bytes.size(), false);
  for (StorageId st : storages_.writes.items)
    written_[st] = true;
}

bool WrittenBuffers::touched_by(NodeId start, NodeId wait) const {
  if (!any_)
    return false;
  for (NodeId n : {start, wait}) {
    if (n < 0)
      continue;
    for (const NodeStorageLists* lists : {&storages_.reads, &storages_.allocates})
      for (StorageId s : (*lists)[n])
        if (written_[s])
          return true;
  }
  return false;
}

} // namespace osched
