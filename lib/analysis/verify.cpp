#include "analysis/verify.h"

#include <unordered_map>
#include <vector>

#include "memory/storage_map.h"
#include "memory/write_order.h"
#include "ops/collective_info.h"
#include "safety/opaque_ops.h"

namespace osched {
namespace {

// Bucketing marks the nodes it creates with meta.overlap_sched.replaces: the
// original nodes whose role they take over.
const nlohmann::json* replaces_list(const Node& n) {
  const nlohmann::json& meta = n.attrs().meta;
  if (!meta.is_object())
    return nullptr;
  auto it = meta.find("overlap_sched");
  if (it == meta.end() || !it->is_object())
    return nullptr;
  auto r = it->find("replaces");
  if (r == it->end() || !r->is_array())
    return nullptr;
  return &*r;
}

bool created_by_tool(const Node& n) {
  const nlohmann::json& meta = n.attrs().meta;
  return meta.is_object() && meta.contains("overlap_sched") && meta["overlap_sched"].is_object() &&
         meta["overlap_sched"].contains("created");
}

} // namespace

std::optional<std::string> verify_reordering(const Graph& original, const Graph& reordered,
                                             const VerifyOptions& options) {
  const NodeId n_re = reordered.size();
  if (n_re == 0 || reordered.nodes.back().op != NodeOp::Output)
    return "the output node is not last in the reordered graph";

  // position in the reordered graph of each original node, or of the node that replaces it
  std::vector<NodeId> pos(original.nodes.size(), -1);
  for (NodeId i = 0; i < n_re; ++i) {
    const Node& r = reordered.nodes[i];
    if (auto o = original.find(r.name)) {
      const Node& on = original.nodes[*o];
      if (on.target != r.target || on.op != r.op)
        return "node '" + r.name + "' changed its op or target ('" + on.target + "' -> '" +
               r.target + "')";
      if (pos[*o] >= 0)
        return "node '" + r.name + "' appears twice";
      pos[*o] = i;
      continue;
    }
    const nlohmann::json* rep = replaces_list(r);
    if (!rep && !created_by_tool(r))
      return "node '" + r.name + "' is not in the original graph";
    if (rep) {
      for (const auto& name : *rep) {
        if (!name.is_string())
          continue;
        auto o = original.find(name.get<std::string>());
        if (!o)
          return "node '" + r.name + "' replaces unknown node '" + name.get<std::string>() + "'";
        if (reordered.find(name.get<std::string>()))
          return "node '" + r.name + "' replaces '" + name.get<std::string>() +
                 "' which is still present";
        pos[*o] = std::max(pos[*o], i);
      }
    }
  }
  for (NodeId o = 0; o < original.size(); ++o)
    if (pos[o] < 0)
      return "node '" + original.nodes[o].name + "' is missing from the reordered graph";

  // Every original data and control dependency must still point backwards.
  for (NodeId o = 0; o < original.size(); ++o) {
    const Node& n = original.nodes[o];
    auto check = [&](NodeId dep, const char* kind) -> std::optional<std::string> {
      if (pos[dep] == pos[o])
        return std::nullopt; // merged into one node
      if (pos[dep] > pos[o])
        return std::string(kind) + " dependency violated: '" + n.name + "' (position " +
               std::to_string(pos[o]) + ") now comes before its input '" +
               original.nodes[dep].name + "' (position " + std::to_string(pos[dep]) + ")";
      return std::nullopt;
    };
    for (NodeId d : data_inputs(n))
      if (auto err = check(d, "data"))
        return err;
    for (NodeId d : n.attrs().control_deps)
      if (auto err = check(d, "control"))
        return err;
  }
  // In-place writes keep their order against every reader and writer of the
  // storage they write.
  for (const WriteOrderEdge& e : write_order_edges(original, build_storage_map(original))) {
    if (pos[e.before] <= pos[e.after])
      continue; // equal: merged into one node
    const std::string& a = original.nodes[e.before].name;
    const std::string& b = original.nodes[e.after].name;
    std::string what;
    switch (e.why) {
    case WriteOrderEdge::Why::ReadAfterWrite:
      what = "reads storage that '" + a + "' writes in place";
      break;
    case WriteOrderEdge::Why::WriteAfterRead:
      what = "writes in place storage that '" + a + "' reads";
      break;
    case WriteOrderEdge::Why::WriteAfterWrite:
      what = "writes in place storage that '" + a + "' also writes";
      break;
    }
    return "write order violated: '" + b + "' (position " + std::to_string(pos[e.after]) + ") " +
           what + ", but now comes before it (position " + std::to_string(pos[e.before]) + ")";
  }
  // Opaque ops keep their side of every collective start and wait.
  if (options.opaque_ops) {
    const std::vector<OpaqueOp> ops =
        find_opaque_ops(original, parse_assume_pure(options.assume_pure));
    for (const auto& [a, b] : barrier_edges(original, ops)) {
      if (!reordered.find(original.nodes[a].name) || !reordered.find(original.nodes[b].name) ||
          pos[a] < pos[b])
        continue; // merged members: their bucket is placed by the planner's rule
      return "opaque op order violated: '" + original.nodes[b].name + "' (position " +
             std::to_string(pos[b]) + ") now comes before '" + original.nodes[a].name +
             "' (position " + std::to_string(pos[a]) +
             "), moving a collective across an op the tool cannot classify (--assume-pure "
             "declares it pure)";
    }
  }
  // Control deps the reordered graph adds must hold too.
  for (NodeId i = 0; i < n_re; ++i) {
    for (NodeId d : reordered.nodes[i].attrs().control_deps)
      if (d > i)
        return "control dependency violated: '" + reordered.nodes[i].name + "' comes before '" +
               reordered.nodes[d].name + "'";
    for (NodeId d : data_inputs(reordered.nodes[i]))
      if (d > i)
        return "data dependency violated: '" + reordered.nodes[i].name + "' comes before '" +
               reordered.nodes[d].name + "'";
  }

  if (!options.group_order)
    return std::nullopt;
  // Per process group, collectives keep their original issue order.
  std::unordered_map<std::string, std::pair<NodeId, NodeId>> last; // group -> (orig, pos)
  for (NodeId o = 0; o < original.size(); ++o) {
    const Node& n = original.nodes[o];
    auto c = decode_collective(original, o);
    if (!c)
      continue;
    const std::string& group = c->group;
    auto it = last.find(group);
    if (it != last.end() && pos[o] < it->second.second)
      return "process group '" + group + "': collective '" + n.name + "' is now issued before '" +
             original.nodes[it->second.first].name + "', changing the group's issue order";
    last[group] = {o, pos[o]};
  }
  return std::nullopt;
}

} // namespace osched
