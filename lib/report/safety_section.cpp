#include "report/safety_section.h"

#include <unordered_map>

#include "ops/collective_info.h"

namespace osched {

GroupOrders group_orders(const Graph& g) {
  GroupOrders out;
  for (NodeId i = 0; i < g.size(); ++i)
    if (const std::optional<CollectiveInfo> c = decode_collective(g, i))
      out[c->group].push_back(g.nodes[static_cast<size_t>(i)].name);
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
  GroupOrders out;
  for (NodeId i = 0; i < written.size(); ++i) {
    const std::optional<CollectiveInfo> c = decode_collective(written, i);
    if (!c)
      continue;
    const std::string& name = written.nodes[static_cast<size_t>(i)].name;
    std::vector<std::string>& seq = out[c->group];
    auto b = bucket_of.find(name);
    if (b == bucket_of.end())
      seq.push_back(name);
    else
      seq.insert(seq.end(), b->second->members.begin(), b->second->members.end());
  }
  s.groups.clear();
  for (const auto& [group, names] : input) {
    auto w = out.find(group);
    s.groups.push_back({group, names.size(), w == out.end() || w->second != names});
  }
}

} // namespace osched
