#include "graph/graph.h"

#include "graph/dedupe.h"

#include <algorithm>

namespace osched {

std::optional<NodeOp> parse_node_op(std::string_view s) {
  if (s == "placeholder")
    return NodeOp::Placeholder;
  if (s == "get_attr")
    return NodeOp::GetAttr;
  if (s == "call_function")
    return NodeOp::CallFunction;
  if (s == "output")
    return NodeOp::Output;
  return std::nullopt;
}

std::string_view node_op_name(NodeOp op) {
  switch (op) {
  case NodeOp::Placeholder:
    return "placeholder";
  case NodeOp::GetAttr:
    return "get_attr";
  case NodeOp::CallFunction:
    return "call_function";
  case NodeOp::Output:
    return "output";
  }
  return "call_function";
}

const std::string* sort_kwargs(Node& n) {
  NodeAttrs* attrs = n.existing_attrs();
  if (!attrs)
    return nullptr;
  auto& kwargs = attrs->kwargs;
  std::sort(kwargs.begin(), kwargs.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  for (size_t i = 1; i < kwargs.size(); ++i)
    if (kwargs[i - 1].first == kwargs[i].first)
      return &kwargs[i].first;
  return nullptr;
}

const Value* Node::kwarg(std::string_view key) const {
  for (const auto& [k, v] : attrs().kwargs)
    if (k == key)
      return &v;
  return nullptr;
}

std::optional<NodeId> Graph::find(std::string_view node_name) const {
  return index_.find(nodes, node_name);
}

Graph Graph::without_nodes() const {
  Graph out;
  out.format = format;
  out.version = version;
  out.name = name;
  out.rank = rank;
  out.world_size = world_size;
  out.process_groups = process_groups;
  out.hardware = hardware;
  out.extra = extra;
  return out;
}

void Graph::remap_index(const std::vector<NodeId>& new_index) {
  if (index_.size() != nodes.size()) {
    rebuild_index();
    return;
  }
  index_.remap(new_index);
}

void Graph::rebuild_index() {
  index_.build(nodes);
}

void data_inputs_into(const Node& n, std::vector<NodeId>& out) {
  out.clear();
  for_each_data_input(n, [&](NodeId v) { out.push_back(v); });
  dedupe_keep_order(out);
}

void append_control_deps(const Node& n, std::vector<NodeId>& inputs) {
  const std::vector<NodeId>& deps = n.attrs().control_deps;
  if (deps.empty())
    return;
  inputs.insert(inputs.end(), deps.begin(), deps.end());
  dedupe_keep_order(inputs);
}

void node_inputs_into(const Node& n, std::vector<NodeId>& out) {
  data_inputs_into(n, out);
  append_control_deps(n, out);
}

std::vector<NodeId> data_inputs(const Node& n) {
  std::vector<NodeId> out;
  data_inputs_into(n, out);
  return out;
}

std::vector<NodeId> node_inputs(const Node& n) {
  std::vector<NodeId> out;
  node_inputs_into(n, out);
  return out;
}

InputLists build_input_lists(const Graph& g, bool include_control) {
  InputLists l;
  l.offsets.reserve(g.nodes.size() + 1);
  l.offsets.push_back(0);
  std::vector<NodeId> ins; // reused: no allocation per node
  for (const auto& n : g.nodes) {
    if (include_control)
      node_inputs_into(n, ins);
    else
      data_inputs_into(n, ins);
    l.inputs.insert(l.inputs.end(), ins.begin(), ins.end());
    l.offsets.push_back(static_cast<int64_t>(l.inputs.size()));
  }
  return l;
}

UserLists build_user_lists(const Graph& g, const InputLists& inputs) {
  const size_t n = g.nodes.size();
  UserLists u;
  u.offsets.assign(n + 1, 0);
  for (NodeId v : inputs.inputs)
    u.offsets[v + 1]++;
  for (size_t i = 0; i < n; ++i)
    u.offsets[i + 1] += u.offsets[i];
  u.users.resize(inputs.inputs.size());
  std::vector<int64_t> fill(u.offsets.begin(), u.offsets.end() - 1);
  for (NodeId i = 0; i < static_cast<NodeId>(n); ++i) {
    auto [b, e] = inputs.of(i);
    for (auto p = b; p != e; ++p)
      u.users[fill[*p]++] = i;
  }
  return u;
}

const TensorMeta* ref_meta(const Graph& g, const Value& v) {
  if (!v.is_ref())
    return nullptr;
  const Node& src = g.nodes[v.i];
  return src.output(v.ref_output < 0 ? 0 : static_cast<size_t>(v.ref_output));
}

} // namespace osched
