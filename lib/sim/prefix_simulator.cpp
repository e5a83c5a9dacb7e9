#include "sim/prefix_simulator.h"

#include <algorithm>
#include <limits>

namespace osched {
namespace {
// States are kept about this many times per order, and not where more
// collectives than this are in flight (memory stays O(N)).
constexpr size_t kStates = 256;
constexpr size_t kMaxInFlight = 4096;
} // namespace

PrefixSimulator::PrefixSimulator(const SimulationPlan& plan)
    : plan_(plan), finish_(plan.role.size(), -1.0), tail_in_flight_(plan.role.size(), 0),
      tail_from_(plan.role.size(), 0), consumer_(plan.role.size(), -1), open_(plan.role.size(), 0) {
}

void PrefixSimulator::run(const std::vector<NodeId>& order, size_t from, size_t to) {
  using Role = SimulationPlan::Role;
  for (size_t i = from; i < to; ++i) {
    const NodeId v = order[i];
    switch (plan_.role[v]) {
    case Role::Passive:
      break;
    case Role::Collective: {
      double& free = stream_free_[static_cast<size_t>(plan_.group[v])];
      const double start = std::max(t_, free);
      free = finish_[v] = start + plan_.ms[v];
      issued_.push_back(v);
      ++in_flight_;
      break;
    }
    case Role::Reader:
    case Role::Compute:
      for (int64_t k = plan_.blocks_offset[v]; k < plan_.blocks_offset[v + 1]; ++k) {
        const NodeId src = plan_.blocks_on[static_cast<size_t>(k)];
        if (finish_[src] >= 0) {
          if (finish_[src] > t_)
            t_ = finish_[src];
          finish_[src] = -1;
          --in_flight_;
        }
      }
      // As simulate_step: every node with a runtime runs on the compute stream.
      if (plan_.role[v] == Role::Compute || plan_.ms[v] > 0)
        t_ += plan_.ms[v];
      break;
    }
  }
}

void PrefixSimulator::capture(State& s) {
  scratch_.clear();
  size_t kept = 0;
  for (NodeId v : issued_)
    if (finish_[v] >= 0) {
      issued_[kept++] = v;
      scratch_.emplace_back(v, finish_[v]);
    }
  issued_.resize(kept);
  s.kept = scratch_.size() <= kMaxInFlight;
  if (!s.kept)
    return;
  std::sort(scratch_.begin(), scratch_.end());
  s.t = t_;
  s.stream_free = stream_free_;
  s.in_flight = scratch_;
}

void PrefixSimulator::restore(const State& s) {
  for (NodeId v : issued_)
    finish_[v] = -1;
  issued_.clear();
  for (const auto& [v, f] : s.in_flight) {
    finish_[v] = f;
    issued_.push_back(v);
  }
  in_flight_ = s.in_flight.size();
  t_ = s.t;
  stream_free_ = s.stream_free;
}

// The last kept state at or before position `first` becomes the running
// one; returns its index.
size_t PrefixSimulator::restore_before(size_t first) {
  size_t k = std::min(first / every_, states_.size() - 1);
  while (k > 0 && !states_[k].kept)
    --k;
  restore(states_[k]);
  return k;
}

// Both states hold the same collectives in flight: the same nodes ran
// before this position, in another order.
bool PrefixSimulator::same_as(const State& s) const {
  if (!s.kept || t_ != s.t || stream_free_ != s.stream_free || in_flight_ != s.in_flight.size())
    return false;
  // The same count of the same set: each of the state's is in flight here.
  for (const auto& [v, f] : s.in_flight)
    if (finish_[static_cast<size_t>(v)] != f)
      return false;
  return true;
}

// Collectives nobody waited on still finish before the step ends.
double PrefixSimulator::finish_step() {
  for (NodeId v : issued_)
    if (finish_[v] >= 0 && finish_[v] > t_)
      t_ = finish_[v];
  return t_;
}

double PrefixSimulator::reset(const std::vector<NodeId>& reference) {
  const size_t n = reference.size();
  every_ = std::max<size_t>(64, n / kStates + 1);
  State start;
  start.stream_free.assign(static_cast<size_t>(plan_.groups), 0.0);
  start.kept = true;
  restore(start);
  states_.assign(n / every_ + 1, State{});
  const double step = simulate_reference(reference, 0);
  find_tails(reference, 0, n == 0 ? 0 : n - 1);
  return step;
}

double PrefixSimulator::update(const std::vector<NodeId>& reference, size_t first, size_t last) {
  const size_t k = restore_before(first);
  run(reference, k * every_, std::min(reference.size(), (k + 1) * every_));
  const double step = simulate_reference(reference, k + 1);
  find_tails(reference, first, last);
  return step;
}

// From the running state, which is the one before position k * every_.
double PrefixSimulator::simulate_reference(const std::vector<NodeId>& reference, size_t k) {
  const size_t n = reference.size();
  for (; k < states_.size(); ++k) {
    capture(states_[k]);
    run(reference, k * every_, std::min(n, (k + 1) * every_));
  }
  reference_step_ = finish_step();
  return reference_step_;
}

// The tails of positions up to `last`; those after it are the last
// reference's (they depend on the positions after them alone). With
// `last` the end, all of them.
void PrefixSimulator::find_tails(const std::vector<NodeId>& reference, size_t first, size_t last) {
  using Role = SimulationPlan::Role;
  const size_t n = reference.size();
  const bool all = first == 0 && last + 1 >= n;
  const double never = -std::numeric_limits<double>::infinity();
  auto weight = [&](NodeId v) { // what a reader or compute node adds to the stream
    return plan_.role[v] == Role::Compute || plan_.ms[v] > 0 ? plan_.ms[v] : 0.0;
  };
  // Each group's collectives by position: those in [first, last] moved.
  if (all) {
    group_issues_.assign(static_cast<size_t>(plan_.groups), {});
    tail_t_.assign(n + 1, 0.0);
  }
  std::vector<size_t> at(static_cast<size_t>(plan_.groups), 0);
  if (!all)
    for (size_t g = 0; g < at.size(); ++g)
      at[g] = static_cast<size_t>(std::lower_bound(group_issues_[g].begin(), group_issues_[g].end(),
                                                   std::make_pair(first, NodeId{-1})) -
                                  group_issues_[g].begin());
  for (size_t p = first; p <= last && p < n; ++p) {
    const NodeId v = reference[p];
    if (plan_.role[v] != Role::Collective)
      continue;
    const auto g = static_cast<size_t>(plan_.group[v]);
    if (all)
      group_issues_[g].emplace_back(p, v);
    else
      group_issues_[g][at[g]++] = {p, v};
  }
  // Forward to `last`: the position that first blocks on each collective
  // issued there, as run() consumes them. One still open at `last` is
  // blocked on after it, where nothing moved: its position stands.
  for (size_t p = 0; p <= last && p < n; ++p) {
    const NodeId v = reference[p];
    if (plan_.role[v] == Role::Collective) {
      open_[v] = 1;
      if (all)
        consumer_[v] = -1;
    } else if (plan_.role[v] == Role::Reader || plan_.role[v] == Role::Compute) {
      for (int64_t k = plan_.blocks_offset[v]; k < plan_.blocks_offset[v + 1]; ++k) {
        const NodeId src = plan_.blocks_on[static_cast<size_t>(k)];
        if (open_[src]) {
          consumer_[src] = static_cast<int64_t>(p);
          open_[src] = 0;
        }
      }
    }
  }
  // Backward from `last`: each tail from the ones after it.
  std::vector<NodeId> next_on_group(static_cast<size_t>(plan_.groups), -1);
  for (size_t g = 0; g < next_on_group.size(); ++g) {
    const auto& issues = group_issues_[g];
    auto it = std::lower_bound(issues.begin(), issues.end(), std::make_pair(last + 1, NodeId{-1}));
    if (it != issues.end())
      next_on_group[g] = it->second;
  }
  for (size_t p = std::min(last + 1, n); p-- > 0;) {
    const NodeId v = reference[p];
    switch (plan_.role[v]) {
    case Role::Passive:
      tail_t_[p] = tail_t_[p + 1];
      break;
    case Role::Reader:
    case Role::Compute:
      tail_t_[p] = tail_t_[p + 1] + weight(v);
      break;
    case Role::Collective: {
      open_[v] = 0;
      const int64_t c = consumer_[v];
      // Never blocked on: its finish ends the step at the latest.
      tail_in_flight_[v] =
          c >= 0 ? tail_t_[static_cast<size_t>(c) + 1] + weight(reference[static_cast<size_t>(c)])
                 : 0.0;
      NodeId& next = next_on_group[static_cast<size_t>(plan_.group[v])];
      const double after = std::max(tail_in_flight_[v], next >= 0 ? tail_from_[next] : never);
      tail_from_[v] = plan_.ms[v] + after;
      next = v;
      tail_t_[p] = std::max(tail_t_[p + 1], tail_from_[v]);
      break;
    }
    }
  }
}

// The running state is the one before position q, which starts the part
// the candidate shares with the reference.
double PrefixSimulator::step_by_tails(size_t q) const {
  double step = t_ + tail_t_[q];
  for (size_t g = 0; g < group_issues_.size(); ++g) {
    const auto& issues = group_issues_[g];
    auto it = std::lower_bound(issues.begin(), issues.end(), std::make_pair(q, NodeId{-1}));
    if (it != issues.end())
      step = std::max(step, stream_free_[g] + tail_from_[it->second]);
  }
  for (NodeId v : issued_)
    if (finish_[v] >= 0)
      step = std::max(step, finish_[v] + tail_in_flight_[v]);
  return step;
}

double PrefixSimulator::shorter_step_ms(const std::vector<NodeId>& order, size_t first,
                                        size_t last) {
  const size_t k = restore_before(first);
  const size_t q = std::min(order.size(), last + 1);
  run(order, k * every_, q);
  const double step = step_by_tails(q);
  return step < reference_step_ - kShorterMs ? step : reference_step_;
}

double PrefixSimulator::step_ms(const std::vector<NodeId>& order, size_t first, size_t last) {
  const size_t n = order.size();
  const size_t k = restore_before(first);
  // Up to the first kept state past the window, then state by state.
  size_t pos = k * every_;
  for (size_t next = k + 1; pos < n; ++next) {
    const size_t stop = std::min(n, next * every_);
    run(order, pos, stop);
    pos = stop;
    if (pos > last && next < states_.size() && same_as(states_[next]))
      return reference_step_;
  }
  return finish_step();
}

} // namespace osched
