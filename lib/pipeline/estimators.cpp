#include "pipeline/estimators.h"

#include "cost/fusion.h"

namespace osched {

RuntimeTable Estimators::of(const Graph& g) const {
  RuntimeTable t = estimate_runtimes(g, custom, measured, analytical, table);
  if (fusion)
    fuse_pointwise_costs(g, analytical.hardware(), t);
  return t;
}

CollectiveTime collective_time(const Graph& g, const Estimators& est) {
  return [&g, &est](const CollectiveInfo& c) {
    if (est.table)
      if (std::optional<double> t = est.table->time_ms(c))
        return *t;
    return est.analytical.collective_ms(g, c).value_or(0.0);
  };
}

} // namespace osched
