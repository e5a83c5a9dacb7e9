#pragma once
// Rewrites the reordered graph so each bucket runs as one collective:
//   <name>_cat   overlap_sched.bucket_cat.default([inputs...])  -> flat input
//   <name>       the collective on the flat input (replaces the member starts)
//   <name>_wait  wait_tensor (replaces the member waits)
//   <name>_split overlap_sched.bucket_split.default(wait, [numels...]) -> the
//                members' outputs, in member order
// kwargs `layout` says how ranks' chunks are arranged: for all-gather the
// gathered buffer is rank-major, so split takes each member's slice of every
// rank's chunk ("rank_interleaved"); for reduce-scatter, cat lays each input
// out as [group_size, -1] and concatenates along dim 1 ("rank_interleaved");
// all-reduce uses plain concatenation ("flat"); members of mixed dtypes
// (all-gather) share a uint8 buffer. The cat goes where the bucket's chosen
// member started (after the nodes it raises) and the wait where its chosen
// member was waited on (before the nodes it sinks), so all hiding compute
// stays inside; users of a member's wait read the split.

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "bucketing/bucket_planner.h"
#include "bucketing/overlap_interval.h"
#include "graph/graph.h"

namespace osched {

// A merged collective as the report lists it.
struct BucketSummary {
  std::string name; // the merged collective's node
  std::string kind, group, dtype;
  std::vector<std::string> members; // the collectives it replaces, in order
  int64_t size_bytes = 0;
  std::vector<std::string> hiding_nodes;
  double exposed_ms = 0; // in the written graph's simulation (set by the report)
};

struct BucketedGraph {
  Graph graph;
  std::vector<OverlapInterval>
      intervals; // in the new graph's indices; one per bucket or kept collective
  std::vector<BucketSummary> buckets;
  // Per node, its position in the graph before the rewrite; -1 for the
  // nodes the rewrite made. Empty when nothing was rewritten (identity).
  std::vector<NodeId> origin;
};

// Consumes `g`: pass a copy to keep the original. New nodes are named
// <prefix><index>_<kind>[_cat|_wait|_split].
BucketedGraph apply_buckets(Graph g, const std::vector<OverlapInterval>& colls,
                            const std::vector<Bucket>& buckets, std::string_view prefix = "bucket");

// Which dtype conversions a bucket's copy-in performs, as the rewrite
// decides it: an all-gather's input converted by a node that feeds nothing
// else. Data users are counted once, on first use.
class ConvertFusion {
public:
  explicit ConvertFusion(const Graph& g) : g_(g) {}
  NodeId fusable(const Value& input); // the conversion node, or -1
private:
  const Graph& g_;
  std::vector<int32_t> uses_;
};

// A bucket's rewrite alone, for estimating it before anything is rewritten:
// the inputs its copy-in reads, the copy-in, the merged collective, its
// wait and the copy-out, built as apply_buckets builds them; and the
// conversions the copy-in performs, which the rewrite deletes.
struct MergedBucketGraph {
  Graph graph;
  NodeId cat = -1, start = -1, split = -1;
  std::vector<NodeId> removed; // in the original graph
};
MergedBucketGraph merged_bucket_graph(const Graph& g, const std::vector<OverlapInterval>& colls,
                                      const Bucket& bucket, ConvertFusion& converts);

} // namespace osched
