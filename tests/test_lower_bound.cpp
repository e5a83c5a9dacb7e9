// The lower bound is a bound: on small random graphs no order of the graph,
// found by trying them all, simulates below it; and a case by hand where
// two groups' blocking collectives run at once (the bound once added them).

#include <catch2/catch.hpp>

#include <random>
#include <string>
#include <vector>

#include "cost/estimator.h"
#include "every_order.h"
#include "format/graph_file.h"
#include "scheduler/lower_bound.h"
#include "sim/simulate.h"
#include "test_support.h"

using namespace osched;
using namespace osched::test;

namespace {

const char* kMeta = R"("val":{"shape":[4,4],"stride":[4,1],"dtype":"float32","device":"cuda:0"})";

std::string node(const std::string& name, const std::string& target, const std::string& args) {
  return R"({"name":")" + name + R"(","op":"call_function","target":")" + target + R"(","args":[)" +
         args + "]," + kMeta + "}";
}
std::string node_ref_json(const std::string& name) {
  return R"({"node":")" + name + R"("})";
}

// A graph of `steps` random steps over x: a matmul of two earlier tensors,
// or an all-reduce of one (group a or b) with its wait; runtimes 1-3 ms.
struct RandomGraph {
  Graph g;
  RuntimeTable rt;
};

RandomGraph random_graph(std::mt19937& rng, int steps) {
  std::vector<std::string> tensors{"x"}; // usable as inputs
  std::vector<bool> used{false};
  std::string nodes = R"({"name":"x","op":"placeholder","target":"x",)" + std::string(kMeta) + "}";
  std::vector<double> ms{0};
  for (int i = 0; i < steps; ++i) {
    auto pick = [&] {
      const size_t k = rng() % tensors.size();
      used[k] = true;
      return tensors[k];
    };
    if (rng() % 2 == 0) {
      const std::string name = "mm" + std::to_string(i);
      nodes +=
          "," + node(name, "aten.mm.default", node_ref_json(pick()) + "," + node_ref_json(pick()));
      ms.push_back(1 + rng() % 3);
      tensors.push_back(name);
      used.push_back(false);
    } else {
      const std::string name = "ar" + std::to_string(i);
      const std::string group = rng() % 2 ? "a" : "b";
      nodes += "," + node(name, "_c10d_functional.all_reduce.default",
                          node_ref_json(pick()) + R"(,"sum",")" + group + "\"");
      nodes +=
          "," + node(name + "_wait", "_c10d_functional.wait_tensor.default", node_ref_json(name));
      ms.push_back(1 + rng() % 3);
      ms.push_back(0);
      tensors.push_back(name + "_wait");
      used.push_back(false);
    }
  }
  std::string outs;
  for (size_t k = 0; k < tensors.size(); ++k)
    if (!used[k])
      outs += (outs.empty() ? "" : ",") + node_ref_json(tensors[k]);
  nodes += R"(,{"name":"output","op":"output","target":"output","args":[[)" + outs + "]]}";
  ms.push_back(0);
  RandomGraph r{graph_from_json_text(
                    R"({"format":"overlap-sched.graph","version":1,"world_size":4,
      "process_groups":{"a":{"ranks":[0,1,2,3]},"b":{"ranks":[0,1,2,3]}},"nodes":[)" +
                    nodes + "]}"),
                {}};
  r.rt.ms = ms;
  r.rt.source.assign(ms.size(), RuntimeSource::Custom);
  return r;
}

double best_step(const Graph& g, const RuntimeTable& rt) {
  return best_step_over_orders(g, make_simulation_plan(g, rt));
}

} // namespace

TEST_CASE("lower bound: no order of a small random graph simulates below it (all orders tried)") {
  std::mt19937 rng(20261205);
  int tight = 0, with_blocking = 0;
  for (int trial = 0; trial < 60; ++trial) {
    RandomGraph r = random_graph(rng, 3 + static_cast<int>(rng() % 3));
    INFO("trial " << trial);
    const StepLowerBound b = step_lower_bound(r.g, r.rt);
    // The batched bits and the walk per collective (given room for every
    // walk) find the same blocking collectives; the sets of exclusive
    // communication need the bits, so the walks' bound is no higher.
    const StepLowerBound walked = step_lower_bound(r.g, r.rt, int64_t{1} << 40);
    CHECK(walked.complete);
    CHECK(walked.blocking_comm_ms == b.blocking_comm_ms);
    CHECK(walked.step_ms <= b.step_ms);
    CHECK(walked.through_collective_ms == Approx(b.through_collective_ms));
    const double best = best_step(r.g, r.rt);
    CHECK(best >= b.step_ms - 1e-9);
    tight += best <= b.step_ms + 1e-9;
    with_blocking += b.blocking_comm_ms > 0;
  }
  // The bound is not vacuous: often exact, and its blocking term is used.
  CHECK(tight >= 30);
  CHECK(with_blocking >= 5);
}

TEST_CASE("lower bound: blocking transfers of two groups may run at once, so they are not added") {
  // x -> ar_a (group a, 2 ms), ar_b (group b, 2 ms) -> waits -> mm (1 ms)
  // reading both: no compute is independent of either collective, but the
  // two transfers overlap each other: the best step is 2 + 1 ms.
  const Graph g = graph_from_json_text(
      R"({"format":"overlap-sched.graph","version":1,"world_size":4,
      "process_groups":{"a":{"ranks":[0,1,2,3]},"b":{"ranks":[0,1,2,3]}},"nodes":[
      {"name":"x","op":"placeholder","target":"x",)" +
      std::string(kMeta) + "}," +
      node("ar_a", "_c10d_functional.all_reduce.default", node_ref_json("x") + R"(,"sum","a")") +
      "," +
      node("ar_b", "_c10d_functional.all_reduce.default", node_ref_json("x") + R"(,"sum","b")") +
      "," + node("wa", "_c10d_functional.wait_tensor.default", node_ref_json("ar_a")) + "," +
      node("wb", "_c10d_functional.wait_tensor.default", node_ref_json("ar_b")) + "," +
      node("mm", "aten.mm.default", node_ref_json("wa") + "," + node_ref_json("wb")) +
      R"(,{"name":"output","op":"output","target":"output","args":[[{"node":"mm"}]]}]})");
  RuntimeTable rt;
  rt.ms = {0, 2, 2, 0, 0, 1, 0};
  rt.source.assign(rt.ms.size(), RuntimeSource::Custom);
  const StepLowerBound b = step_lower_bound(g, rt);
  CHECK(b.compute_ms == Approx(1.0));
  CHECK(b.blocking_comm_ms == Approx(2.0));
  CHECK(b.step_ms == Approx(3.0));
  CHECK(best_step(g, rt) == Approx(3.0));
}

TEST_CASE("lower bound: the batched bits find the blocking collectives the walks find, on the "
          "bundled graphs and a generated 2-D step") {
  AnalyticalEstimator analytical(default_hardware());
  for (const char* file : {"testdata/example_llama_fsdp.json", "testdata/fsdp_tiny.json",
                           "testdata/tp_two_groups.json"}) {
    INFO(file);
    const Graph g = read_graph_file(test::source_path(file));
    const RuntimeTable rt = estimate_runtimes(g, nullptr, nullptr, analytical);
    const StepLowerBound bits = step_lower_bound(g, rt);
    const StepLowerBound walked = step_lower_bound(g, rt, int64_t{1} << 40);
    CHECK(bits.complete);
    CHECK(walked.complete);
    CHECK(bits.blocking_comm_ms == walked.blocking_comm_ms);
    CHECK(walked.step_ms <= bits.step_ms);
    CHECK(bits.through_collective_ms ==
          Approx(walked.through_collective_ms)); // sums in another order
  }
}

TEST_CASE("lower bound: a chain of 100 all-reduces, each between two matmuls, blocks throughout "
          "(two batches of bits)") {
  // x -> mm0 -> ar0 -> w0 -> mm1 -> ar1 -> ... : every matmul comes before or
  // after every all-reduce, so each of the 100 (1 ms) blocks; the compute
  // is 101 matmuls of 0.5 ms. By hand: 50.5 + 100 ms.
  std::string nodes = R"({"name":"x","op":"placeholder","target":"x",)" + std::string(kMeta) +
                      "}," +
                      node("mm0", "aten.mm.default", node_ref_json("x") + "," + node_ref_json("x"));
  std::vector<double> ms{0, 0.5};
  for (int i = 0; i < 100; ++i) {
    const std::string k = std::to_string(i), prev = "mm" + k, next = "mm" + std::to_string(i + 1);
    nodes += "," +
             node("ar" + k, "_c10d_functional.all_reduce.default",
                  node_ref_json(prev) + R"(,"sum","a")") +
             "," + node("w" + k, "_c10d_functional.wait_tensor.default", node_ref_json("ar" + k)) +
             "," + node(next, "aten.mm.default", node_ref_json("w" + k) + "," + node_ref_json("x"));
    ms.insert(ms.end(), {1.0, 0.0, 0.5});
  }
  const Graph g = graph_from_json_text(
      R"({"format":"overlap-sched.graph","version":1,"world_size":4,
      "process_groups":{"a":{"ranks":[0,1,2,3]}},"nodes":[)" +
      nodes +
      R"(,{"name":"output","op":"output","target":"output","args":[[{"node":"mm100"}]]}]})");
  RuntimeTable rt;
  ms.push_back(0);
  rt.ms = ms;
  rt.source.assign(rt.ms.size(), RuntimeSource::Custom);
  const StepLowerBound bits = step_lower_bound(g, rt);
  const StepLowerBound walked = step_lower_bound(g, rt, int64_t{1} << 40);
  CHECK(bits.compute_ms == Approx(50.5));
  CHECK(bits.blocking_comm_ms == Approx(100.0));
  CHECK(bits.step_ms == Approx(150.5));
  CHECK(walked.blocking_comm_ms == bits.blocking_comm_ms);
}
