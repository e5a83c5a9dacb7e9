#include "validate/validate.h"

#include <string>
#include <unordered_set>

#include <algorithm>
#include <optional>
#include <vector>

#include "graph/name_index.h"
#include "ops/collective.h"
#include "ops/mutation.h"
#include "validate/graph_error.h"

namespace osched {
namespace {

void check_control_deps(const Graph& g, bool require_order) {
  const NodeId n = g.size();
  // Where every reference and control dep points to an earlier node (as in
  // any graph listed in a topological order) there is no cycle and the
  // order holds: one pass, no edge lists.
  bool backwards = true;
  for (NodeId i = 0; i < n && backwards; ++i) {
    for (NodeId d : g.nodes[i].attrs().control_deps)
      backwards &= d < i;
    for_each_data_input(g.nodes[i], [&](NodeId d) { backwards &= d < i; });
  }
  if (backwards)
    return;
  // Data references always point backwards (the reader enforces it), so only
  // control deps can close a cycle. Kahn's algorithm over both edge kinds.
  InputLists ins = build_input_lists(g, true);
  UserLists users = build_user_lists(g, ins);
  std::vector<int32_t> indeg(n);
  for (NodeId i = 0; i < n; ++i)
    indeg[i] = static_cast<int32_t>(ins.count(i));
  std::vector<NodeId> stack;
  for (NodeId i = 0; i < n; ++i)
    if (indeg[i] == 0)
      stack.push_back(i);
  NodeId done = 0;
  while (!stack.empty()) {
    NodeId v = stack.back();
    stack.pop_back();
    ++done;
    auto [b, e] = users.of(v);
    for (auto p = b; p != e; ++p)
      if (--indeg[*p] == 0)
        stack.push_back(*p);
  }
  if (done != n) {
    // Walk backwards along unfinished inputs until a node repeats: that is a cycle.
    NodeId start = 0;
    while (indeg[start] == 0)
      ++start;
    std::vector<NodeId> path;
    std::vector<int32_t> pos(n, -1);
    NodeId cur = start;
    while (pos[cur] < 0) {
      pos[cur] = static_cast<int32_t>(path.size());
      path.push_back(cur);
      auto [b, e] = ins.of(cur);
      for (auto p = b; p != e; ++p)
        if (indeg[*p] > 0) {
          cur = *p;
          break;
        }
    }
    std::string cycle;
    for (size_t i = path.size(); i-- > static_cast<size_t>(pos[cur]);)
      cycle += "'" + g.nodes[path[i]].name + "' -> ";
    cycle += "'" + g.nodes[path.back()].name + "'";
    throw GraphError(g.nodes[cur].name, "control_deps", "cycle through control deps: " + cycle);
  }
  if (!require_order)
    return;
  for (NodeId i = 0; i < n; ++i)
    for (NodeId d : g.nodes[i].attrs().control_deps)
      if (d >= i)
        throw GraphError(g.nodes[i].name, "control_deps",
                         "depends on '" + g.nodes[d].name +
                             "' which comes later; nodes must be listed in a topological order");
}

void check_mutates(const Node& n) {
  if (!n.attrs().mutates)
    return;
  for (size_t k = 0; k < n.attrs().mutates->size(); ++k) {
    const MutatedArg& a = (*n.attrs().mutates)[k];
    const std::string field = "mutates[" + std::to_string(k) + "]";
    const Value* v = mutated_value(n, a);
    if (!v && a.position >= 0)
      throw GraphError(n.name, field,
                       "argument position " + std::to_string(a.position) +
                           " is out of range (the node has " + std::to_string(n.args.size()) +
                           " arguments)");
    if (!v)
      throw GraphError(n.name, field,
                       "names keyword argument '" + a.kwarg + "', which the node does not have");
    bool any = false;
    for_each_ref(*v, [&](const Value&) { any = true; });
    if (!any)
      throw GraphError(n.name, field, "the argument it names holds no tensor (node reference)");
  }
}

// Element count of a tensor when every dim is known (sizes were checked for
// overflow before).
std::optional<int64_t> known_numel(const TensorMeta* t) {
  if (!t ||
      std::any_of(t->shape.begin(), t->shape.end(), [](const Dim& d) { return !d.is_known(); }))
    return std::nullopt;
  return t->numel();
}

// A collective's output must have the size its kind and group imply.
void check_collective_sizes(const Graph& g, const Node& n, CollectiveKind kind,
                            int64_t group_size) {
  if (kind == CollectiveKind::AllToAll || n.args.empty())
    return;
  std::vector<const TensorMeta*> ins;
  for_each_ref(n.args[0], [&](const Value& v) {
    const Node& src = g.nodes[v.i];
    ins.push_back(src.output(v.ref_output < 0 ? 0 : static_cast<size_t>(v.ref_output)));
  });
  for (size_t k = 0; k < ins.size() && k < n.val.size(); ++k) {
    auto in = known_numel(ins[k]);
    auto out = known_numel(n.output(k));
    if (!in || !out)
      continue;
    int64_t want = *in;
    if (kind == CollectiveKind::AllGather) {
      want = *in * group_size;
    } else if (kind == CollectiveKind::ReduceScatter) {
      if (*in % group_size != 0)
        throw GraphError(n.name, "args[0]",
                         "input of " + std::to_string(*in) +
                             " elements does not divide by group size " +
                             std::to_string(group_size));
      want = *in / group_size;
    }
    if (*out == want)
      continue;
    std::string how = "its input's " + std::to_string(*in);
    if (kind == CollectiveKind::AllGather)
      how = std::to_string(*in) + " input elements x group size " + std::to_string(group_size);
    else if (kind == CollectiveKind::ReduceScatter)
      how = std::to_string(*in) + " input elements / group size " + std::to_string(group_size);
    throw GraphError(n.name, ins.size() > 1 ? "val[" + std::to_string(k) + "]" : "val",
                     "output has " + std::to_string(*out) + " elements, but " +
                         std::string(collective_kind_name(kind)) + " of this input gives " +
                         std::to_string(want) + " (" + how + ")");
  }
}

} // namespace

// A long name in an error is cut, so the error stays readable.
static std::string shown_name(const std::string& name) {
  return name.size() <= 64 ? name : name.substr(0, 64) + "...";
}

static bool has_long_string(const Value& v) {
  if (v.kind == Value::Kind::String)
    return v.str().size() > kMaxStringArgBytes;
  if (v.kind == Value::Kind::List)
    for (const Value& item : v.items())
      if (has_long_string(item))
        return true;
  return false;
}

// Throws for the first over-long string in `v`, naming its path. The path
// is built only then: building it for every argument of a million-node
// graph costs more than the check.
static void check_string_arg(const Node& n, const Value& v, const std::string& field) {
  if (!has_long_string(v))
    return;
  if (v.kind == Value::Kind::String)
    throw GraphError(shown_name(n.name), field,
                     "string of " + std::to_string(v.str().size()) +
                         " bytes is above the limit of " + std::to_string(kMaxStringArgBytes));
  for (size_t i = 0; i < v.items().size(); ++i)
    check_string_arg(n, v.items()[i], field + "[" + std::to_string(i) + "]");
}

// Sizes that only hostile input reaches: node count, name and string lengths.
static void check_lengths(const Graph& g) {
  if (g.nodes.size() > kMaxNodes)
    throw GraphError("", "nodes",
                     std::to_string(g.nodes.size()) + " nodes are above the limit of " +
                         std::to_string(kMaxNodes));
  auto name_ok = [](const std::string& s) { return s.size() <= kMaxNameBytes; };
  const std::string too_long = "longer than " + std::to_string(kMaxNameBytes) + " bytes";
  for (const auto& [name, pg] : g.process_groups)
    if (!name_ok(name))
      throw GraphError("", "process_groups." + shown_name(name), too_long);
  for (const Node& n : g.nodes) {
    if (!name_ok(n.name))
      throw GraphError(shown_name(n.name), "name", too_long);
    if (!name_ok(n.target))
      throw GraphError(n.name, "target", too_long);
    for (size_t i = 0; i < n.args.size(); ++i)
      if (has_long_string(n.args[i]))
        check_string_arg(n, n.args[i], "args[" + std::to_string(i) + "]");
    for (const auto& [key, v] : n.attrs().kwargs)
      if (has_long_string(v))
        check_string_arg(n, v, "kwargs." + key);
  }
}

// Every tensor's size is computable without overflow, and so are sums over
// the whole graph.
void check_tensor_sizes(const Graph& g) {
  int64_t total = 0;
  for (const Node& n : g.nodes)
    for (size_t k = 0; k < n.val.size(); ++k) {
      if (!n.val[k])
        continue;
      const std::string field =
          n.val_kind == ValKind::List ? "val[" + std::to_string(k) + "]" : "val";
      std::string fault = n.val[k]->size_fault();
      if (!fault.empty())
        throw GraphError(n.name, field + "." + fault,
                         "tensor size overflows int64 or exceeds the " +
                             std::to_string(kMaxTensorBytes >> 50) + " PiB limit");
      if (__builtin_add_overflow(total, n.val[k]->allocation_bytes(), &total) ||
          total > (int64_t{1} << 61))
        throw GraphError(n.name, field, "the graph's tensors add up to more than 2^61 bytes");
    }
}

void validate_graph(const Graph& g, bool require_topological_order) {
  if (g.world_size < 1)
    throw GraphError("", "world_size", "must be >= 1");
  if (g.world_size > kMaxWorldSize)
    throw GraphError("", "world_size",
                     std::to_string(g.world_size) + " is above the limit of " +
                         std::to_string(kMaxWorldSize) + " ranks");
  check_lengths(g);
  check_tensor_sizes(g);
  if (g.rank < 0 || g.rank >= g.world_size)
    throw GraphError("", "rank", "must be in [0, world_size)");
  for (const auto& [name, pg] : g.process_groups) {
    std::unordered_set<int64_t> seen;
    for (int64_t r : pg.ranks) {
      if (r >= g.world_size)
        throw GraphError("", "process_groups." + name + ".ranks",
                         "rank " + std::to_string(r) + " is not below world_size");
      if (!seen.insert(r).second)
        throw GraphError("", "process_groups." + name + ".ranks",
                         "rank " + std::to_string(r) + " listed twice");
    }
  }

  if (g.nodes.empty())
    throw GraphError("", "nodes", "missing output node (graph is empty)");
  // The first node of each name keeps it: a node found under another index
  // repeats an earlier name (no copy of a million names). The graph's own
  // index, as fresh as its reader left it, already says when none repeats.
  NameIndex names;
  if (g.indexed_names() != g.nodes.size())
    names.build(g.nodes);
  NodeId outputs = 0;
  for (NodeId i = 0; i < g.size(); ++i) {
    const Node& n = g.nodes[i];
    if (g.indexed_names() != g.nodes.size() && names.find(g.nodes, n.name) != i)
      throw GraphError(n.name, "name", "duplicate node name");
    if (n.op == NodeOp::Output) {
      ++outputs;
      if (require_topological_order && i != g.size() - 1)
        throw GraphError(n.name, "op", "the output node must be the last node");
    }
    if (is_collective_node(n)) {
      auto sig = collective_signature(n.target);
      std::vector<int64_t> legacy_ranks;
      const std::vector<int64_t>* ranks = &legacy_ranks;
      std::optional<std::string> group; // the declared group, for messages
      if (sig->ranks_pos >= 0) {        // legacy form: the group is its rank list
        auto legacy = collective_ranks(n);
        if (!legacy)
          throw GraphError(n.name, "ranks", "missing or not a non-empty list of integers");
        std::unordered_set<int64_t> seen;
        for (int64_t r : *legacy)
          if (r < 0 || r >= g.world_size || !seen.insert(r).second)
            throw GraphError(n.name, "ranks",
                             "rank " + std::to_string(r) + " is out of range or listed twice");
        legacy_ranks = std::move(*legacy);
      } else {
        group = collective_group_name(n);
        if (!group)
          throw GraphError(n.name, "group_name", "missing or not a string");
        auto it = g.process_groups.find(*group);
        if (it == g.process_groups.end())
          throw GraphError(n.name, "group_name",
                           "process group '" + *group + "' is not declared in process_groups");
        ranks = &it->second.ranks;
      }
      const auto group_size = static_cast<int64_t>(ranks->size());
      if (auto gs = collective_group_size_arg(n); gs && *gs != group_size)
        throw GraphError(n.name, "group_size",
                         std::to_string(*gs) + " does not match " +
                             (group ? "process group '" + *group + "'" : "the rank list") + " of " +
                             std::to_string(group_size) + " ranks");
      if (n.args.empty() || !(n.args[0].is_ref() || n.args[0].kind == Value::Kind::List))
        throw GraphError(n.name, "args[0]", "a collective's input must be a node reference");
      if (group_size > 0)
        check_collective_sizes(g, n, sig->kind, group_size);
    }
    check_mutates(n);
    if (is_wait_node(n) && (n.args.empty() || !n.args[0].is_ref()))
      throw GraphError(n.name, "args[0]", "wait_tensor's argument must be a node reference");
  }
  if (outputs == 0)
    throw GraphError("", "nodes", "missing output node");
  if (outputs > 1)
    throw GraphError(g.nodes.back().name, "op", "more than one output node");
  check_control_deps(g, require_topological_order);
}

} // namespace osched
