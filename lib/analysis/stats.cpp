#include "analysis/stats.h"

#include <sstream>
#include <unordered_set>

#include "ops/collective_info.h"
#include "ops/mutation.h"
#include "ops/op_table.h"
#include "text/escape.h"

namespace osched {

GraphStats compute_stats(const Graph& g) {
  GraphStats s;
  s.nodes = g.size();
  std::unordered_set<std::string> storages;
  for (const auto& n : g.nodes) {
    s.by_op[std::string(node_op_name(n.op))]++;
    if (is_compute_node(n)) {
      s.compute_nodes++;
    } else if (auto c = decode_collective(g, static_cast<NodeId>(&n - g.nodes.data()))) {
      s.collectives++;
      auto& gs = s.groups[c->group.empty() ? "?" : c->group];
      gs.count++;
      gs.by_kind[std::string(collective_kind_name(c->kind))]++;
      for (const auto& m : n.val)
        if (m)
          gs.bytes += m->nbytes();
    } else if (is_wait_node(n)) {
      s.waits++;
    } else if (n.op == NodeOp::CallFunction) {
      s.other_nodes++;
    }
    if (!mutated_args(n).empty())
      s.in_place_writers++;
    if (n.op == NodeOp::CallFunction && n.val_kind == ValKind::Null &&
        !is_scalar_result_target(n.target))
      s.nodes_without_shape++;
    // Views share their base's storage; count each allocation once.
    if (is_view_node(n) || is_wait_node(n))
      continue;
    for (const auto& m : n.val) {
      if (!m)
        continue;
      if (m->storage && !storages.insert(*m->storage).second)
        continue;
      s.total_tensor_bytes += m->allocation_bytes();
    }
  }
  s.warnings = unrecognised_collective_warnings(g);
  return s;
}

nlohmann::json stats_to_json(const GraphStats& s) {
  nlohmann::json j;
  j["nodes"] = s.nodes;
  j["by_op"] = s.by_op;
  j["compute_nodes"] = s.compute_nodes;
  j["collectives"] = s.collectives;
  j["waits"] = s.waits;
  j["other_nodes"] = s.other_nodes;
  j["total_tensor_bytes"] = s.total_tensor_bytes;
  j["in_place_writers"] = s.in_place_writers;
  j["nodes_without_shape"] = s.nodes_without_shape;
  j["warnings"] = s.warnings;
  nlohmann::json groups = nlohmann::json::object();
  for (const auto& [name, gs] : s.groups)
    groups[name] = {{"count", gs.count}, {"bytes", gs.bytes}, {"by_kind", gs.by_kind}};
  j["groups"] = groups;
  return j;
}

std::string stats_to_text(const GraphStats& s) {
  std::ostringstream o;
  o << "nodes: " << s.nodes << " (";
  bool first = true;
  for (const auto& [op, c] : s.by_op) {
    o << (first ? "" : ", ") << op << " " << c;
    first = false;
  }
  o << ")\n";
  o << "compute nodes: " << s.compute_nodes << "\n";
  o << "collectives: " << s.collectives << ", waits: " << s.waits << "\n";
  o << "other call_function nodes: " << s.other_nodes << "\n";
  for (const auto& [name, gs] : s.groups) {
    o << "  group " << escape_line(name) << ": " << gs.count << " collectives, " << gs.bytes
      << " bytes (";
    bool f = true;
    for (const auto& [k, c] : gs.by_kind) {
      o << (f ? "" : ", ") << k << " " << c;
      f = false;
    }
    o << ")\n";
  }
  o << "in-place writers: " << s.in_place_writers << "\n";
  o << "total tensor bytes: " << s.total_tensor_bytes << "\n";
  if (s.nodes_without_shape > 0)
    o << "warning: " << s.nodes_without_shape
      << " call_function node(s) without tensor metadata, costed as 0\n";
  for (const auto& w : s.warnings)
    o << "warning: " << w << "\n";
  return o.str();
}

} // namespace osched
