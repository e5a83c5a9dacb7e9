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
// A search needs only the candidates that are shorter. The simulation is
// max-plus (every time is a maximum of earlier times plus runtimes), so past
// the window the rest of the step is a max-plus function of the state: a
// candidate whose every time in its state (the compute stream, each group's
// stream, each collective in flight) is no earlier than the reference's at
// the same position ends no earlier either, and shorter_step_ms stops there.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "sim/simulate.h"

namespace osched {

class PrefixSimulator {
public:
  explicit PrefixSimulator(const SimulationPlan& plan);

  // Simulates `reference` and returns its step.
  double reset(const std::vector<NodeId>& reference);
  // The same for a reference equal to the last one before position
  // `first`: simulated again from there only.
  double update(const std::vector<NodeId>& reference, size_t first);
  // The step of `order`, equal to the reference outside positions
  // [first, last].
  double step_ms(const std::vector<NodeId>& order, size_t first, size_t last);
  // The same step where it is shorter than the reference's; otherwise the
  // reference's step, returned as soon as the state proves it no shorter.
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

  void run(const std::vector<NodeId>& order, size_t from, size_t to);
  double simulate_reference(const std::vector<NodeId>& reference, size_t k);
  void capture(State& s);
  void restore(const State& s);
  // How the running state stands against a kept state of the reference.
  enum class Versus : uint8_t { Same, NoEarlier, Unknown };
  Versus compare(const State& s);
  double resume(const std::vector<NodeId>& order, size_t first, size_t last, bool stop_no_shorter);
  double finish_step();
};

} // namespace osched
