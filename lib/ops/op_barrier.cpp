#include "ops/op_barrier.h"

#include <algorithm>
#include <array>

#include "ops/collective.h"
#include "ops/op_table.h"
#include "ops/target_traits.h"

namespace osched {
namespace {

// Namespaces whose every op is computation on this rank's tensors (pure,
// RNG, or an in-place write the mutation table or `mutates` tracks), and
// the tool's own bucket copies.
constexpr std::array<std::string_view, 9> kKnownNamespaces = {
    "aten",         "prims",    "inductor_prims",       "inductor",
    "fsdp",         "rngprims", "quantized_decomposed", "debugprims",
    "overlap_sched"};

// Higher-order ops whose body is known compute; the others (cond,
// invoke_subgraph, auto_functionalized, ...) run code the graph does not show.
constexpr std::array<std::string_view, 6> kKnownHigherOrder = {
    "higher_order.flex_attention",
    "higher_order.flex_attention_backward",
    "higher_order.triton_kernel_wrapper_functional",
    "higher_order.triton_kernel_wrapper_mutation",
    "higher_order.run_and_save_rng_state",
    "higher_order.run_with_rng_state"};

// Namespaces of communication libraries: PyTorch's collective namespaces,
// torchcomms, and any naming c10d or nccl. An op there that is not a
// recognised collective or wait still talks to other ranks.
bool is_comm_namespace(std::string_view ns) {
  return is_collective_namespace(ns) || ns == "torchcomms" || ns == "_torchcomms" ||
         ns.find("nccl") != std::string_view::npos || ns.find("c10d") != std::string_view::npos;
}

// Words in an op's name that say it communicates.
bool names_communication(std::string_view name) {
  constexpr std::array<std::string_view, 12> kWords = {
      "send",       "recv",      "barrier",    "broadcast", "all_to_all",     "alltoall",
      "all_gather", "allgather", "all_reduce", "allreduce", "reduce_scatter", "p2p"};
  for (std::string_view w : kWords)
    if (name.find(w) != std::string_view::npos)
      return true;
  return false;
}

template <size_t N> bool contains(const std::array<std::string_view, N>& a, std::string_view v) {
  return std::find(a.begin(), a.end(), v) != a.end();
}

} // namespace

BarrierKind target_barrier_kind(std::string_view t) {
  // Targets as Python prints them ("torch.ops.higher_order.flex_attention")
  // are the same ops.
  constexpr std::string_view kOps = "torch.ops.";
  if (t.substr(0, kOps.size()) == kOps)
    t.remove_prefix(kOps.size());
  // PyTorch's own Python functions (pre-dispatch graphs): pure, except
  // torch.distributed's.
  constexpr std::string_view kTorch = "torch.";
  if (t.substr(0, kTorch.size()) == kTorch)
    return t.find("distributed") != std::string_view::npos ? BarrierKind::Communication
                                                           : BarrierKind::None;
  if (is_host_only_target(t) || is_getitem_target(t) || is_wait_target(t) ||
      collective_signature(t))
    return BarrierKind::None;
  const size_t dot = t.find('.');
  const std::string_view ns = dot == std::string_view::npos ? std::string_view{} : t.substr(0, dot);
  if (is_comm_namespace(ns))
    return BarrierKind::Communication;
  if (contains(kKnownNamespaces, ns) || contains(kKnownHigherOrder, overload_packet(t)))
    return BarrierKind::None;
  const std::string_view name = dot == std::string_view::npos ? t : t.substr(dot + 1);
  return names_communication(name) ? BarrierKind::Communication : BarrierKind::Unknown;
}

std::string_view barrier_kind_name(BarrierKind k) {
  switch (k) {
  case BarrierKind::None:
    return "known op";
  case BarrierKind::Communication:
    return "communication op";
  case BarrierKind::Unknown:
    return "unknown op";
  }
  return "unknown op";
}

AssumePure::AssumePure(std::vector<std::string> targets) : targets_(std::move(targets)) {
  std::sort(targets_.begin(), targets_.end());
  targets_.erase(std::unique(targets_.begin(), targets_.end()), targets_.end());
}

bool AssumePure::covers(std::string_view target) const {
  if (targets_.empty())
    return false;
  auto has = [&](std::string_view s) {
    return std::binary_search(targets_.begin(), targets_.end(), s,
                              [](std::string_view a, std::string_view b) { return a < b; });
  };
  return has(target) || has(overload_packet(target));
}

std::vector<std::string> split_target_list(std::string_view list) {
  std::vector<std::string> items;
  if (list.empty())
    return items;
  size_t from = 0;
  while (from <= list.size()) {
    size_t comma = list.find(',', from);
    if (comma == std::string_view::npos)
      comma = list.size();
    std::string_view item = list.substr(from, comma - from);
    while (!item.empty() && (item.front() == ' ' || item.front() == '\t'))
      item.remove_prefix(1);
    while (!item.empty() && (item.back() == ' ' || item.back() == '\t'))
      item.remove_suffix(1);
    items.emplace_back(item);
    from = comma + 1;
  }
  return items;
}

AssumePure parse_assume_pure(std::string_view list) {
  std::vector<std::string> targets = split_target_list(list);
  targets.erase(std::remove(targets.begin(), targets.end(), std::string()), targets.end());
  return AssumePure(std::move(targets));
}

BarrierKind node_barrier_kind(const Node& n, const AssumePure& pure) {
  if (n.op != NodeOp::CallFunction)
    return BarrierKind::None;
  const uint32_t bits = target_bits(n.target);
  if (!(bits & (target_bit::kCommBarrier | target_bit::kOpaque)))
    return BarrierKind::None;
  if (pure.covers(n.target))
    return BarrierKind::None;
  return (bits & target_bit::kCommBarrier) ? BarrierKind::Communication : BarrierKind::Unknown;
}

} // namespace osched
