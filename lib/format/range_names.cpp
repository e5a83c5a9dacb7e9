#include "format/range_names.h"

namespace osched {

bool RangeNames::resolve_deferred(const RangeNames& before) {
  auto find = [&](std::string_view name, NodeId& out) {
    std::optional<NodeId> id = before.names_.find(nodes_, name);
    if (!id)
      return false;
    out = *id;
    return true;
  };
  for (NodeId at : deferred_nodes_) {
    Node& node = nodes_[static_cast<size_t>(at)];
    bool ok = true;
    auto patch = [&](Value& v) {
      if (v.i >= 0)
        return;
      const auto [offset, length] = deferred_names_[static_cast<size_t>(-2 - v.i)];
      NodeId id = -1;
      ok = ok && find(std::string_view(deferred_text_).substr(offset, length), id);
      v.i = id;
    };
    for (Value& v : node.args)
      for_each_ref_mut(v, patch);
    if (NodeAttrs* at = node.existing_attrs())
      for (auto& kv : at->kwargs)
        for_each_ref_mut(kv.second, patch);
    if (!ok)
      return false;
  }
  for (auto& [at, position, name] : deferred_control_)
    if (!find(name, nodes_[static_cast<size_t>(at)].edit_attrs().control_deps[position]))
      return false;
  return true;
}

bool RangeNames::absorb(const RangeNames& after) {
  // A name of both ranges is the first one found there already.
  return names_.insert_range(nodes_, after.lo_, after.hi_) == after.hi_;
}

} // namespace osched
