#include "report/simulation_model_json.h"

namespace osched {
namespace {

const char* role_name(SimulationPlan::Role r) {
  switch (r) {
  case SimulationPlan::Role::Passive:
    return "passive";
  case SimulationPlan::Role::Collective:
    return "collective";
  case SimulationPlan::Role::Reader:
    return "reader";
  case SimulationPlan::Role::Compute:
    return "compute";
  }
  return "passive";
}

} // namespace

nlohmann::json simulation_model_json(const Graph& g, const SimulationPlan& plan,
                                     int64_t memory_budget_bytes) {
  using nlohmann::json;
  const InputLists inputs = build_input_lists(g);
  json nodes = json::array();
  for (size_t v = 0; v < g.nodes.size(); ++v) {
    json in = json::array(), waits = json::array();
    auto [b, e] = inputs.of(static_cast<NodeId>(v));
    for (const NodeId* p = b; p != e; ++p)
      in.push_back(*p);
    for (int64_t k = plan.blocks_offset[v]; k < plan.blocks_offset[v + 1]; ++k)
      waits.push_back(plan.blocks_on[static_cast<size_t>(k)]);
    nodes.push_back({{"name", g.nodes[v].name},
                     {"role", role_name(plan.role[v])},
                     {"ms", plan.ms[v]},
                     {"group", plan.group[v]},
                     {"inputs", std::move(in)},
                     {"waits_on", std::move(waits)}});
  }
  return {{"format", "overlap-sched.sim-model"},
          {"version", 1},
          {"about", "sim/simulate.h's model of the written graph: one compute stream runs "
                    "compute nodes and timed readers in order; each group's stream runs its "
                    "collectives in issue order; a node waits for the collectives in waits_on"},
          {"groups", plan.group_names},
          {"memory_budget_bytes", memory_budget_bytes},
          {"nodes", std::move(nodes)}};
}

} // namespace osched
