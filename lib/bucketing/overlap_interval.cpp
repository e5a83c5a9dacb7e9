#include "bucketing/overlap_interval.h"

#include <algorithm>

namespace osched {

std::vector<OverlapInterval> overlap_intervals(const ScheduleResult& sched,
                                               const std::vector<NodeId>& order) {
  std::vector<NodeId> pos(order.size(), -1);
  for (size_t i = 0; i < order.size(); ++i)
    pos[order[i]] = static_cast<NodeId>(i);
  std::vector<OverlapInterval> out;
  out.reserve(sched.collectives.size());
  for (const CollectiveOutcome& c : sched.collectives) {
    OverlapInterval iv;
    iv.start = pos[c.start];
    iv.wait = c.wait >= 0 ? pos[c.wait] : -1;
    for (NodeId h : c.hiding_nodes)
      iv.hiding.push_back(pos[h]);
    std::sort(iv.hiding.begin(), iv.hiding.end());
    iv.size_bytes = c.size_bytes;
    iv.estimated_ms = c.estimated_ms;
    iv.exposed_ms = c.exposed_ms;
    iv.schedulable = c.schedulable && c.wait >= 0;
    out.push_back(std::move(iv));
  }
  return out;
}

} // namespace osched
