#include "scheduler/refine_order.h"

#include <algorithm>

#include "memory/memory_tracker.h"
#include "memory/window_peak.h"
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
  // the node now at `to`; the rest keep their order. Writes `out` in
  // [to, from] only: elsewhere it must hold the order already.
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
    size_t at = to;
    for (size_t i = to; i <= from; ++i)
      if (mark_[order_[i]])
        out[at++] = order_[i];
    for (size_t i = to; i <= from; ++i)
      if (!mark_[order_[i]])
        out[at++] = order_[i];
      else
        mark_[order_[i]] = 0;
  }

  // The node at `from` and its users in (from, to] placed just after the
  // node now at `to`. Writes `out` in [from, to] only.
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
    size_t at = from;
    for (size_t i = from; i <= to; ++i)
      if (!mark_[order_[i]])
        out[at++] = order_[i];
    for (size_t i = from; i <= to; ++i)
      if (mark_[order_[i]]) {
        out[at++] = order_[i];
        mark_[order_[i]] = 0;
      }
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

namespace {

// The improved policy's search: for each exposed collective, most exposed
// first, try to issue its start earlier, then to sink its wait later, then
// to relieve the stream it queued on; a move is kept only when the
// simulated step shortens within the memory limit and the caps. Passes
// repeat while one improves, within the trial budget.
class LocalSearch {
public:
  LocalSearch(const ScheduleAnalysis& a, const SimulationPlan& plan, std::vector<NodeId> order,
              int64_t memory_limit, const LimitUse& caps, int max_trials)
      : a_(a), plan_(plan), rt_(a.runtimes), memory_limit_(memory_limit), caps_(caps),
        max_trials_(max_trials), n_(order.size()), order_(std::move(order)), pos_(n_),
        failed_(a.collectives.size()), build_(a.deps, order_, pos_), prefix_(plan),
        peak_(a.storages, pos_), limits_(a) {}

  RefineResult run() {
    index(0, n_);
    trial_ = order_;
    r_.step_ms_before = best_ = prefix_.reset(order_); // simulate_step's, to the bit
    r_.peak_bytes = peak_.reset(order_);
    // Rounds skip collectives whose trials would repeat; the search ends
    // only after a round that tried every one found nothing.
    for (bool improved = true, skipped = false; (improved || skipped) && !out_of_budget();) {
      const bool skip = improved;
      improved = skipped = false;
      const SimulationResult sim = simulate_step(plan_, order_);
      times_stale_ = true;
      for (const CollectiveOutcome* c : most_exposed_first(sim)) {
        if (out_of_budget())
          break;
        const double exposure = sim.collective_exposed_ms[c->start];
        FailedAttempt& failed = failed_[static_cast<size_t>(&*c - a_.collectives.data())];
        if (skip && failed.still_fails(exposure, kept_)) {
          skipped = true;
          continue;
        }
        tried_first_ = n_;
        tried_last_ = 0;
        const bool moved = hoist_start(*c, exposure);
        const bool sunk = sink_wait(*c, exposure);
        if (moved || sunk || relieve_stream(*c)) {
          improved = true;
          times_stale_ = true;
          failed.valid = false;
        } else {
          failed = {true, exposure, kept_.size(), tried_first_, tried_last_};
        }
      }
    }
    r_.order = std::move(order_);
    r_.step_ms_after = best_;
    return r_;
  }

private:
  void index(size_t first, size_t end) {
    for (size_t i = first; i < end; ++i)
      pos_[static_cast<size_t>(order_[i])] = static_cast<NodeId>(i);
  }

  // trial_ equals order_ but in [first, last]: the window of the last
  // candidate built, which the next one overwrites.
  void restore_trial() {
    std::copy(order_.begin() + static_cast<std::ptrdiff_t>(changed_first_),
              order_.begin() + static_cast<std::ptrdiff_t>(changed_last_) + 1,
              trial_.begin() + static_cast<std::ptrdiff_t>(changed_first_));
    changed_first_ = 0;
    changed_last_ = 0;
  }

  bool out_of_budget() {
    if (r_.trials >= max_trials_)
      r_.budget_exhausted = true;
    return r_.budget_exhausted;
  }

  bool is_compute(size_t at) const {
    return a_.kind[static_cast<size_t>(order_[at])] == NodeKind::Compute;
  }

  // The candidate in trial_, changed in [first, last]: kept when shorter
  // and within the limit.
  bool keep_if_better(size_t first, size_t last) {
    ++r_.trials;
    changed_first_ = first;
    changed_last_ = last;
    tried_first_ = std::min(tried_first_, first);
    tried_last_ = std::max(tried_last_, last);
    const double step = prefix_.shorter_step_ms(trial_, first, last);
    if (step >= best_ - kShorterMs)
      return false;
    const int64_t peak = peak_.peak(trial_, first, last);
    if (peak > memory_limit_ || !within_caps(limits_.measure(trial_), caps_))
      return false;
    kept_.emplace_back(first, last);
    order_.swap(trial_); // trial_ now holds the old order: it differs in the window
    index(first, last + 1);
    best_ = prefix_.update(order_, first, last); // exact, where `step` came off the tails
    peak_.accept();
    r_.peak_bytes = peak;
    ++r_.moves;
    return true;
  }

  bool hoist(size_t from, size_t to) {
    if (to >= from || out_of_budget())
      return false;
    restore_trial();
    build_.hoist(from, to, trial_);
    return keep_if_better(to, from);
  }

  bool sink(size_t from, size_t to) {
    if (to <= from || out_of_budget())
      return false;
    restore_trial();
    build_.sink(from, to, trial_);
    return keep_if_better(from, to);
  }

  // Exposed collectives, the most exposed first; ties by node for determinism.
  std::vector<const CollectiveOutcome*> most_exposed_first(const SimulationResult& sim) const {
    std::vector<const CollectiveOutcome*> exposed;
    for (const CollectiveOutcome& c : a_.collectives)
      if (c.schedulable && c.wait >= 0 && sim.collective_exposed_ms[c.start] > 0)
        exposed.push_back(&c);
    std::stable_sort(exposed.begin(), exposed.end(), [&](const auto* x, const auto* y) {
      return sim.collective_exposed_ms[x->start] > sim.collective_exposed_ms[y->start];
    });
    return exposed;
  }

  // Start: just early enough for the compute passed over to cover the
  // exposure, else to just after its last input, else halfway; where those
  // cost memory or delay the group's other collectives, one compute node
  // further at a time, nearest first (taking the producer along once past it).
  bool hoist_start(const CollectiveOutcome& c, double exposure) {
    const size_t at = static_cast<size_t>(pos_[c.start]);
    size_t earliest = 0;
    auto [ib, ie] = a_.deps.inputs(c.start);
    for (auto p = ib; p != ie; ++p)
      earliest = std::max(earliest, static_cast<size_t>(pos_[*p]) + 1);
    size_t covering = at;
    for (double covered = 0; covering > 0 && covered < exposure;) {
      --covering;
      if (is_compute(covering))
        covered += rt_.ms[static_cast<size_t>(order_[covering])];
    }
    for (size_t to : {covering, earliest, (earliest + at) / 2, (covering + at) / 2})
      if (hoist(at, to))
        return true;
    for (size_t to = at, steps = 0; to > 0 && steps < kSteps;) {
      --to;
      if (!is_compute(to))
        continue;
      ++steps;
      if (hoist(at, to))
        return true;
    }
    return false;
  }

  // Wait: just late enough for the compute it lets run first to cover the
  // exposure, else to just before its first user, else halfway; then one
  // compute node further at a time.
  bool sink_wait(const CollectiveOutcome& c, double exposure) {
    const size_t wat = static_cast<size_t>(pos_[c.wait]);
    size_t latest = n_ - 2; // the output stays last
    auto [ub, ue] = a_.deps.users(c.wait);
    for (auto p = ub; p != ue; ++p)
      latest = std::min(latest, static_cast<size_t>(pos_[*p]) - 1);
    size_t sinking = wat;
    for (double covered = 0; sinking < n_ - 2 && covered < exposure;) {
      ++sinking;
      if (is_compute(sinking))
        covered += rt_.ms[static_cast<size_t>(order_[sinking])];
    }
    for (size_t to : {sinking, latest, (latest + wat + 1) / 2})
      if (sink(wat, to))
        return true;
    for (size_t to = wat, steps = 0; to < n_ - 2 && steps < kSteps;) {
      ++to;
      if (!is_compute(to))
        continue;
      ++steps;
      if (sink(wat, to))
        return true;
    }
    return false;
  }

  // Still exposed because its stream was busy: the collectives queued ahead
  // of it since the stream was last idle delay it. Issue the first of them
  // earlier (with its producer), or run a later one ahead of it in the idle
  // time before.
  bool relieve_stream(const CollectiveOutcome& c) {
    if (times_stale_) {
      st_ = stream_times(a_, plan_, order_);
      times_stale_ = false;
    }
    const auto& run = st_.runs[static_cast<size_t>(
        a_.group_of[static_cast<size_t>(a_.collective_of[static_cast<size_t>(c.start)])])];
    if (st_.slot[static_cast<size_t>(c.start)] < 0)
      return false;
    const size_t k = static_cast<size_t>(st_.slot[static_cast<size_t>(c.start)]);
    size_t first = k;
    while (first > 0 && st_.start[static_cast<size_t>(run[first])] <=
                            st_.end[static_cast<size_t>(run[first - 1])] + 1e-9)
      --first;
    if (first == k)
      return false;
    const size_t head = static_cast<size_t>(pos_[run[first]]);
    for (size_t to = head, steps = 0; to > 0 && steps < kSteps;) {
      --to;
      if (!is_compute(to))
        continue;
      ++steps;
      if (hoist(head, to))
        return true;
    }
    // Idle stretches of the stream before the busy period, latest first: a
    // collective issued just after the one before such a stretch runs in it.
    std::vector<size_t> idle_after;
    for (size_t j = first; j > 0 && idle_after.size() < kIdleGaps; --j)
      if (st_.start[static_cast<size_t>(run[j])] > st_.end[static_cast<size_t>(run[j - 1])] + 1e-9)
        idle_after.push_back(j - 1);
    for (size_t m = first + 1; m <= k && m <= first + kBusyMembers; ++m) {
      if (hoist(static_cast<size_t>(pos_[run[m]]), static_cast<size_t>(pos_[run[first]])))
        return true;
      for (size_t i = 0; i < idle_after.size(); ++i)
        if (hoist(static_cast<size_t>(pos_[run[m]]),
                  static_cast<size_t>(pos_[run[idle_after[i]]]) + 1))
          return true;
    }
    return false;
  }

  const ScheduleAnalysis& a_;
  const SimulationPlan& plan_;
  const RuntimeTable& rt_;
  const int64_t memory_limit_;
  const LimitUse& caps_;
  const int max_trials_;
  const size_t n_;
  std::vector<NodeId> order_, pos_, trial_;
  size_t changed_first_ = 0, changed_last_ = 0;
  // The windows of the moves kept so far, in order.
  std::vector<std::pair<size_t, size_t>> kept_;
  // A collective whose moves all failed is not tried again while its
  // exposure stays the same and no kept move touched the positions its
  // trials spanned: its trials would build the same orders again (a move
  // elsewhere leaves these positions as they were).
  struct FailedAttempt {
    bool valid = false;
    double exposure = 0;
    size_t kept = 0; // kept_.size() then
    size_t first = 0, last = 0;
    bool still_fails(double now, const std::vector<std::pair<size_t, size_t>>& kept) const {
      if (!valid || now != exposure)
        return false;
      for (size_t k = this->kept; k < kept.size(); ++k)
        if (kept[k].first <= last && first <= kept[k].second)
          return false;
      return true;
    }
  };
  std::vector<FailedAttempt> failed_;
  size_t tried_first_ = 0, tried_last_ = 0; // the span of the current collective's trials
  MoveBuilder build_;
  PrefixSimulator prefix_; // candidates differ from order_ only within the positions moved over
  WindowPeak peak_;        // likewise
  LimitMeter limits_;
  RefineResult r_;
  double best_ = 0;
  StreamTimes st_;
  bool times_stale_ = true;
};

} // namespace

RefineResult refine_order(const ScheduleAnalysis& a, const SimulationPlan& plan,
                          std::vector<NodeId> order, int64_t memory_limit, const LimitUse& caps,
                          int max_trials) {
  return LocalSearch(a, plan, std::move(order), memory_limit, caps, max_trials).run();
}

} // namespace osched
