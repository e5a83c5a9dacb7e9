#pragma once
// The simulation's model of a graph as JSON (schedule --sim-model), for
// solvers outside the tool (scripts/bench/optimality.py): per node, in the
// graph's order, its role on the streams, its time, its group's stream, its
// inputs (data and control: what every order keeps) and the collectives it
// waits on. Simulating the nodes in this order by sim/simulate.h's rules
// gives the report's step.

#include <cstdint>

#include <nlohmann/json.hpp>

#include "graph/graph.h"
#include "sim/simulate.h"

namespace osched {

nlohmann::json simulation_model_json(const Graph& g, const SimulationPlan& plan,
                                     int64_t memory_budget_bytes);

} // namespace osched
