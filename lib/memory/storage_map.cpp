#include "memory/storage_map.h"

#include "graph/dedupe.h"

#include <algorithm>
#include <string>
#include <unordered_map>

#include "ops/collective.h"
#include "ops/mutation.h"
#include "ops/op_table.h"

namespace osched {

StorageMap build_storage_map(const Graph& g) {
  StorageMap m;
  const size_t n = g.nodes.size();
  m.allocates.offsets.reserve(n + 1);
  m.reads.offsets.reserve(n + 1);
  m.writes.offsets.reserve(n + 1);
  std::unordered_map<std::string, StorageId> named;
  // Storage of output i of node v, filled as nodes are visited in order.
  NodeStorageLists out_storage;
  out_storage.offsets.reserve(n + 1);
  // The current node's lists, appended once it is done.
  std::vector<StorageId> allocates, reads, outs;

  auto fresh = [&](int64_t bytes, bool releasable) {
    StorageId s = static_cast<StorageId>(m.bytes.size());
    m.bytes.push_back(bytes);
    m.releasable.push_back(releasable);
    return s;
  };
  auto storage_of_ref = [&](const Value& v) -> StorageId {
    const NodeStorageLists::Row of = out_storage[static_cast<size_t>(v.i)];
    size_t idx = v.ref_output < 0 ? 0 : static_cast<size_t>(v.ref_output);
    return idx < of.size() ? of.begin()[idx] : -1;
  };

  for (NodeId i = 0; i < static_cast<NodeId>(n); ++i) {
    const Node& node = g.nodes[i];
    const bool is_input = node.op == NodeOp::Placeholder || node.op == NodeOp::GetAttr;
    if (is_input)
      m.inputs.push_back(i);
    const bool releasable = !(is_input && node.name.rfind("primals", 0) == 0);
    auto device_bytes = [](const TensorMeta& t) {
      return t.device.str().rfind("cpu", 0) == 0 ? 0 : t.allocation_bytes();
    };
    // First tensor input: what a view or a wait aliases.
    StorageId first_input = -1;
    for (const auto& a : node.args) {
      for_each_ref(a, [&](const Value& v) {
        if (first_input < 0)
          first_input = storage_of_ref(v);
      });
      if (first_input >= 0)
        break;
    }
    // getitem(x, k) selects output k of x.
    if (is_getitem_target(node.target) && node.args.size() >= 2 && node.args[0].is_ref() &&
        node.args[0].ref_output < 0 && node.args[1].kind == Value::Kind::Int) {
      Value sel = node.args[0];
      // Beyond any output (no storage), as a negative one means output 0.
      const int64_t k = node.args[1].i;
      sel.ref_output = k < 0 ? -1 : static_cast<int32_t>(std::min<int64_t>(k, INT32_MAX));
      first_input = storage_of_ref(sel);
    }
    // Storages written in place; in-place and out= ops return them.
    std::vector<StorageId> written;
    for_each_mutated_ref(node, [&](const Value& v) {
      StorageId s = storage_of_ref(v);
      if (s >= 0)
        written.push_back(s);
    });
    dedupe_keep_order(written);
    const bool returns_written = !written.empty() && outputs_alias_mutated(node);
    const bool aliases_input = (is_view_node(node) || is_wait_node(node)) && first_input >= 0;
    allocates.clear();
    reads.clear();
    outs.clear();
    for (const auto& meta : node.val) {
      if (!meta) {
        outs.push_back(-1);
        continue;
      }
      StorageId s;
      if (meta->storage) {
        auto it = named.find(*meta->storage);
        if (it == named.end()) {
          s = fresh(device_bytes(*meta), releasable);
          named.emplace(*meta->storage, s);
          allocates.push_back(s);
        } else {
          s = it->second;
          // A larger alias later on (e.g. a view with a bigger span) grows the estimate.
          m.bytes[s] = std::max(m.bytes[s], device_bytes(*meta));
        }
      } else if (returns_written) {
        // Output k is written tensor k (all_gather_copy_in returns two views of one buffer).
        s = written[std::min(outs.size(), written.size() - 1)];
      } else if (aliases_input) {
        s = first_input;
      } else {
        s = fresh(device_bytes(*meta), releasable);
        allocates.push_back(s);
      }
      outs.push_back(s);
    }
    auto read = [&](const Value& v) {
      StorageId s = storage_of_ref(v);
      if (s >= 0)
        reads.push_back(s);
    };
    for (const auto& a : node.args)
      for_each_ref(a, read);
    for (const auto& kv : node.attrs().kwargs)
      for_each_ref(kv.second, read);
    dedupe_keep_order(reads);
    if (node.op == NodeOp::Output)
      for (StorageId s : reads)
        m.releasable[s] = false;
    m.allocates.append_row(allocates);
    m.reads.append_row(reads);
    m.writes.append_row(written);
    out_storage.append_row(outs);
  }
  m.read_count.assign(m.bytes.size(), 0);
  for (StorageId s : m.reads.items)
    m.read_count[s]++;
  return m;
}

} // namespace osched
