#include "scheduler/refine_order.h"

#include <algorithm>

#include "memory/memory_tracker.h"
#include "scheduler/schedule_analysis.h"
#include "scheduler/simulate.h"

namespace osched {
namespace {

// `order` with the node at `from` moved to `to` (others keep their order).
void move_node(std::vector<NodeId>& order, size_t from, size_t to) {
  if (from < to)
    std::rotate(order.begin() + from, order.begin() + from + 1, order.begin() + to + 1);
  else if (to < from)
    std::rotate(order.begin() + to, order.begin() + from, order.begin() + from + 1);
}

// Single-compute steps tried per collective start and wait after the
// coarse positions.
constexpr size_t kSteps = 8;

} // namespace

int refine_trial_budget(size_t nodes, int time_ms) {
  // About 60 ns per node for one simulation plus one memory profile on the
  // 2-core reference machine.
  const double per_trial_ms = 6e-5 * static_cast<double>(std::max<size_t>(nodes, 1)) + 0.002;
  return static_cast<int>(std::clamp(time_ms / per_trial_ms, 1.0, 1e6));
}

RefineResult refine_order(const Graph& g, const RuntimeTable& rt, const SchedulerOptions& options,
                          std::vector<NodeId> order, int64_t memory_limit, int max_trials) {
  const ScheduleAnalysis a(g, rt, options);
  RefineResult r;
  const size_t n = order.size();
  std::vector<NodeId> pos(n);
  auto index = [&] {
    for (size_t i = 0; i < n; ++i)
      pos[static_cast<size_t>(order[i])] = static_cast<NodeId>(i);
  };
  index();
  SimulationResult sim = simulate_step(g, rt, order);
  r.step_ms_before = sim.step_ms;
  double best = sim.step_ms;
  r.peak_bytes = memory_profile(a.storages, order).peak;
  // A candidate order: kept when shorter and within the limit.
  auto attempt = [&](size_t from, size_t to) {
    if (r.trials >= max_trials) {
      r.budget_exhausted = true;
      return false;
    }
    ++r.trials;
    std::vector<NodeId> trial = order;
    move_node(trial, from, to);
    const SimulationResult s = simulate_step(g, rt, trial);
    if (s.step_ms >= best - 1e-9)
      return false;
    const int64_t peak = memory_profile(a.storages, trial).peak;
    if (peak > memory_limit)
      return false;
    order = std::move(trial);
    index();
    best = s.step_ms;
    r.peak_bytes = peak;
    ++r.moves;
    return true;
  };
  for (bool improved = true; improved && !r.budget_exhausted;) {
    improved = false;
    sim = simulate_step(g, rt, order);
    // The most exposed first; ties by node for determinism.
    std::vector<const CollectiveOutcome*> exposed;
    for (const CollectiveOutcome& c : a.collectives)
      if (c.schedulable && c.wait >= 0 && sim.collective_exposed_ms[c.start] > 0)
        exposed.push_back(&c);
    std::stable_sort(exposed.begin(), exposed.end(), [&](const auto* x, const auto* y) {
      return sim.collective_exposed_ms[x->start] > sim.collective_exposed_ms[y->start];
    });
    for (const CollectiveOutcome* c : exposed) {
      if (r.budget_exhausted)
        break;
      const double exposure = sim.collective_exposed_ms[c->start];
      // Start: just early enough for the compute passed over to cover the
      // exposure, else as early as the dependencies allow, else halfway.
      const size_t at = static_cast<size_t>(pos[c->start]);
      size_t earliest = 0;
      auto [ib, ie] = a.deps.inputs(c->start);
      for (auto p = ib; p != ie; ++p)
        earliest = std::max(earliest, static_cast<size_t>(pos[*p]) + 1);
      size_t covering = at;
      for (double covered = 0; covering > earliest && covered < exposure;) {
        --covering;
        if (a.kind[static_cast<size_t>(order[covering])] == NodeKind::Compute)
          covered += rt.ms[static_cast<size_t>(order[covering])];
      }
      bool moved = false;
      for (size_t to : {covering, earliest, (earliest + at) / 2, (covering + at) / 2})
        if (!moved && to < at)
          moved = attempt(at, to);
      // Where those cost memory or delay the group's other collectives: one
      // compute node further at a time, nearest first.
      for (size_t to = at, steps = 0; !moved && to > earliest && steps < kSteps;) {
        --to;
        if (a.kind[static_cast<size_t>(order[to])] != NodeKind::Compute)
          continue;
        ++steps;
        moved = attempt(at, to);
      }
      // Wait: just late enough for the compute it lets run first to cover
      // the exposure, else as late as its users allow, else halfway.
      const size_t wat = static_cast<size_t>(pos[c->wait]);
      size_t latest = n - 2; // the output stays last
      auto [ub, ue] = a.deps.users(c->wait);
      for (auto p = ub; p != ue; ++p)
        latest = std::min(latest, static_cast<size_t>(pos[*p]) - 1);
      size_t sinking = wat;
      for (double covered = 0; sinking < latest && covered < exposure;) {
        ++sinking;
        if (a.kind[static_cast<size_t>(order[sinking])] == NodeKind::Compute)
          covered += rt.ms[static_cast<size_t>(order[sinking])];
      }
      bool sunk = false;
      for (size_t to : {sinking, latest, (latest + wat + 1) / 2})
        if (!sunk && to > wat)
          sunk = attempt(wat, to);
      for (size_t to = wat, steps = 0; !sunk && to < latest && steps < kSteps;) {
        ++to;
        if (a.kind[static_cast<size_t>(order[to])] != NodeKind::Compute)
          continue;
        ++steps;
        sunk = attempt(wat, to);
      }
      improved = improved || moved || sunk;
    }
  }
  r.order = std::move(order);
  r.step_ms_after = best;
  return r;
}

} // namespace osched
