#pragma once
// Which call targets the scheduler may not move collectives across: ops it
// cannot classify. A target is known when its namespace is one whose ops
// are pure compute, views, metadata reads, RNG or tracked in-place writes
// (aten, prims, Inductor's and FSDP's helpers, ...), when it is a
// recognised collective or wait, or host-side Python work. Anything else
// may talk to other ranks (a custom send, a barrier): moving a collective
// across it can make ranks issue communication in different orders, the
// classic NCCL hang, so it keeps its place among collectives.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "graph/graph.h"

namespace osched {

enum class BarrierKind : uint8_t {
  None,          // known: moves freely where dependencies allow
  Communication, // a communication op the tool does not model (send, recv, barrier, ...)
  Unknown,       // an op the tool knows nothing about
};

// From the target's text alone (cached per interned target: target_traits.h).
BarrierKind target_barrier_kind(std::string_view target);

// "communication op" / "unknown op", as the report and warnings say it.
std::string_view barrier_kind_name(BarrierKind k);

// The targets a user declared pure (--assume-pure): an entry matches a
// target equal to it or whose overload packet it is ("mylib.f" covers
// "mylib.f.default").
class AssumePure {
public:
  AssumePure() = default;
  explicit AssumePure(std::vector<std::string> targets);
  bool covers(std::string_view target) const;
  const std::vector<std::string>& targets() const { return targets_; }

private:
  std::vector<std::string> targets_; // sorted, unique
};

// The items of "a.b, c.d" (an --assume-pure list), blanks around each cut;
// empty items are kept, so a check can refuse them.
std::vector<std::string> split_target_list(std::string_view list);

// The targets of such a list (empty items skipped).
AssumePure parse_assume_pure(std::string_view list);

// The node's barrier kind with `pure` applied; None for non-calls.
BarrierKind node_barrier_kind(const Node& n, const AssumePure& pure);

} // namespace osched
