#include "report/safety_section.h"

#include <unordered_map>

#include "ops/collective.h"

namespace osched {

GroupOrders group_orders(const Graph& g) {
  // Only each collective's group and name: a whole decode (sizes, ranks)
  // per collective is what group_sequences is for.
  GroupOrders out;
  std::string group; // reused: asked of every collective
  for (const Node& n : g.nodes) {
    if (n.op != NodeOp::CallFunction || !collective_signature(n.target))
      continue;
    if (!collective_group_name_into(n, group))
      group.clear();
    out[group].push_back(n.name);
  }
  return out;
}

ReportSafety safety_of_input(const Graph& input, const std::vector<OpaqueOp>& ops,
                             const AssumePure& pure) {
  ReportSafety s;
  s.assumed_pure = pure.targets();
  auto names = [&](const std::vector<NodeId>& ids) {
    std::vector<std::string> out;
    out.reserve(ids.size());
    for (NodeId v : ids)
      out.push_back(input.nodes[static_cast<size_t>(v)].name);
    return out;
  };
  s.opaque_ops.reserve(ops.size());
  for (const OpaqueOp& op : ops) {
    const Node& n = input.nodes[static_cast<size_t>(op.node)];
    s.opaque_ops.push_back({n.name, n.target, std::string(barrier_kind_name(op.kind)),
                            names(op.starts_held), names(op.waits_held)});
  }
  return s;
}

std::string opaque_ops_warning(const ReportSafety& s) {
  if (s.opaque_ops.empty())
    return "";
  std::string w = std::to_string(s.opaque_ops.size()) +
                  " op(s) the tool cannot classify keep their place among collectives: ";
  const size_t shown = std::min<size_t>(s.opaque_ops.size(), 3);
  for (size_t i = 0; i < shown; ++i)
    w += (i ? ", " : "") + s.opaque_ops[i].name + " (" + s.opaque_ops[i].target + ", " +
         s.opaque_ops[i].why + ")";
  if (shown < s.opaque_ops.size())
    w += ", ...";
  return w + "; see the report's safety section, --assume-pure lifts this for pure ops";
}

void compare_group_orders(ReportSafety& s, const GroupOrders& input, const Graph& written,
                          const std::vector<BucketSummary>* buckets) {
  std::unordered_map<std::string, const BucketSummary*> bucket_of;
  if (buckets)
    for (const BucketSummary& b : *buckets)
      bucket_of[b.name] = &b;
  // The written orders, each bucket standing for its members (a bucket
  // never holds another: bucketing/bucket_key.h).
  GroupOrders out = group_orders(written);
  for (auto& [group, names] : out) {
    std::vector<std::string> expanded;
    for (std::string& name : names) {
      auto b = bucket_of.find(name);
      if (b == bucket_of.end())
        expanded.push_back(std::move(name));
      else
        expanded.insert(expanded.end(), b->second->members.begin(), b->second->members.end());
    }
    names = std::move(expanded);
  }
  s.groups.clear();
  for (const auto& [group, names] : input) {
    auto w = out.find(group);
    s.groups.push_back({group, names.size(), w == out.end() || w->second != names});
  }
}

} // namespace osched
