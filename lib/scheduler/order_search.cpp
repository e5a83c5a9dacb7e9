#include "scheduler/order_search.h"

#include "scheduler/limit_use.h"
#include "scheduler/schedule_analysis.h"

namespace osched {
namespace {

class GreedyOnly final : public OrderSearch {
public:
  std::string_view name() const override { return "upstream"; }
  SearchedSchedule improve(const SearchInput&, ScheduleResult greedy) const override {
    return {std::move(greedy), std::nullopt};
  }
};

class ImprovedSearch final : public OrderSearch {
public:
  std::string_view name() const override { return "improved"; }
  SearchedSchedule improve(const SearchInput& in, ScheduleResult greedy) const override {
    const LimitUse caps = limit_caps(in.options, measure_limit_use(in.analysis, greedy.order));
    RefineResult ref =
        refine_order(in.analysis, in.plan, greedy.order, in.memory_limit, caps, in.trial_budget);
    greedy.order = std::move(ref.order);
    greedy.scheduled_peak_bytes = ref.peak_bytes;
    // Moves from the original order (kept by the greedy for the budget)
    // make an order of their own, within the budget.
    if (ref.moves > 0)
      greedy.kept_original_order = false;
    return {std::move(greedy),
            SearchSummary{ref.step_ms_before, ref.moves, ref.trials, ref.budget_exhausted}};
  }
};

} // namespace

std::unique_ptr<OrderSearch> order_search_for(OrderSearchKind policy) {
  switch (policy) {
  case OrderSearchKind::Upstream:
    return std::make_unique<GreedyOnly>();
  case OrderSearchKind::Improved:
    break;
  }
  return std::make_unique<ImprovedSearch>();
}

} // namespace osched
