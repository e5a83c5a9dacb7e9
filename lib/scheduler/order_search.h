#pragma once
// --policy: what runs after the greedy. `upstream` stops at the greedy's
// order (parity with PyTorch); `improved` runs the local search of
// scheduler/refine_order.h, within every limit the greedy keeps. The
// pipeline runs whatever order_search_for() gives it, so a new policy is
// one class, one OrderSearchKind value and its name (pipeline/schedule_config.h).

#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "scheduler/refine_order.h"
#include "scheduler/schedule_result.h"

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

// What a search did, for the report.
struct SearchSummary {
  double greedy_step_ms = 0; // the step of the order it started from
  int moves = 0;             // kept moves
  int trials = 0;            // simulated candidate orders
  bool budget_exhausted = false;
};

// The schedule to write: the greedy's, with the search's order and peak
// when a search ran.
struct SearchedSchedule {
  ScheduleResult schedule;
  std::optional<SearchSummary> summary; // nullopt: the policy does not search
};

class OrderSearch {
public:
  virtual ~OrderSearch() = default;
  virtual std::string_view name() const = 0;
  // A schedule at least as good as `greedy` and within the same limits.
  virtual SearchedSchedule improve(const SearchInput& in, ScheduleResult greedy) const = 0;
};

// What --policy picks: the search that runs after the greedy.
enum class OrderSearchKind : uint8_t { Upstream, Improved };

std::unique_ptr<OrderSearch> order_search_for(OrderSearchKind policy);

} // namespace osched
