#pragma once
// The report's `safety` section: the ops collectives kept their place
// around, and per process group whether the written graph issues its
// collectives in another order than the input (a bucket counts as its
// members, in order).

#include <map>
#include <string>
#include <vector>

#include "graph/graph.h"
#include "ops/op_barrier.h"
#include "report/schedule_report.h"
#include "safety/opaque_ops.h"

namespace osched {

// Per group, its collectives' names in issue order.
using GroupOrders = std::map<std::string, std::vector<std::string>>;
GroupOrders group_orders(const Graph& g);

// The opaque ops of `input` (names read before its nodes move), and the
// warning line for stderr and the report; "" when there are none.
ReportSafety safety_of_input(const Graph& input, const std::vector<OpaqueOp>& ops,
                             const AssumePure& pure);
std::string opaque_ops_warning(const ReportSafety& s);

// Fills s.groups: the input's orders against the written graph's.
void compare_group_orders(ReportSafety& s, const GroupOrders& input, const Graph& written,
                          const std::vector<BucketSummary>* buckets);

} // namespace osched
