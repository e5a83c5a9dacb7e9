#pragma once
// FSDP-style collectives merged before scheduling (after PyTorch's
// pre_bucket_fsdp_collectives, fx_passes/fsdp.py). On a group whose every
// call pays a large latency, only fewer calls shorten the step, and the
// scheduler then hides the merged calls like any other.
//
// Candidates are collectives a merge cannot tie into a cycle:
//  - all-gathers of one parameter: every ancestor found within a short
//    walk, exactly one graph input among them and no collective (upstream's
//    is_fsdp_all_gather);
//  - reduce-scatters, and all-reduces on a group with such all-gathers,
//    whose result flows only to the graph's output through one-input nodes
//    (upstream's is_fsdp_reduce_scatter_wait), within a short walk.
// Per kind, their waits are taken in graph order; a run ends at a wait of
// the same kind with another bucket key (bucket_key.h) and is cut, in
// order, into buckets of up to the group's cap: the smallest size at which
// the call's time is target_efficiency transfer at the group's asymptotic
// rate (the rest being latency), in upstream's measure (the larger of a
// member's input and output bytes), within [floor, ceiling]. No bucket
// spans an opaque op (safety/opaque_ops.h) or takes a collective touching
// a buffer written in place (written_buffers.h) or pinned by control_deps;
// with preserve_group_order
// a bucket's members are consecutive in their group's issue order.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "bucketing/bucket_planner.h"
#include "bucketing/overlap_interval.h"
#include "graph/graph.h"
#include "ops/collective_info.h"

namespace osched {

struct PreBucketOptions {
  double target_efficiency = 0.9;              // upstream's compute_pre_bucket_cap_mb
  int64_t floor_bytes = int64_t{10} << 20;     // upstream's min cap (10 MB)
  int64_t ceiling_bytes = int64_t{500} << 20;  // upstream's max cap (500 MB)
  int64_t max_bucket_bytes = int64_t{2} << 30; // input + output, --bucket-max-gb
  // Members only consecutive in their group's issue order
  // (--preserve-group-order).
  bool preserve_group_order = false;
  std::string assume_pure; // --assume-pure
};

// A collective's time in ms; asked for members' sizes and others.
using CollectiveTime = std::function<double(const CollectiveInfo&)>;

struct PreBucketCap {
  std::string group, kind;
  int64_t cap_bytes = 0; // in upstream's measure
};

struct PreBucketPlan {
  std::vector<OverlapInterval> collectives; // the candidates, in graph order
  std::vector<Bucket> buckets;              // members index `collectives`
  std::vector<PreBucketCap> caps;           // per group and kind that has candidates
};

PreBucketPlan plan_pre_buckets(const Graph& g, const PreBucketOptions& opts,
                               const CollectiveTime& time);

} // namespace osched
