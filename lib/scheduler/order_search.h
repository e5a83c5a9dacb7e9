#pragma once
// --policy: what runs after the greedy. `upstream` stops at the greedy's
// order (parity with PyTorch); `improved` runs the local search of
// scheduler/refine_order.h, within every limit the greedy keeps. The
// pipeline runs whatever order_search_for() gives it, so a new policy is
// one class, one OrderPolicy value and its name (pipeline/schedule_config.h).

#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "scheduler/refine_order.h"

namespace osched {

struct ScheduleAnalysis;
struct SimulationPlan;

struct SearchInput {
  const ScheduleAnalysis& analysis; // the greedy's
  const SimulationPlan& plan;       // the input graph's
  const SchedulerOptions& options;
  int64_t memory_limit = 0;
  int trial_budget = 0;
};

class OrderSearch {
public:
  virtual ~OrderSearch() = default;
  virtual std::string_view name() const = 0;
  // An order at least as good as `greedy` and within the same limits, with
  // what the search did; nullopt for a policy that does not search.
  virtual std::optional<RefineResult> improve(const SearchInput& in,
                                              const std::vector<NodeId>& greedy) const = 0;
};

// The policies --policy names.
enum class OrderPolicy : uint8_t { Upstream, Improved };

std::unique_ptr<OrderSearch> order_search_for(OrderPolicy policy);

} // namespace osched
