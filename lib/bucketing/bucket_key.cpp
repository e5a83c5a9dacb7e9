#include "bucketing/bucket_key.h"

#include "ops/mutation.h"

namespace osched {

std::optional<std::string> bucket_key(const Graph& g, NodeId start,
                                      const std::optional<CollectiveInfo>& c) {
  const Node& n = g.nodes[start];
  if (!c || c->coalesced || c->kind == CollectiveKind::AllToAll ||
      c->kind == CollectiveKind::Broadcast || !mutated_args(n).empty())
    return std::nullopt;
  if (c->group.empty() || !c->input_bytes || n.args.empty() || !n.args[0].is_ref())
    return std::nullopt;
  // A bucket the tool made (its start names the members it replaces) was
  // sized when it was made: it is not merged again.
  const nlohmann::json& meta = n.attrs().meta;
  if (meta.is_object() && meta.contains("overlap_sched") && meta["overlap_sched"].is_object() &&
      meta["overlap_sched"].contains("replaces"))
    return std::nullopt;
  // The group fixes the group size; the target fixes the kind and namespace.
  std::string key = c->group + "|" + n.target;
  if (c->kind != CollectiveKind::AllGather)
    key += "|" + std::string(dtype_name(*c->dtype)) + "|" + c->reduce_op;
  return key;
}

} // namespace osched
