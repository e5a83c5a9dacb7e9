#include "scheduler/refine_order.h"

#include <algorithm>

#include "memory/memory_tracker.h"
#include "scheduler/schedule_analysis.h"
#include "sim/prefix_simulator.h"
#include "sim/simulate.h"

namespace osched {
namespace {

// Single-compute steps tried per collective start and wait after the
// coarse positions, and members of a busy stream period tried ahead of it.
constexpr size_t kSteps = 8;
constexpr size_t kBusyMembers = 8;
constexpr size_t kIdleGaps = 4;

// Candidate orders built from the current one. A node moves together with
// the nodes between it and its new place that it needs (a start with its
// cast and producer, a wait with its readers), so a move is never refused
// for a dependency, and every order built is topological.
class MoveBuilder {
public:
  MoveBuilder(const DependencyGraph& deps, const std::vector<NodeId>& order,
              const std::vector<NodeId>& pos)
      : deps_(deps), order_(order), pos_(pos), mark_(order.size(), 0) {}

  // The node at `from` and its inputs placed in [to, from), just before
  // the node now at `to`; the rest keep their order.
  void hoist(size_t from, size_t to, std::vector<NodeId>& out) {
    mark_[order_[from]] = 1;
    for (size_t i = from + 1; i-- > to;) {
      const NodeId v = order_[i];
      if (!mark_[v])
        continue;
      auto [b, e] = deps_.inputs(v);
      for (auto p = b; p != e; ++p)
        if (static_cast<size_t>(pos_[*p]) >= to)
          mark_[*p] = 1;
    }
    out.assign(order_.begin(), order_.begin() + static_cast<std::ptrdiff_t>(to));
    for (size_t i = to; i <= from; ++i)
      if (mark_[order_[i]])
        out.push_back(order_[i]);
    for (size_t i = to; i <= from; ++i)
      if (!mark_[order_[i]])
        out.push_back(order_[i]);
      else
        mark_[order_[i]] = 0;
    out.insert(out.end(), order_.begin() + static_cast<std::ptrdiff_t>(from) + 1, order_.end());
  }

  // The node at `from` and its users in (from, to] placed just after the
  // node now at `to`.
  void sink(size_t from, size_t to, std::vector<NodeId>& out) {
    mark_[order_[from]] = 1;
    for (size_t i = from; i <= to; ++i) {
      const NodeId v = order_[i];
      if (!mark_[v])
        continue;
      auto [b, e] = deps_.users(v);
      for (auto p = b; p != e; ++p)
        if (static_cast<size_t>(pos_[*p]) <= to)
          mark_[*p] = 1;
    }
    out.assign(order_.begin(), order_.begin() + static_cast<std::ptrdiff_t>(from));
    for (size_t i = from; i <= to; ++i)
      if (!mark_[order_[i]])
        out.push_back(order_[i]);
    for (size_t i = from; i <= to; ++i)
      if (mark_[order_[i]]) {
        out.push_back(order_[i]);
        mark_[order_[i]] = 0;
      }
    out.insert(out.end(), order_.begin() + static_cast<std::ptrdiff_t>(to) + 1, order_.end());
  }

private:
  const DependencyGraph& deps_;
  const std::vector<NodeId>& order_;
  const std::vector<NodeId>& pos_;
  std::vector<char> mark_;
};

// When each collective ran in a simulation, and each group's collectives
// in the order its stream ran them.
struct StreamTimes {
  std::vector<double> start, end;        // per node; collective starts only
  std::vector<int32_t> slot;             // per node: its place in its run, -1 if none
  std::vector<std::vector<NodeId>> runs; // per group
};

StreamTimes stream_times(const ScheduleAnalysis& a, const SimulationPlan& plan,
                         const std::vector<NodeId>& order) {
  StreamTimes st;
  std::vector<SimEvent> events;
  // At most one per node and one per collective: no regrowth copies.
  events.reserve(order.size() + plan.collectives.size());
  simulate_step(plan, order, {}, &events);
  st.start.assign(order.size(), 0);
  st.end.assign(order.size(), 0);
  st.slot.assign(order.size(), -1);
  st.runs.resize(a.group_names.size());
  for (const SimEvent& e : events) {
    if (e.kind != SimEvent::Kind::Collective)
      continue;
    const int32_t k = a.collective_of[static_cast<size_t>(e.node)];
    if (k < 0)
      continue;
    st.start[static_cast<size_t>(e.node)] = e.start_ms;
    st.end[static_cast<size_t>(e.node)] = e.end_ms;
    auto& run = st.runs[static_cast<size_t>(a.group_of[static_cast<size_t>(k)])];
    st.slot[static_cast<size_t>(e.node)] = static_cast<int32_t>(run.size());
    run.push_back(e.node);
  }
  return st;
}

} // namespace

int refine_trial_budget(size_t nodes, int time_ms) {
  // About 6 ns per node for building and simulating one candidate order on
  // the 2-core reference machine (measured at 100k nodes), plus the memory
  // profile of the candidates that are faster; 10 ns leaves a margin.
  const double per_trial_ms = 1e-5 * static_cast<double>(std::max<size_t>(nodes, 1)) + 0.002;
  return static_cast<int>(std::clamp(time_ms / per_trial_ms, 1.0, 1e6));
}

RefineResult refine_order(const Graph& g, const RuntimeTable& rt, const SchedulerOptions& options,
                          std::vector<NodeId> order, int64_t memory_limit, int max_trials) {
  const ScheduleAnalysis a(g, rt, options);
  const LimitUse caps = limit_caps(options, measure_limit_use(a, order));
  return refine_order(a, make_simulation_plan(g, rt), std::move(order), memory_limit, caps,
                      max_trials);
}

RefineResult refine_order(const ScheduleAnalysis& a, const SimulationPlan& plan,
                          std::vector<NodeId> order, int64_t memory_limit, const LimitUse& caps,
                          int max_trials) {
  const RuntimeTable& rt = a.runtimes;
  RefineResult r;
  const size_t n = order.size();
  std::vector<NodeId> pos(n);
  auto index = [&] {
    for (size_t i = 0; i < n; ++i)
      pos[static_cast<size_t>(order[i])] = static_cast<NodeId>(i);
  };
  index();
  MoveBuilder build(a.deps, order, pos);
  SimulationResult sim = simulate_step(plan, order);
  r.step_ms_before = sim.step_ms;
  double best = sim.step_ms;
  r.peak_bytes = memory_peak(a.storages, order);
  std::vector<NodeId> trial;
  // Candidates differ from `order` only within the positions moved over.
  PrefixSimulator prefix(plan);
  prefix.reset(order);
  // The candidate in `trial`, changed in [first, last]: kept when shorter
  // and within the limit.
  auto keep_if_better = [&](size_t first, size_t last) {
    ++r.trials;
    const double step = prefix.step_ms(trial, first, last);
    if (step >= best - 1e-9)
      return false;
    const int64_t peak = memory_peak(a.storages, trial);
    if (peak > memory_limit || !within_caps(measure_limit_use(a, trial), caps))
      return false;
    order.swap(trial);
    index();
    prefix.reset(order);
    best = step;
    r.peak_bytes = peak;
    ++r.moves;
    return true;
  };
  auto out_of_budget = [&] {
    if (r.trials >= max_trials)
      r.budget_exhausted = true;
    return r.budget_exhausted;
  };
  auto hoist = [&](size_t from, size_t to) {
    if (to >= from || out_of_budget())
      return false;
    build.hoist(from, to, trial);
    return keep_if_better(to, from);
  };
  auto sink = [&](size_t from, size_t to) {
    if (to <= from || out_of_budget())
      return false;
    build.sink(from, to, trial);
    return keep_if_better(from, to);
  };
  auto is_compute = [&](size_t at) {
    return a.kind[static_cast<size_t>(order[at])] == NodeKind::Compute;
  };
  for (bool improved = true; improved && !out_of_budget();) {
    improved = false;
    sim = simulate_step(plan, order);
    // The most exposed first; ties by node for determinism.
    std::vector<const CollectiveOutcome*> exposed;
    for (const CollectiveOutcome& c : a.collectives)
      if (c.schedulable && c.wait >= 0 && sim.collective_exposed_ms[c.start] > 0)
        exposed.push_back(&c);
    std::stable_sort(exposed.begin(), exposed.end(), [&](const auto* x, const auto* y) {
      return sim.collective_exposed_ms[x->start] > sim.collective_exposed_ms[y->start];
    });
    bool times_stale = true;
    StreamTimes st;
    for (const CollectiveOutcome* c : exposed) {
      if (out_of_budget())
        break;
      const double exposure = sim.collective_exposed_ms[c->start];
      // Start: just early enough for the compute passed over to cover the
      // exposure, else to just after its last input, else halfway.
      const size_t at = static_cast<size_t>(pos[c->start]);
      size_t earliest = 0;
      auto [ib, ie] = a.deps.inputs(c->start);
      for (auto p = ib; p != ie; ++p)
        earliest = std::max(earliest, static_cast<size_t>(pos[*p]) + 1);
      size_t covering = at;
      for (double covered = 0; covering > 0 && covered < exposure;) {
        --covering;
        if (is_compute(covering))
          covered += rt.ms[static_cast<size_t>(order[covering])];
      }
      bool moved = false;
      for (size_t to : {covering, earliest, (earliest + at) / 2, (covering + at) / 2})
        if (!moved)
          moved = hoist(at, to);
      // Where those cost memory or delay the group's other collectives: one
      // compute node further at a time, nearest first (taking the producer
      // along once past it).
      for (size_t to = at, steps = 0; !moved && to > 0 && steps < kSteps;) {
        --to;
        if (!is_compute(to))
          continue;
        ++steps;
        moved = hoist(at, to);
      }
      // Wait: just late enough for the compute it lets run first to cover
      // the exposure, else to just before its first user, else halfway.
      const size_t wat = static_cast<size_t>(pos[c->wait]);
      size_t latest = n - 2; // the output stays last
      auto [ub, ue] = a.deps.users(c->wait);
      for (auto p = ub; p != ue; ++p)
        latest = std::min(latest, static_cast<size_t>(pos[*p]) - 1);
      size_t sinking = wat;
      for (double covered = 0; sinking < n - 2 && covered < exposure;) {
        ++sinking;
        if (is_compute(sinking))
          covered += rt.ms[static_cast<size_t>(order[sinking])];
      }
      bool sunk = false;
      for (size_t to : {sinking, latest, (latest + wat + 1) / 2})
        if (!sunk)
          sunk = sink(wat, to);
      for (size_t to = wat, steps = 0; !sunk && to < n - 2 && steps < kSteps;) {
        ++to;
        if (!is_compute(to))
          continue;
        ++steps;
        sunk = sink(wat, to);
      }
      if (moved || sunk) {
        improved = times_stale = true;
        continue;
      }
      // Still exposed because its stream was busy: the collectives queued
      // ahead of it since the stream was last idle delay it. Issue the first
      // of them earlier (with its producer), or run a later one ahead of it
      // in the idle time before.
      if (times_stale) {
        st = stream_times(a, plan, order);
        times_stale = false;
      }
      const auto& run = st.runs[static_cast<size_t>(
          a.group_of[static_cast<size_t>(a.collective_of[static_cast<size_t>(c->start)])])];
      if (st.slot[static_cast<size_t>(c->start)] < 0)
        continue;
      const size_t k = static_cast<size_t>(st.slot[static_cast<size_t>(c->start)]);
      size_t first = k;
      while (first > 0 && st.start[static_cast<size_t>(run[first])] <=
                              st.end[static_cast<size_t>(run[first - 1])] + 1e-9)
        --first;
      if (first == k)
        continue;
      const size_t head = static_cast<size_t>(pos[run[first]]);
      bool relieved = false;
      for (size_t to = head, steps = 0; !relieved && to > 0 && steps < kSteps;) {
        --to;
        if (!is_compute(to))
          continue;
        ++steps;
        relieved = hoist(head, to);
      }
      // Idle stretches of the stream before the busy period, latest first:
      // a collective issued just after the one before such a stretch runs in
      // it.
      std::vector<size_t> idle_after;
      for (size_t j = first; j > 0 && idle_after.size() < kIdleGaps; --j)
        if (st.start[static_cast<size_t>(run[j])] > st.end[static_cast<size_t>(run[j - 1])] + 1e-9)
          idle_after.push_back(j - 1);
      for (size_t m = first + 1; !relieved && m <= k && m <= first + kBusyMembers; ++m) {
        relieved = hoist(static_cast<size_t>(pos[run[m]]), static_cast<size_t>(pos[run[first]]));
        for (size_t i = 0; !relieved && i < idle_after.size(); ++i)
          relieved = hoist(static_cast<size_t>(pos[run[m]]),
                           static_cast<size_t>(pos[run[idle_after[i]]]) + 1);
      }
      if (relieved)
        improved = times_stale = true;
    }
  }
  r.order = std::move(order);
  r.step_ms_after = best;
  return r;
}

} // namespace osched
