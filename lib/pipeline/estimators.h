#pragma once
// Every estimate of a schedule run comes from here: user estimates, then
// measured runtimes, then the models (and the collective table).

#include "bucketing/pre_bucket.h"
#include "cost/collective_table.h"
#include "cost/estimator.h"
#include "graph/graph.h"

namespace osched {

struct Estimators {
  const CustomEstimates* custom = nullptr;
  RuntimeEstimator* measured = nullptr; // nullptr: nothing measured
  // Estimating fills the model's caches; the estimates do not change.
  mutable AnalyticalEstimator analytical;
  const CollectiveTable* table = nullptr;
  bool fusion = false;

  RuntimeTable of(const Graph& g) const;
};

// A collective's time as the run costs it: the table's row, else the model.
// Measured runtimes are not asked: they would benchmark sizes no node has.
CollectiveTime collective_time(const Graph& g, const Estimators& est);

} // namespace osched
