#pragma once
// Under an MPI launch every rank must reach the same schedule, or ranks
// issue collectives in different orders and hang. Two checks, each one
// allgather: before scheduling, the content hashes of every cost input
// (collective table, runtime estimates, hardware, options); after, each
// process group's written issue sequence. A difference stops every rank
// with the same one-line error before anyone writes.

#include <string>

#include "graph/graph.h"
#include "pipeline/schedule_config.h"
#include "pipeline/schedule_pipeline.h"
#include "ranks/rank_context.h"

namespace osched {

// Throws an input error naming the first rank and cost input that differ from
// rank 0's.
void agree_on_cost_inputs(RankContext& ctx, const ScheduleConfig& cfg, const ScheduleInput& in);

// Throws an input error naming the first rank and group whose written sequence
// differs from rank 0's.
void agree_on_written_orders(RankContext& ctx, const Graph& written);

} // namespace osched
