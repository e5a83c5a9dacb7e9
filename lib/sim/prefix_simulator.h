#pragma once
// The simulated step of many candidate orders that each differ from one
// reference order only inside a window (the local search's moves). The
// reference is simulated once, keeping the simulation's state every so many
// positions; a candidate resumes from the last state before its window and,
// past the window, stops as soon as its state equals the reference's at the
// same position (from there on both run the same nodes the same way). The
// step equals simulate_step(plan, order).step_ms to the bit: the same
// operations run on the same values in the same order.
//
// A search needs only the candidates that are shorter, and for valid
// orders (every collective before the nodes that block on it)
// shorter_step_ms simulates no further than the window. The simulation is
// max-plus (every time is a maximum of earlier times plus runtimes): with
// each reference simulation, one backward pass finds how much each time of
// the state adds to the step (the longest path from it to the end: from the
// compute stream's time before each position, from a collective's finish
// while in flight, from a group's stream before its next collective), and
// past the window a candidate's step is the largest of its state's times
// plus those tails.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "sim/simulate.h"

namespace osched {

// How much shorter a candidate must be to count as shorter (1 ns): less is
// within the rounding of summing the same runtimes in another order.
constexpr double kShorterMs = 1e-6;

class PrefixSimulator {
public:
  explicit PrefixSimulator(const SimulationPlan& plan);

  // Simulates `reference` and returns its step.
  double reset(const std::vector<NodeId>& reference);
  // The same for a valid reference equal to the last one outside positions
  // [first, last]: simulated again from `first` only.
  double update(const std::vector<NodeId>& reference, size_t first, size_t last);
  // The step of `order`, equal to the reference outside positions
  // [first, last].
  double step_ms(const std::vector<NodeId>& order, size_t first, size_t last);
  // For a valid `order`: its step where it is shorter than the reference's
  // by more than a nanosecond (equal to step_ms up to rounding: the tails
  // sum the same runtimes in another order); otherwise the reference's.
  double shorter_step_ms(const std::vector<NodeId>& order, size_t first, size_t last);

private:
  struct State {
    double t = 0;
    std::vector<double> stream_free;
    std::vector<std::pair<NodeId, double>> in_flight; // (collective, finish), by node
    bool kept = false; // too many in flight to keep: resume from an earlier one
  };

  const SimulationPlan& plan_;
  size_t every_ = 0;
  std::vector<State> states_; // states_[k]: before position k * every_
  double reference_step_ = 0;
  // The running simulation.
  double t_ = 0;
  std::vector<double> stream_free_;
  std::vector<double> finish_; // per node: >= 0 while a collective is in flight
  std::vector<NodeId> issued_; // collectives whose finish_ may be set
  size_t in_flight_ = 0;       // of them, those with finish_ set
  std::vector<std::pair<NodeId, double>> scratch_;
  // The reference's tails (see above): tail_t_[q] from the compute
  // stream's time before position q; per collective node, from its finish
  // while in flight and from the time its stream is free before it issues
  // (its runtime and all after); per group, its collectives' (position, node).
  std::vector<double> tail_t_, tail_in_flight_, tail_from_;
  std::vector<std::vector<std::pair<size_t, NodeId>>> group_issues_;
  // Per collective node: the position that first blocks on it (-1: none),
  // and whether it is issued and not yet blocked on during find_tails.
  std::vector<int64_t> consumer_;
  std::vector<char> open_;

  void run(const std::vector<NodeId>& order, size_t from, size_t to);
  double simulate_reference(const std::vector<NodeId>& reference, size_t k);
  void capture(State& s);
  void restore(const State& s);
  size_t restore_before(size_t first);
  bool same_as(const State& s) const;
  double finish_step();
  void find_tails(const std::vector<NodeId>& reference, size_t first, size_t last);
  double step_by_tails(size_t q) const;
};

} // namespace osched
