#include "sim/prefix_simulator.h"

#include <algorithm>

namespace osched {
namespace {
// States are kept about this many times per order, and not where more
// collectives than this are in flight (memory stays O(N)).
constexpr size_t kStates = 256;
constexpr size_t kMaxInFlight = 4096;
} // namespace

PrefixSimulator::PrefixSimulator(const SimulationPlan& plan)
    : plan_(plan), finish_(plan.role.size(), -1.0) {}

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

// Both states hold the same collectives in flight: the same nodes ran
// before this position, in another order.
PrefixSimulator::Versus PrefixSimulator::compare(const State& s) {
  if (!s.kept)
    return Versus::Unknown;
  bool same = t_ == s.t, no_earlier = t_ >= s.t;
  for (size_t g = 0; g < stream_free_.size() && no_earlier; ++g) {
    same &= stream_free_[g] == s.stream_free[g];
    no_earlier &= stream_free_[g] >= s.stream_free[g];
  }
  if (!no_earlier || in_flight_ != s.in_flight.size())
    return Versus::Unknown;
  // The same count of the same set: each of the state's is in flight here.
  for (const auto& [v, f] : s.in_flight) {
    const double now = finish_[static_cast<size_t>(v)];
    if (now < f)
      return Versus::Unknown;
    same &= now == f;
  }
  return same ? Versus::Same : Versus::NoEarlier;
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
  return simulate_reference(reference, 0);
}

double PrefixSimulator::update(const std::vector<NodeId>& reference, size_t first) {
  size_t k = std::min(first / every_, states_.size() - 1);
  while (k > 0 && !states_[k].kept)
    --k;
  restore(states_[k]);
  run(reference, k * every_, std::min(reference.size(), (k + 1) * every_));
  return simulate_reference(reference, k + 1);
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

double PrefixSimulator::step_ms(const std::vector<NodeId>& order, size_t first, size_t last) {
  return resume(order, first, last, false);
}

double PrefixSimulator::shorter_step_ms(const std::vector<NodeId>& order, size_t first,
                                        size_t last) {
  return resume(order, first, last, true);
}

double PrefixSimulator::resume(const std::vector<NodeId>& order, size_t first, size_t last,
                               bool stop_no_shorter) {
  const size_t n = order.size();
  size_t k = std::min(first / every_, states_.size() - 1);
  while (k > 0 && !states_[k].kept)
    --k;
  restore(states_[k]);
  // Up to the first kept state past the window, then state by state.
  size_t pos = k * every_;
  for (size_t next = k + 1; pos < n; ++next) {
    const size_t stop = std::min(n, next * every_);
    run(order, pos, stop);
    pos = stop;
    if (pos <= last || next >= states_.size())
      continue;
    const Versus v = compare(states_[next]);
    if (v == Versus::Same || (v == Versus::NoEarlier && stop_no_shorter))
      return reference_step_;
  }
  return finish_step();
}
} // namespace osched
