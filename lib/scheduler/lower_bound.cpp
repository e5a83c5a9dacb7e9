#include "scheduler/lower_bound.h"

#include <algorithm>
#include <map>

#include "sim/simulate.h"

namespace osched {

StepLowerBound step_lower_bound(const Graph& g, const RuntimeTable& rt, double critical_path_ms,
                                int64_t work_limit) {
  return step_lower_bound(g, make_simulation_plan(g, rt), critical_path_ms, work_limit);
}

namespace {

// Which collectives block the whole compute stream, 64 at a time: per node,
// a bit for each collective of the batch it is an ancestor of (one pass
// from the last node over its users) or that it descends from a reader of
// (one pass from the first over its inputs); a collective blocks when every
// stream node holds its bit in one of the two. Ancestors and such
// descendants never overlap (the graph is acyclic), as the walk's shared
// marks assume. O((N + E) * C / 64) word operations.
// Per collective: whether it blocks, and the compute-stream time of its
// ancestors and of the descendants of its readers (readers included).
struct Around {
  std::vector<char> blocking;
  std::vector<double> before_ms, after_ms;
};

Around blocking_by_bits(const SimulationPlan& plan, const std::vector<char>& on_stream,
                        const std::vector<double>& weight, const InputLists& inputs,
                        const UserLists& users) {
  const size_t n = on_stream.size();
  const std::vector<NodeId>& colls = plan.collectives;
  Around r;
  r.blocking.assign(colls.size(), 0);
  r.before_ms.assign(colls.size(), 0);
  r.after_ms.assign(colls.size(), 0);
  std::vector<int32_t> bit(n, -1);
  // Adds `w` to sums[first + j] for each bit j of `m`.
  auto add_bits = [](uint64_t m, double w, double* sums) {
    for (; m != 0; m &= m - 1)
      sums[__builtin_ctzll(m)] += w;
  };
  std::vector<uint64_t> before(n), after(n);
  for (size_t first = 0; first < colls.size(); first += 64) {
    const size_t count = std::min<size_t>(64, colls.size() - first);
    for (size_t j = 0; j < count; ++j)
      bit[static_cast<size_t>(colls[first + j])] = static_cast<int32_t>(j);
    for (size_t v = n; v-- > 0;) {
      uint64_t m = 0;
      auto [b, e] = users.of(static_cast<NodeId>(v));
      for (const NodeId* u = b; u != e; ++u) {
        m |= before[static_cast<size_t>(*u)];
        if (bit[static_cast<size_t>(*u)] >= 0)
          m |= uint64_t{1} << bit[static_cast<size_t>(*u)];
      }
      before[v] = m;
    }
    uint64_t all = count == 64 ? ~uint64_t{0} : (uint64_t{1} << count) - 1;
    for (size_t v = 0; v < n; ++v) {
      uint64_t m = 0;
      for (int64_t k = plan.blocks_offset[v]; k < plan.blocks_offset[v + 1]; ++k) {
        const int32_t j = bit[static_cast<size_t>(plan.blocks_on[static_cast<size_t>(k)])];
        if (j >= 0)
          m |= uint64_t{1} << j;
      }
      auto [b, e] = inputs.of(static_cast<NodeId>(v));
      for (const NodeId* p = b; p != e; ++p)
        m |= after[static_cast<size_t>(*p)];
      after[v] = m;
      if (on_stream[v]) {
        all &= before[v] | after[v];
        if (weight[v] > 0) {
          add_bits(before[v], weight[v], r.before_ms.data() + first);
          add_bits(after[v], weight[v], r.after_ms.data() + first);
        }
      }
    }
    for (size_t j = 0; j < count; ++j) {
      r.blocking[first + j] = (all >> j) & 1;
      bit[static_cast<size_t>(colls[first + j])] = -1;
    }
  }
  return r;
}

// The same by a walk per collective over its ancestors and the
// descendants of its readers, counting the stream nodes met; past
// `work_limit` edges the rest count as not blocking and `complete` is false.
Around blocking_by_walks(const SimulationPlan& plan, const std::vector<char>& on_stream,
                         const std::vector<double>& weight, int64_t stream_nodes,
                         const InputLists& inputs, const UserLists& users, int64_t work_limit,
                         bool& complete) {
  const size_t n = on_stream.size();
  // Nodes that block on each collective (the simulation's readers of it),
  // grouped by collective.
  std::vector<std::pair<NodeId, NodeId>> blocked_by; // (collective, reader)
  for (size_t v = 0; v < n; ++v)
    for (int64_t k = plan.blocks_offset[v]; k < plan.blocks_offset[v + 1]; ++k)
      blocked_by.emplace_back(plan.blocks_on[static_cast<size_t>(k)], static_cast<NodeId>(v));
  std::sort(blocked_by.begin(), blocked_by.end());
  std::vector<NodeId> readers(blocked_by.size());
  std::vector<size_t> readers_at(n + 1, 0);
  for (size_t i = 0; i < blocked_by.size(); ++i) {
    readers[i] = blocked_by[i].second;
    ++readers_at[static_cast<size_t>(blocked_by[i].first) + 1];
  }
  for (size_t v = 0; v < n; ++v)
    readers_at[v + 1] += readers_at[v];
  std::vector<uint32_t> seen(n, 0);
  uint32_t mark = 0;
  std::vector<NodeId> stack;
  int64_t work = 0;
  // Compute-stream nodes reachable from `from` along `edges` (marked with
  // the current mark, so the two walks of one collective share it).
  double found_ms = 0;
  auto reach = [&](const NodeId* from, const NodeId* from_end, const auto& edges) {
    int64_t found = 0;
    found_ms = 0;
    stack.clear();
    for (const NodeId* s = from; s != from_end; ++s)
      if (seen[static_cast<size_t>(*s)] != mark) {
        seen[static_cast<size_t>(*s)] = mark;
        stack.push_back(*s);
      }
    while (!stack.empty()) {
      const NodeId v = stack.back();
      stack.pop_back();
      found += on_stream[static_cast<size_t>(v)];
      if (on_stream[static_cast<size_t>(v)])
        found_ms += weight[static_cast<size_t>(v)];
      auto [b, e] = edges.of(v);
      for (const NodeId* w = b; w != e; ++w) {
        ++work;
        if (seen[static_cast<size_t>(*w)] != mark) {
          seen[static_cast<size_t>(*w)] = mark;
          stack.push_back(*w);
        }
      }
    }
    return found;
  };
  Around r;
  r.blocking.assign(plan.collectives.size(), 0);
  r.before_ms.assign(plan.collectives.size(), 0);
  r.after_ms.assign(plan.collectives.size(), 0);
  for (size_t k = 0; k < plan.collectives.size(); ++k) {
    if (work > work_limit) {
      complete = false;
      break;
    }
    const NodeId c = plan.collectives[k];
    ++mark;
    seen[static_cast<size_t>(c)] = mark;
    auto [ib, ie] = inputs.of(c);
    const int64_t before = reach(ib, ie, inputs);
    r.before_ms[k] = found_ms;
    const NodeId* rb = readers.data() + readers_at[static_cast<size_t>(c)];
    const int64_t after = reach(rb, readers.data() + readers_at[static_cast<size_t>(c) + 1], users);
    r.after_ms[k] = found_ms;
    r.blocking[k] = before + after == stream_nodes;
  }
  return r;
}

// Per group, the stream time of its collectives (of those flagged in
// `only`, when given): a collective that is never merged takes its own time,
// a pool's members at least the pool's floor over them.
std::map<std::string, double> group_stream_ms(const SimulationPlan& plan, const MergePools* merges,
                                              const std::vector<char>* only) {
  std::map<std::string, double> per_group;
  struct Demand {
    double bytes = 0, least_ms = 1e300;
    int32_t group = -1;
  };
  std::vector<Demand> demand(merges ? merges->least_ms_per_byte.size() : 0);
  for (size_t k = 0; k < plan.collectives.size(); ++k) {
    if (only && !(*only)[k])
      continue;
    const auto c = static_cast<size_t>(plan.collectives[k]);
    const int32_t group = plan.group[c];
    const int32_t pool = merges ? merges->pool[k] : -1;
    if (pool == MergePools::kUncosted)
      continue;
    if (pool < 0) {
      per_group[plan.group_names[static_cast<size_t>(group)]] += plan.ms[c];
      continue;
    }
    Demand& d = demand[static_cast<size_t>(pool)];
    d.bytes += merges->bytes[k];
    d.least_ms = std::min(d.least_ms, merges->least_bucket_ms[k]);
    d.group = group;
  }
  for (size_t p = 0; p < demand.size(); ++p)
    if (demand[p].group >= 0)
      per_group[plan.group_names[static_cast<size_t>(demand[p].group)]] +=
          merges->floor_ms(static_cast<int32_t>(p), demand[p].bytes, demand[p].least_ms);
  return per_group;
}

} // namespace

double MergePools::floor_ms(int32_t p, double member_bytes, double least_ms) const {
  // Every bucket costs at least its bytes at the least rate, and there is
  // at least one bucket.
  return std::max(least_ms_per_byte[static_cast<size_t>(p)] * member_bytes, least_ms);
}

StepLowerBound step_lower_bound(const Graph& g, const SimulationPlan& plan, double critical_path_ms,
                                int64_t work_limit, const MergePools* merges) {
  using Role = SimulationPlan::Role;
  const size_t n = g.nodes.size();
  StepLowerBound b;
  b.critical_path_ms = critical_path_ms;
  // The compute stream's nodes, as the simulation runs them.
  std::vector<char> on_stream(n, 0);
  std::vector<double> weight(n, 0); // stream time that every graph written from this one keeps
  int64_t stream_nodes = 0;
  for (size_t v = 0; v < n; ++v)
    if (plan.role[v] == Role::Compute || (plan.role[v] == Role::Reader && plan.ms[v] > 0)) {
      on_stream[v] = 1;
      ++stream_nodes;
      if (!merges || !merges->removable[v]) {
        weight[v] = plan.ms[v];
        b.compute_ms += plan.ms[v];
      }
    }
  const InputLists inputs = build_input_lists(g); // data and control: every order keeps them
  const UserLists users = build_user_lists(g, inputs);
  // Where the batches of bits cost no more than the walks may (the default
  // limit), they answer every collective at once.
  const auto edges = static_cast<int64_t>(n + inputs.inputs.size());
  const int64_t batches = (static_cast<int64_t>(plan.collectives.size()) + 63) / 64;
  const bool by_bits = work_limit < 0 && batches * edges <= 2 * edges + (int64_t{1} << 20);
  if (work_limit < 0)
    work_limit = 2 * edges + (int64_t{1} << 20);
  const Around around = by_bits ? blocking_by_bits(plan, on_stream, weight, inputs, users)
                                : blocking_by_walks(plan, on_stream, weight, stream_nodes, inputs,
                                                    users, work_limit, b.complete);
  const std::vector<char>& blocking = around.blocking;
  // Through one collective: its ancestors' stream time, then its own (its
  // least bucket's under merges), then its readers' descendants'.
  for (size_t k = 0; k < plan.collectives.size(); ++k) {
    const auto c = static_cast<size_t>(plan.collectives[k]);
    const int32_t pool = merges ? merges->pool[k] : -1;
    const double own = pool == MergePools::kUncosted ? 0.0
                       : pool >= 0                   ? merges->least_bucket_ms[k]
                                                     : plan.ms[c];
    const double through = around.before_ms[k] + own + around.after_ms[k];
    if (through > b.through_collective_ms) {
      b.through_collective_ms = through;
      b.through_collective = g.nodes[c].name;
    }
  }
  const std::map<std::string, double> per_group = group_stream_ms(plan, merges, nullptr);
  const std::map<std::string, double> blocking_per_group = group_stream_ms(plan, merges, &blocking);
  for (size_t k = 0; k < plan.collectives.size(); ++k) {
    const auto c = static_cast<size_t>(plan.collectives[k]);
    ++b.group_collectives[plan.group_names[static_cast<size_t>(plan.group[c])]];
  }
  b.group_comm_ms = per_group;
  for (const auto& [group, ms] : per_group)
    if (ms > b.busiest_group_comm_ms) {
      b.busiest_group_comm_ms = ms;
      b.busiest_group = group;
    }
  for (const auto& [group, ms] : blocking_per_group)
    b.blocking_comm_ms = std::max(b.blocking_comm_ms, ms);
  b.step_ms = std::max({b.compute_ms + b.blocking_comm_ms, b.busiest_group_comm_ms,
                        b.critical_path_ms, b.compute_ms, b.through_collective_ms});
  return b;
}

} // namespace osched
