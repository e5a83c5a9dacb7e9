#include "scheduler/lower_bound.h"

#include <algorithm>
#include <iterator>
#include <map>

#include "sim/simulate.h"

namespace osched {

StepLowerBound step_lower_bound(const Graph& g, const RuntimeTable& rt, int64_t work_limit) {
  return step_lower_bound(g, make_simulation_plan(g, rt), rt, work_limit);
}

namespace {

// Per collective: whether it blocks, and the compute-stream time of its
// ancestors and of the descendants of its readers (readers included).
struct Around {
  std::vector<char> blocking;
  std::vector<double> before_ms, after_ms;
  // Where the bits were used (and the matrix is small): row k holds, a bit
  // per collective, those collective k is an ancestor of.
  std::vector<uint64_t> descendants;
  size_t words = 0;
  bool is_ancestor(size_t k, size_t of) const {
    return !descendants.empty() && ((descendants[k * words + of / 64] >> (of % 64)) & 1);
  }
};

// Ancestry bits of one batch of up to 64 collectives (plan.collectives from
// `first`): before[v] holds the bit of each collective v is an ancestor of
// (one pass from the last node over its users), after[v] of each collective
// v descends from a reader of, readers included (one pass from the first
// over its inputs). Ancestors and such descendants never overlap (the
// graph is acyclic), as the walk's shared marks assume.
void batch_bits(const SimulationPlan& plan, const InputLists& inputs, const UserLists& users,
                size_t first, size_t count, std::vector<int32_t>& bit,
                std::vector<uint64_t>& before, std::vector<uint64_t>& after) {
  const size_t n = before.size();
  const std::vector<NodeId>& colls = plan.collectives;
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
  }
  for (size_t j = 0; j < count; ++j)
    bit[static_cast<size_t>(colls[first + j])] = -1;
}

// Blocking collectives and the stream time around each, 64 at a time: a
// collective blocks when every stream node holds its bit in one of the two
// masks. O((N + E) * C / 64) word operations.
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
  // Adds `w` to sums[j] for each bit j of `m`.
  auto add_bits = [](uint64_t m, double w, double* sums) {
    for (; m != 0; m &= m - 1)
      sums[__builtin_ctzll(m)] += w;
  };
  std::vector<uint64_t> before(n), after(n);
  const size_t words = (colls.size() + 63) / 64;
  if (colls.size() * words <= (size_t{1} << 22)) { // 32 MiB
    r.words = words;
    r.descendants.assign(colls.size() * words, 0);
  }
  for (size_t first = 0; first < colls.size(); first += 64) {
    const size_t count = std::min<size_t>(64, colls.size() - first);
    batch_bits(plan, inputs, users, first, count, bit, before, after);
    if (!r.descendants.empty())
      for (size_t k = 0; k < colls.size(); ++k)
        r.descendants[k * words + first / 64] = before[static_cast<size_t>(colls[k])];
    uint64_t all = count == 64 ? ~uint64_t{0} : (uint64_t{1} << count) - 1;
    for (size_t v = 0; v < n; ++v) {
      if (!on_stream[v])
        continue;
      all &= before[v] | after[v];
      if (weight[v] > 0) {
        add_bits(before[v], weight[v], r.before_ms.data() + first);
        add_bits(after[v], weight[v], r.after_ms.data() + first);
      }
    }
    for (size_t j = 0; j < count; ++j)
      r.blocking[first + j] = (all >> j) & 1;
  }
  return r;
}

// For sets of collectives (`member`: per collective, a bit per set), the
// stream time of the nodes independent of some member of each set (neither
// its ancestor nor after one of its readers): what may run on the compute
// stream while the set's transfers run. A second pass of bits.
std::vector<double> independent_of_sets(const SimulationPlan& plan,
                                        const std::vector<char>& on_stream,
                                        const std::vector<double>& weight, const InputLists& inputs,
                                        const UserLists& users, const std::vector<uint64_t>& member,
                                        size_t sets) {
  const size_t n = on_stream.size();
  const std::vector<NodeId>& colls = plan.collectives;
  std::vector<int32_t> bit(n, -1);
  std::vector<uint64_t> before(n), after(n), hit(n, 0); // hit: sets v is independent for
  std::vector<uint64_t> in_set(sets);                   // per set, its batch members' bits
  for (size_t first = 0; first < colls.size(); first += 64) {
    const size_t count = std::min<size_t>(64, colls.size() - first);
    std::fill(in_set.begin(), in_set.end(), 0);
    for (size_t j = 0; j < count; ++j)
      for (size_t s = 0; s < sets; ++s)
        if ((member[first + j] >> s) & 1)
          in_set[s] |= uint64_t{1} << j;
    batch_bits(plan, inputs, users, first, count, bit, before, after);
    for (size_t v = 0; v < n; ++v) {
      if (!on_stream[v] || weight[v] <= 0)
        continue;
      const uint64_t independent = ~(before[v] | after[v]);
      for (size_t s = 0; s < sets; ++s)
        if (independent & in_set[s])
          hit[v] |= uint64_t{1} << s;
    }
  }
  std::vector<double> out(sets, 0.0);
  for (size_t v = 0; v < n; ++v)
    for (uint64_t h = hit[v]; h != 0; h &= h - 1)
      out[static_cast<size_t>(__builtin_ctzll(h))] += weight[v];
  return out;
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
// Under merges, a chain of a pool's members (each a descendant of the one
// before) cannot share a bucket: each is a bucket of its own, costing at
// least its least bucket time. The chain is taken greedily in node order.
std::map<std::string, double> group_stream_ms(const SimulationPlan& plan, const MergePools* merges,
                                              const std::vector<char>* only, const Around& around) {
  std::map<std::string, double> per_group;
  struct Demand {
    double bytes = 0, least_ms = 1e300, chain_ms = 0;
    int32_t group = -1;
    int64_t chain_end = -1; // the chain's last member
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
    if (d.chain_end < 0 || around.is_ancestor(static_cast<size_t>(d.chain_end), k)) {
      d.chain_ms += merges->least_bucket_ms[k];
      d.chain_end = static_cast<int64_t>(k);
    }
  }
  for (size_t p = 0; p < demand.size(); ++p)
    if (demand[p].group >= 0)
      per_group[plan.group_names[static_cast<size_t>(demand[p].group)]] +=
          std::max(demand[p].chain_ms,
                   merges->floor_ms(static_cast<int32_t>(p), demand[p].bytes, demand[p].least_ms));
  return per_group;
}

} // namespace

double MergePools::floor_ms(int32_t p, double member_bytes, double least_ms) const {
  // Every bucket costs at least its bytes at the least rate, and there is
  // at least one bucket.
  return std::max(least_ms_per_byte[static_cast<size_t>(p)] * member_bytes, least_ms);
}

StepLowerBound step_lower_bound(const Graph& g, const SimulationPlan& plan,
                                const RuntimeTable& path_rt, int64_t work_limit,
                                const MergePools* merges) {
  using Role = SimulationPlan::Role;
  const size_t n = g.nodes.size();
  StepLowerBound b;
  b.critical_path_ms = critical_path_ms(g, path_rt);
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
  // Through a collective: the longest path with each collective started
  // no earlier than its ancestors' stream time, then its readers'
  // descendants' stream time after it.
  std::vector<double> earliest(n, 0.0), done;
  for (size_t k = 0; k < plan.collectives.size(); ++k)
    earliest[static_cast<size_t>(plan.collectives[k])] = around.before_ms[k];
  b.through_collective_ms = critical_path_ms(g, path_rt, &earliest, &done);
  for (size_t k = 0; k < plan.collectives.size(); ++k) {
    const auto c = static_cast<size_t>(plan.collectives[k]);
    const double through = done[c] + around.after_ms[k];
    if (through > b.through_collective_ms) {
      b.through_collective_ms = through;
      b.through_collective = g.nodes[c].name;
    }
  }
  const std::map<std::string, double> per_group = group_stream_ms(plan, merges, nullptr, around);
  const std::map<std::string, double> blocking_per_group =
      group_stream_ms(plan, merges, &blocking, around);
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
  // No stream node starts before its path allows (its release): for any
  // time r, the nodes released at r or later all run after r, so the step
  // is at least r plus their stream time. `best_by`: at each release time,
  // the largest such sum over the release times up to it.
  std::vector<std::pair<double, double>> released; // (release, stream time)
  for (size_t v = 0; v < n; ++v)
    if (on_stream[v] && weight[v] > 0)
      released.emplace_back(done[v] - path_rt.ms[v], weight[v]);
  std::sort(released.begin(), released.end());
  std::vector<double> best_by(released.size());
  {
    double after = 0; // stream time released at or after released[i]
    for (size_t i = released.size(); i-- > 0;) {
      after += released[i].second;
      best_by[i] = released[i].first + after;
    }
    for (size_t i = 1; i < released.size(); ++i)
      best_by[i] = std::max(best_by[i], best_by[i - 1]);
    if (!best_by.empty())
      b.release_ms = best_by.back();
  }
  // The best r no later than `t`.
  auto best_release_by = [&](double t) {
    auto it = std::upper_bound(released.begin(), released.end(), std::make_pair(t, 1e300));
    return it == released.begin() ? 0.0 : best_by[static_cast<size_t>(it - released.begin()) - 1];
  };
  // More than the blocking ones: for a set of one group's collectives, the
  // compute stream can run, while their transfers run one after another,
  // only nodes independent of some member. The sets tried: per group (the
  // busiest first), the collectives whose independent stream time is at
  // most t times their own, for a few t.
  if (by_bits && !plan.collectives.empty()) {
    const double ratios[] = {0.5, 1, 2, 4, 1e300};
    constexpr size_t kRatios = std::size(ratios);
    std::vector<std::pair<double, std::string>> groups;
    for (const auto& [group, ms] : per_group)
      groups.emplace_back(-ms, group);
    std::sort(groups.begin(), groups.end());
    groups.resize(std::min(groups.size(), 64 / kRatios));
    std::map<std::string, size_t> slot;
    for (size_t i = 0; i < groups.size(); ++i)
      slot[groups[i].second] = i;
    const size_t sets = groups.size() * kRatios;
    std::vector<double> first_issue(sets, 1e300); // the earliest a member can be issued
    std::vector<uint64_t> member(plan.collectives.size(), 0);
    for (size_t k = 0; k < plan.collectives.size(); ++k) {
      const auto c = static_cast<size_t>(plan.collectives[k]);
      auto it = slot.find(plan.group_names[static_cast<size_t>(plan.group[c])]);
      if (it == slot.end())
        continue;
      const double independent = b.compute_ms - around.before_ms[k] - around.after_ms[k];
      for (size_t t = 0; t < kRatios; ++t)
        if (independent <= ratios[t] * path_rt.ms[c]) {
          const size_t set = it->second * kRatios + t;
          member[k] |= uint64_t{1} << set;
          first_issue[set] = std::min(first_issue[set], done[c] - path_rt.ms[c]);
        }
    }
    const std::vector<double> free_ms =
        independent_of_sets(plan, on_stream, weight, inputs, users, member, sets);
    std::vector<char> only(plan.collectives.size());
    for (size_t s = 0; s < sets; ++s) {
      for (size_t k = 0; k < only.size(); ++k)
        only[k] = (member[k] >> s) & 1;
      const std::map<std::string, double> stream = group_stream_ms(plan, merges, &only, around);
      auto it = stream.find(groups[s / kRatios].second);
      if (it == stream.end())
        continue;
      const double idle = it->second - free_ms[s];
      b.exclusive_comm_ms = std::max(b.exclusive_comm_ms, idle);
      // The set transfers after any r no later than its first issue: the
      // release bound at such an r, plus the idle.
      if (first_issue[s] < 1e299)
        b.release_ms = std::max(b.release_ms, best_release_by(first_issue[s]) + idle);
    }
  }
  b.exclusive_comm_ms = std::max(b.exclusive_comm_ms, b.blocking_comm_ms);
  b.step_ms = std::max({b.compute_ms + b.exclusive_comm_ms, b.release_ms, b.busiest_group_comm_ms,
                        b.critical_path_ms, b.compute_ms, b.through_collective_ms});
  return b;
}

} // namespace osched
