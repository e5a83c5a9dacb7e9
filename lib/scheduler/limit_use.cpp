#include "scheduler/limit_use.h"

#include <algorithm>

#include "scheduler/schedule_analysis.h"

namespace osched {

LimitUse measure_limit_use(const ScheduleAnalysis& a, const std::vector<NodeId>& order) {
  return LimitMeter(a).measure(order);
}

LimitMeter::LimitMeter(const ScheduleAnalysis& a) : a_(a), dense_(a.collectives.size(), -1) {
  for (size_t k = 0; k < a.collectives.size(); ++k)
    if (a.collectives[k].schedulable && a.collectives[k].wait >= 0)
      dense_[k] = static_cast<int32_t>(counted_++);
}

LimitUse LimitMeter::measure(const std::vector<NodeId>& order) {
  const ScheduleAnalysis& a = a_;
  LimitUse use;
  const size_t n = order.size();
  computes_before_.resize(n + 1);
  pos_.resize(n);
  computes_before_[0] = 0;
  for (size_t i = 0; i < n; ++i) {
    const auto v = static_cast<size_t>(order[i]);
    pos_[v] = i;
    computes_before_[i + 1] = computes_before_[i] + (a.kind[v] == NodeKind::Compute ? 1 : 0);
  }
  const size_t c = counted_;
  started_.assign(c + 1, 0);
  auto add_started = [&](size_t k) {
    for (size_t i = k + 1; i <= c; i += i & (~i + 1))
      ++started_[i];
  };
  auto started_before = [&](size_t k) { // among indices [0, k)
    int64_t s = 0;
    for (size_t i = k; i > 0; i -= i & (~i + 1))
      s += started_[i];
    return s;
  };
  int64_t in_flight = 0;
  for (size_t i = 0; i < n; ++i) {
    const NodeId v = order[i];
    const int32_t of = a.collective_of[static_cast<size_t>(v)];
    if (of < 0 || dense_[static_cast<size_t>(of)] < 0)
      continue;
    const size_t k = static_cast<size_t>(dense_[static_cast<size_t>(of)]);
    const CollectiveOutcome& col = a.collectives[static_cast<size_t>(of)];
    if (col.start == v) {
      in_flight += col.memory_bytes;
      use.in_flight_bytes = std::max(use.in_flight_bytes, in_flight);
      use.coll_distance = std::max(use.coll_distance, static_cast<int64_t>(k) - started_before(k));
      add_started(k);
      const int32_t dom = a.dom[static_cast<size_t>(v)];
      if (dom != kOffComputePath) {
        const size_t blocked = pos_[static_cast<size_t>(a.compute_nodes[static_cast<size_t>(dom)])];
        if (blocked > i)
          use.compute_pre_fetch =
              std::max(use.compute_pre_fetch, computes_before_[blocked] - computes_before_[i]);
      }
    }
    if (col.wait == v)
      in_flight -= col.memory_bytes;
  }
  return use;
}

LimitUse limit_caps(const SchedulerOptions& options, const LimitUse& greedy) {
  LimitUse cap;
  cap.in_flight_bytes = std::max(gb_to_bytes(options.max_in_flight_gb), greedy.in_flight_bytes);
  cap.compute_pre_fetch =
      std::max<int64_t>(options.max_compute_pre_fetch, greedy.compute_pre_fetch);
  cap.coll_distance = std::max<int64_t>(options.max_coll_distance, greedy.coll_distance);
  return cap;
}

bool within_caps(const LimitUse& use, const LimitUse& cap) {
  return use.in_flight_bytes <= cap.in_flight_bytes &&
         use.compute_pre_fetch <= cap.compute_pre_fetch && use.coll_distance <= cap.coll_distance;
}

} // namespace osched
