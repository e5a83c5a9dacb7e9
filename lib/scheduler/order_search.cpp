#include "scheduler/order_search.h"

#include "scheduler/limit_use.h"
#include "scheduler/schedule_analysis.h"

namespace osched {
namespace {

class GreedyOnly final : public OrderSearch {
public:
  std::string_view name() const override { return "upstream"; }
  std::optional<RefineResult> improve(const SearchInput&,
                                      const std::vector<NodeId>&) const override {
    return std::nullopt;
  }
};

class ImprovedSearch final : public OrderSearch {
public:
  std::string_view name() const override { return "improved"; }
  std::optional<RefineResult> improve(const SearchInput& in,
                                      const std::vector<NodeId>& greedy) const override {
    const LimitUse caps = limit_caps(in.options, measure_limit_use(in.analysis, greedy));
    return refine_order(in.analysis, in.plan, greedy, in.memory_limit, caps, in.trial_budget);
  }
};

} // namespace

std::unique_ptr<OrderSearch> order_search_for(OrderPolicy policy) {
  switch (policy) {
  case OrderPolicy::Upstream:
    return std::make_unique<GreedyOnly>();
  case OrderPolicy::Improved:
    break;
  }
  return std::make_unique<ImprovedSearch>();
}

} // namespace osched
