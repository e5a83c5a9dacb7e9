#include "ops/collective.h"

#include <algorithm>
#include <array>
#include <charconv>

#include "ops/op_table.h"
#include "ops/target_traits.h"

namespace osched {
namespace {

struct Entry {
  std::string_view packet;
  CollectiveSignature sig;
};

using K = CollectiveKind;
// Positions follow the registered schemas (torch/csrc/distributed/c10d/Functional.cpp
// and the legacy _functional_collectives_impl definitions).
constexpr std::array<Entry, 24> kCollectives = {{
    {"_c10d_functional.all_gather_into_tensor", {K::AllGather, false, 2, -1, 1}},
    {"_c10d_functional.all_gather_into_tensor_out", {K::AllGather, false, 2, -1, 1}},
    {"_c10d_functional.all_gather_into_tensor_coalesced", {K::AllGather, true, 2, -1, 1}},
    {"_c10d_functional.reduce_scatter_tensor", {K::ReduceScatter, false, 3, -1, 2}},
    {"_c10d_functional.reduce_scatter_tensor_out", {K::ReduceScatter, false, 3, -1, 2}},
    {"_c10d_functional.reduce_scatter_tensor_coalesced", {K::ReduceScatter, true, 3, -1, 2}},
    {"_c10d_functional.all_reduce", {K::AllReduce, false, 2, -1, -1}},
    {"_c10d_functional.all_reduce_", {K::AllReduce, false, 2, -1, -1}},
    {"_c10d_functional.all_reduce_coalesced", {K::AllReduce, true, 2, -1, -1}},
    {"_c10d_functional.all_reduce_coalesced_", {K::AllReduce, true, 2, -1, -1}},
    {"_c10d_functional.all_to_all_single", {K::AllToAll, false, 3, -1, -1}},
    {"_c10d_functional.broadcast", {K::Broadcast, false, 2, -1, -1}},
    {"_c10d_functional.broadcast_", {K::Broadcast, false, 2, -1, -1}},
    {"_c10d_functional_autograd.all_gather_into_tensor", {K::AllGather, false, 2, -1, 1}},
    {"_c10d_functional_autograd.reduce_scatter_tensor", {K::ReduceScatter, false, 3, -1, 2}},
    {"_c10d_functional_autograd.all_to_all_single", {K::AllToAll, false, 3, -1, -1}},
    // Legacy: (..., str tag, int[] ranks, int group_size).
    {"c10d_functional.all_gather_into_tensor", {K::AllGather, false, -1, 2, 3}},
    {"c10d_functional.all_gather_into_tensor_coalesced", {K::AllGather, true, -1, 2, 3}},
    {"c10d_functional.reduce_scatter_tensor", {K::ReduceScatter, false, -1, 3, 4}},
    {"c10d_functional.reduce_scatter_tensor_coalesced", {K::ReduceScatter, true, -1, 3, 4}},
    {"c10d_functional.all_reduce", {K::AllReduce, false, -1, 3, 4}},
    {"c10d_functional.all_reduce_coalesced", {K::AllReduce, true, -1, 3, 4}},
    {"c10d_functional.all_to_all_single", {K::AllToAll, false, -1, 4, 5}},
    {"c10d_functional.broadcast", {K::Broadcast, false, -1, 3, 4}},
}};

constexpr std::array<std::string_view, 3> kWaits = {"_c10d_functional.wait_tensor",
                                                    "c10d_functional.wait_tensor",
                                                    "_c10d_functional_autograd.wait_tensor"};

constexpr std::array<std::string_view, 6> kCollectiveNamespaces = {
    "_c10d_functional", "_c10d_functional_autograd", "c10d_functional", "c10d", "_dtensor",
    "symm_mem"};

const Value* arg_or_kwarg(const Node& n, int pos, std::string_view key) {
  if (const Value* v = n.kwarg(key))
    return v;
  if (pos >= 0 && static_cast<size_t>(pos) < n.args.size())
    return &n.args[pos];
  return nullptr;
}

} // namespace

std::string_view collective_kind_name(CollectiveKind k) {
  switch (k) {
  case CollectiveKind::AllGather:
    return "all_gather";
  case CollectiveKind::ReduceScatter:
    return "reduce_scatter";
  case CollectiveKind::AllReduce:
    return "all_reduce";
  case CollectiveKind::AllToAll:
    return "all_to_all";
  case CollectiveKind::Broadcast:
    return "broadcast";
  }
  return "unknown";
}

// Every collective and wait namespace starts with "_c10d" or "c10d": most
// targets (aten.*) are rejected without a table scan.
static bool maybe_c10d(std::string_view target) {
  return target.substr(0, 4) == "c10d" || target.substr(0, 5) == "_c10d";
}

std::optional<CollectiveSignature> collective_signature(std::string_view target) {
  if (!maybe_c10d(target))
    return std::nullopt;
  auto p = overload_packet(target);
  if (p.empty())
    return std::nullopt;
  for (const auto& e : kCollectives)
    if (e.packet == p)
      return e.sig;
  return std::nullopt;
}

bool is_wait_target(std::string_view target) {
  if (!maybe_c10d(target))
    return false;
  auto p = overload_packet(target);
  for (auto w : kWaits)
    if (p == w)
      return true;
  return false;
}

bool is_collective_node(const Node& n) {
  return n.op == NodeOp::CallFunction && target_has(n.target, target_bit::kCollective);
}

bool is_wait_node(const Node& n) {
  return n.op == NodeOp::CallFunction && target_has(n.target, target_bit::kWait);
}

std::optional<std::vector<int64_t>> collective_ranks(const Node& n) {
  auto sig = collective_signature(n.target);
  if (!sig || sig->ranks_pos < 0)
    return std::nullopt;
  const Value* v = arg_or_kwarg(n, sig->ranks_pos, "ranks");
  if (!v || v->kind != Value::Kind::List || v->items().empty())
    return std::nullopt;
  std::vector<int64_t> ranks;
  for (const auto& r : v->items()) {
    if (r.kind != Value::Kind::Int)
      return std::nullopt;
    ranks.push_back(r.i);
  }
  return ranks;
}

std::optional<std::string> collective_group_name(const Node& n) {
  std::string name;
  if (!collective_group_name_into(n, name))
    return std::nullopt;
  return name;
}

bool collective_group_name_into(const Node& n, std::string& out) {
  auto sig = collective_signature(n.target);
  if (!sig)
    return false;
  out.clear();
  if (sig->ranks_pos >= 0) {
    // Written straight from the list: a rank list may hold hundreds of ranks.
    const Value* v = arg_or_kwarg(n, sig->ranks_pos, "ranks");
    if (!v || v->kind != Value::Kind::List || v->items().empty())
      return false;
    out = "ranks:";
    char digits[24];
    for (const Value& r : v->items()) {
      if (r.kind != Value::Kind::Int)
        return false;
      if (out.size() > 6)
        out += ',';
      out.append(digits, std::to_chars(digits, digits + sizeof digits, r.i).ptr);
    }
    return true;
  }
  const Value* v = arg_or_kwarg(n, sig->group_name_pos, "group_name");
  if (!v)
    return false;
  if (v->kind == Value::Kind::String) {
    out = v->str();
    return true;
  }
  if (v->kind == Value::Kind::Int) {
    char digits[24];
    out.assign(digits, std::to_chars(digits, digits + sizeof digits, v->i).ptr);
    return true;
  }
  return false;
}

std::optional<std::vector<int64_t>> collective_group_ranks(const Graph& g, const Node& n) {
  if (auto legacy = collective_ranks(n))
    return legacy;
  return collective_group_ranks(g, n, collective_group_name(n));
}

std::optional<std::vector<int64_t>> collective_group_ranks(const Graph& g, const Node& n,
                                                           const std::optional<std::string>& name) {
  if (auto legacy = collective_ranks(n))
    return legacy;
  if (!name)
    return std::nullopt;
  auto it = g.process_groups.find(*name);
  if (it == g.process_groups.end())
    return std::nullopt;
  return it->second.ranks;
}

std::optional<int64_t> collective_group_size_arg(const Node& n) {
  auto sig = collective_signature(n.target);
  if (!sig || sig->group_size_pos < 0)
    return std::nullopt;
  const Value* v = arg_or_kwarg(n, sig->group_size_pos, "group_size");
  if (!v || v->kind != Value::Kind::Int)
    return std::nullopt;
  return v->i;
}

NodeId collective_of_wait(const Graph& g, NodeId wait) {
  const Node& w = g.nodes[wait];
  if (!is_wait_node(w) || w.args.empty() || !w.args[0].is_ref())
    return -1;
  NodeId c = static_cast<NodeId>(w.args[0].i);
  if (c < 0 || c >= g.size())
    return -1;
  const Node& arg = g.nodes[c];
  if (target_has(arg.target, target_bit::kGetitem) && !arg.args.empty() && arg.args[0].is_ref())
    c = static_cast<NodeId>(arg.args[0].i);
  if (c < 0 || c >= g.size() || !is_collective_node(g.nodes[c]))
    return -1;
  return c;
}

bool is_collective_namespace(std::string_view ns) {
  return std::find(kCollectiveNamespaces.begin(), kCollectiveNamespaces.end(), ns) !=
         kCollectiveNamespaces.end();
}

bool is_unrecognised_collective_op(const Node& n) {
  if (n.op != NodeOp::CallFunction)
    return false;
  auto dot = n.target.find('.');
  if (dot == std::string::npos)
    return false;
  // The namespace first: it rules out almost every node (aten.*) at once.
  if (!is_collective_namespace(std::string_view(n.target).substr(0, dot)))
    return false;
  return !is_collective_node(n) && !is_wait_node(n);
}

std::vector<std::string> unrecognised_collective_warnings(const Graph& g) {
  std::vector<std::string> out;
  for (const Node& n : g.nodes)
    if (is_unrecognised_collective_op(n))
      out.push_back("node '" + n.name + "': '" + n.target +
                    "' is in a collective namespace but not a recognised collective; no collective "
                    "moves across it (not overlapped, not costed as communication)");
  return out;
}

} // namespace osched
