// --release-memory-early (not upstream): nodes off the compute and
// communication streams that release more memory than they allocate
// (metadata reads of a buffer, a last view, a reduction of a big
// activation) run as soon as they are ready; deferring them to the compute
// they feed only keeps buffers alive. Everything else is upstream's.

#include "ops/collective.h"
#include "ops/op_table.h"
#include "scheduler/greedy_ranking_upstream.h"

namespace osched {
namespace {

class ReleaseEarlyRanking : public UpstreamRanking {
public:
  std::string_view name() const override { return "release_early"; }

  ReadyScore ready_score(const RankingContext& ctx, NodeId n) const override {
    if (frees_for_free(ctx, n))
      return {-1, 0, n};
    return UpstreamRanking::ready_score(ctx, n);
  }

  // A node becomes free to run once it is the last reader of a buffer.
  bool scores_last_readers() const override { return true; }
  bool rescore_last_reader(const RankingContext& ctx, NodeId n) const override {
    return frees_for_free(ctx, n);
  }

private:
  static bool frees_for_free(const RankingContext& ctx, NodeId n) {
    const ScheduleAnalysis& a = ctx.analysis;
    const Node& node = a.graph.nodes[n];
    if (a.kind[n] != NodeKind::Other || is_collective_node(node) || is_wait_node(node))
      return false;
    if (is_metadata_node(node))
      return true;
    return ctx.memory.bytes_freed_by(n) > ctx.memory.allocation_of(n);
  }
};

} // namespace

std::unique_ptr<GreedyRanking> make_release_early_ranking() {
  return std::make_unique<ReleaseEarlyRanking>();
}

} // namespace osched
