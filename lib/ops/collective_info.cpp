#include "ops/collective_info.h"

#include <algorithm>
#include <vector>

namespace osched {
namespace {

// Reduce-scatter and all-reduce take their reduce op right after the input,
// in the functional and the legacy namespaces alike.
std::string reduce_op_of(const Node& n, CollectiveKind kind) {
  if (kind != CollectiveKind::ReduceScatter && kind != CollectiveKind::AllReduce)
    return "";
  const Value* v = n.kwarg("reduce_op");
  if (!v && n.args.size() > 1)
    v = &n.args[1];
  return v && v->kind == Value::Kind::String ? v->str() : std::string();
}

} // namespace

int CollectiveInfo::num_hosts(int gpus_per_node) const {
  if (ranks.empty())
    return 1;
  // Asked for every collective a model prices: a sorted copy, not a set.
  std::vector<int64_t> hosts;
  hosts.reserve(ranks.size());
  for (int64_t r : ranks)
    hosts.push_back(r / std::max(1, gpus_per_node));
  std::sort(hosts.begin(), hosts.end());
  return static_cast<int>(std::unique(hosts.begin(), hosts.end()) - hosts.begin());
}

std::optional<CollectiveInfo> decode_collective(const Graph& g, NodeId id) {
  const Node& n = g.nodes[id];
  if (n.op != NodeOp::CallFunction)
    return std::nullopt;
  auto sig = collective_signature(n.target);
  if (!sig)
    return std::nullopt;
  CollectiveInfo c;
  c.node = id;
  c.kind = sig->kind;
  c.coalesced = sig->coalesced;
  const std::optional<std::string> group = collective_group_name(n);
  c.group = group.value_or("");
  if (auto ranks = collective_group_ranks(g, n, group))
    c.ranks = std::move(*ranks);
  c.group_size = c.ranks.empty() ? 1 : static_cast<int>(c.ranks.size());
  c.reduce_op = reduce_op_of(n, c.kind);

  int64_t in = 0, all_in = 0;
  bool unknown = false, any_input = false;
  if (!n.args.empty())
    for_each_ref(n.args[0], [&](const Value& v) {
      const TensorMeta* t = ref_meta(g, v);
      if (!t)
        return;
      unknown |= t->has_unbacked_dims();
      in += t->nbytes();
      if (!c.dtype)
        c.dtype = t->dtype;
    });
  if (!unknown && c.dtype && in > 0)
    c.input_bytes = in;
  else
    c.dtype.reset();
  // PyTorch sizes by every tensor argument (the `out=` buffer too).
  for (const auto& a : n.args)
    for_each_ref(a, [&](const Value& v) {
      if (const TensorMeta* t = ref_meta(g, v)) {
        all_in += t->nbytes();
        any_input = true;
      }
    });
  if (any_input) {
    c.size_bytes = all_in;
    for (const auto& m : n.val)
      if (m)
        c.size_bytes += m->nbytes();
  }
  c.memory_bytes = c.kind == CollectiveKind::AllReduce ? c.size_bytes / 2 : c.size_bytes;
  return c;
}

} // namespace osched
