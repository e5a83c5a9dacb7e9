// Analytical cost models and the memory tracker.

#include <catch2/catch.hpp>

#include "cost/estimator.h"
#include "cost/flops.h"
#include "cost/fusion.h"
#include "cost/nccl_model.h"
#include "format/graph_file.h"
#include "format/json_io.h"
#include "memory/memory_tracker.h"
#include "scheduler/dependency_graph.h"
#include "test_support.h"

using namespace osched;
using namespace osched::test;

TEST_CASE("NCCL model: monotone in bytes, slower across nodes, zero for one rank") {
  HardwareSpec hw = default_hardware("H100-SXM");
  CollectiveShape small{CollectiveKind::AllGather, 1 << 20, 8, 1};
  CollectiveShape big{CollectiveKind::AllGather, 1 << 30, 8, 1};
  CollectiveShape cross{CollectiveKind::AllGather, 1 << 30, 16, 2};
  CHECK(estimate_nccl_ms(small, hw) > 0);
  CHECK(estimate_nccl_ms(big, hw) > estimate_nccl_ms(small, hw));
  CHECK(estimate_nccl_ms(cross, hw) > estimate_nccl_ms(big, hw));
  CHECK(estimate_nccl_ms({CollectiveKind::AllReduce, 1 << 20, 1, 1}, hw) == 0);
  // 1 GiB over NVLink at ~370 GB/s bus bandwidth: a few ms, not µs or seconds.
  double ms = estimate_nccl_ms(big, hw);
  CHECK(ms > 1.0);
  CHECK(ms < 10.0);
  // All-reduce moves twice the steps of an all-gather of the same bytes.
  CHECK(estimate_nccl_ms({CollectiveKind::AllReduce, 1 << 30, 8, 1}, hw) > ms);
}

TEST_CASE("roofline: matmul FLOPs and time from shapes") {
  Graph g = read_graph_file(source_path("testdata/tp_two_groups.json"));
  NodeId mm1 = *g.find("mm1");
  CHECK(count_flops(g, mm1) == 2.0 * 64 * 256 * 256);
  AnalyticalEstimator est(default_hardware("H100-SXM"));
  double ms = *est.compute_ms(g, mm1);
  // Small matmul: memory bound, so bytes / HBM bandwidth, plus 1 us launch.
  double bytes = (64 * 256 + 256 * 256 + 64 * 256) * 4.0;
  CHECK(ms == Approx(bytes / 3350e9 * 1e3 + 1e-3));
  // Every other kernel: its bytes read and written, plus the launch.
  CHECK(*est.compute_ms(g, *g.find("relu1")) == Approx(2 * 64 * 256 * 4.0 / 3350e9 * 1e3 + 1e-3));
  // The PyTorch pass this tool ports: matmuls at peak, no launch, others nothing.
  AnalyticalEstimator legacy(default_hardware("H100-SXM"), CostModel::ComputeOnly);
  CHECK(*legacy.compute_ms(g, mm1) == Approx(bytes / 3350e9 * 1e3));
  CHECK_FALSE(legacy.compute_ms(g, *g.find("relu1")).has_value());
}

TEST_CASE("kernel costs: compute-bound at matmul_efficiency, views and selections free") {
  // mm [8192, 8192] x [8192, 8192] bf16: 2 * 8192^3 FLOPs at 75% of 989
  // TFLOPS is 1.482 ms; its 384 MiB at 3350 GB/s only 0.120 ms.
  Graph g = graph_from_json_text(R"({"format":"overlap-sched.graph","version":1,"name":"k",
    "world_size":1,"process_groups":{},"nodes":[
    {"name":"a","op":"placeholder","target":"a","args":[],"kwargs":{},
     "val":{"shape":[8192,8192],"stride":[8192,1],"dtype":"bfloat16","device":"cuda:0"}},
    {"name":"b","op":"placeholder","target":"b","args":[],"kwargs":{},
     "val":{"shape":[1,8192],"stride":[0,1],"dtype":"bfloat16","device":"cuda:0"}},
    {"name":"mm","op":"call_function","target":"aten.mm.default","args":[{"node":"a"},{"node":"a"}],
     "kwargs":{},"val":{"shape":[8192,8192],"stride":[8192,1],"dtype":"bfloat16","device":"cuda:0"}},
    {"name":"t","op":"call_function","target":"aten.t.default","args":[{"node":"mm"}],"kwargs":{},
     "val":{"shape":[8192,8192],"stride":[1,8192],"dtype":"bfloat16","device":"cuda:0"}},
    {"name":"e","op":"call_function","target":"aten.expand.default","args":[{"node":"b"},[8192,8192]],
     "kwargs":{},"val":{"shape":[8192,8192],"stride":[0,1],"dtype":"bfloat16","device":"cuda:0"}},
    {"name":"add","op":"call_function","target":"aten.add.Tensor","args":[{"node":"t"},{"node":"e"}],
     "kwargs":{},"val":{"shape":[8192,8192],"stride":[8192,1],"dtype":"bfloat16","device":"cuda:0"}},
    {"name":"output","op":"output","target":"output","args":[[{"node":"add"}]],"kwargs":{}}]})");
  AnalyticalEstimator est(default_hardware("H100-SXM"));
  const double flops = 2.0 * 8192.0 * 8192.0 * 8192.0;
  CHECK(*est.compute_ms(g, *g.find("mm")) == Approx(flops / (989e12 * 0.75) * 1e3 + 1e-3));
  CHECK_FALSE(est.compute_ms(g, *g.find("t")).has_value());
  // add reads t (8192^2 * 2 bytes) and e, whose broadcast dim is read once
  // (8192 * 2 bytes), and writes 8192^2 * 2 bytes.
  const double add_bytes = 8192.0 * 8192 * 2 + 8192 * 2 + 8192.0 * 8192 * 2;
  CHECK(*est.compute_ms(g, *g.find("add")) == Approx(add_bytes / 3350e9 * 1e3 + 1e-3));
  // Hardware fields move both constants.
  HardwareSpec hw = default_hardware("H100-SXM");
  apply_hardware_overrides(hw, {{"matmul_efficiency", 0.5}, {"kernel_launch_us", 4}});
  AnalyticalEstimator tuned(hw);
  CHECK(*tuned.compute_ms(g, *g.find("mm")) == Approx(flops / (989e12 * 0.5) * 1e3 + 4e-3));
  CHECK_THROWS_WITH(apply_hardware_overrides(hw, {{"matmul_efficiency", 1.5}}),
                    "hardware.matmul_efficiency: must be at most 1");
}

TEST_CASE("kernel costs: --fusion costs a pointwise chain as one kernel") {
  // x -> neg -> exp -> add(., y) -> out: three kernels of [1024, 1024] f32
  // (4 MiB each). Alone: neg 8 MiB, exp 8 MiB, add 12 MiB and three
  // launches. Fused: x and y enter, add's result leaves: 12 MiB, one launch,
  // on the region's first kernel by name ("add").
  Graph g = graph_from_json_text(R"({"format":"overlap-sched.graph","version":1,"name":"f",
    "world_size":1,"process_groups":{},"nodes":[
    {"name":"x","op":"placeholder","target":"x","args":[],"kwargs":{},
     "val":{"shape":[1024,1024],"stride":[1024,1],"dtype":"float32","device":"cuda:0"}},
    {"name":"y","op":"placeholder","target":"y","args":[],"kwargs":{},
     "val":{"shape":[1024,1024],"stride":[1024,1],"dtype":"float32","device":"cuda:0"}},
    {"name":"neg","op":"call_function","target":"aten.neg.default","args":[{"node":"x"}],"kwargs":{},
     "val":{"shape":[1024,1024],"stride":[1024,1],"dtype":"float32","device":"cuda:0"}},
    {"name":"exp","op":"call_function","target":"aten.exp.default","args":[{"node":"neg"}],"kwargs":{},
     "val":{"shape":[1024,1024],"stride":[1024,1],"dtype":"float32","device":"cuda:0"}},
    {"name":"add","op":"call_function","target":"aten.add.Tensor","args":[{"node":"exp"},{"node":"y"}],
     "kwargs":{},"val":{"shape":[1024,1024],"stride":[1024,1],"dtype":"float32","device":"cuda:0"}},
    {"name":"output","op":"output","target":"output","args":[[{"node":"add"}]],"kwargs":{}}]})");
  AnalyticalEstimator est(default_hardware("H100-SXM"));
  RuntimeTable t = estimate_runtimes(g, nullptr, nullptr, est);
  const double mib4 = 4.0 * 1024 * 1024;
  CHECK(t.ms[*g.find("neg")] == Approx(2 * mib4 / 3350e9 * 1e3 + 1e-3));
  CHECK(t.ms[*g.find("add")] == Approx(3 * mib4 / 3350e9 * 1e3 + 1e-3));
  CHECK(fuse_pointwise_costs(g, default_hardware("H100-SXM"), t) == 1);
  CHECK(t.ms[*g.find("add")] == Approx(3 * mib4 / 3350e9 * 1e3 + 1e-3));
  CHECK(t.ms[*g.find("neg")] == 0);
  CHECK(t.ms[*g.find("exp")] == 0);
}

TEST_CASE("custom estimates: node name beats op+shape beats op") {
  Graph g = read_graph_file(source_path("testdata/tp_two_groups.json"));
  CustomEstimates c;
  c.ops["aten.mm.default"] = 1.0;
  c.ops[op_shape_key(g, *g.find("mm2"))] = 2.0;
  c.nodes["mm_side"] = 3.0;
  CHECK(op_shape_key(g, *g.find("mm1")) == "aten.mm.default|float32[64,256]|float32[256,256]");
  CHECK(*c.lookup(g, *g.find("mm_side")) == 3.0);
  CHECK(*c.lookup(g, *g.find("mm1")) == 2.0); // same shapes as mm2
  AnalyticalEstimator a(default_hardware());
  RuntimeTable t = estimate_runtimes(g, &c, nullptr, a);
  CHECK(t.ms[*g.find("mm_side")] == 3.0);
  CHECK(t.source[*g.find("mm_side")] == RuntimeSource::Custom);
  CHECK(t.source[*g.find("ar_tp1")] == RuntimeSource::Analytical);
  CHECK(t.ms[*g.find("relu1")] == 0.0);
}

TEST_CASE("collective sizes: input + output bytes, all-reduce footprint halved") {
  Graph g = read_graph_file(source_path("testdata/fsdp_tiny.json"));
  auto ag = decode_collective(g, *g.find("ag0"));
  REQUIRE(ag);
  CHECK(ag->size_bytes == (32 * 128 + 128 * 128) * 4);
  CHECK(ag->memory_bytes == ag->size_bytes);
  Graph tp = read_graph_file(source_path("testdata/tp_two_groups.json"));
  auto ar = decode_collective(tp, *tp.find("ar_tp1"));
  REQUIRE(ar);
  CHECK(ar->memory_bytes == ar->size_bytes / 2);
  CHECK(ar->reduce_op == "sum");
  CHECK(ar->num_hosts(8) == 1);
  CHECK(decode_collective(tp, *tp.find("ar_dp"))->num_hosts(2) == 2);
}

TEST_CASE(
    "memory tracker counts as upstream: views alias, last use frees, inputs too unless primals") {
  Graph g = read_graph_file(source_path("testdata/scenarios/memory_limit.json"));
  StorageMap m = build_storage_map(g);
  std::vector<NodeId> order;
  for (NodeId i = 0; i < g.size(); ++i)
    order.push_back(i);
  MemoryProfile p = memory_profile(m, order);
  const int64_t MiB = 1 << 20;
  // Inputs p (4 MiB) and a (16) are live from the start. big_mm (16) is a's
  // last reader, so a goes after it; relu (16) frees big_mm.
  CHECK(p.after_node[*g.find("big_mm")] == 20 * MiB);
  CHECK(p.during_node[*g.find("relu")] == 36 * MiB);
  CHECK(p.after_node[*g.find("relu")] == 20 * MiB);
  // Upstream's peak is after each node's frees: the inputs alone here.
  CHECK(p.peak == 20 * MiB);
  CHECK(p.peak_during == 36 * MiB);
  CHECK(memory_peak(m, order) == 20 * MiB);
  // Inputs are live from the start whatever their order: the same peak.
  std::vector<NodeId> swapped_inputs = order;
  std::swap(swapped_inputs[0], swapped_inputs[1]); // a before p
  CHECK(memory_peak(m, swapped_inputs) == 20 * MiB);
  CHECK(m.releasable[m.allocates[*g.find("p")][0]]);
  g.nodes[*g.find("p")].name = "primals_1"; // a parameter: live to the end
  g.rebuild_index();
  REQUIRE(g.find("primals_1").has_value());
  StorageMap with_param = build_storage_map(g);
  const bool param_releasable =
      with_param.releasable[with_param.allocates[*g.find("primals_1")][0]];
  CHECK_FALSE(param_releasable);
  // The transpose view aliases the wait's storage, which aliases the all-gather output.
  CHECK(m.allocates[*g.find("w_t")].empty());
  CHECK(m.allocates[*g.find("ag_wait")].empty());
  CHECK(m.bytes[m.allocates[*g.find("ag")][0]] == 8 * MiB);
}

TEST_CASE("dependency graph: ancestors, and the same-group chain only when asked") {
  Graph g = read_graph_file(source_path("testdata/scenarios/same_group_order.json"));
  CHECK_FALSE(DependencyGraph(g).is_ancestor(*g.find("ar1"), *g.find("ar2")));
  DependencyGraph dg(g, group_order_edges(g));
  CHECK(dg.is_ancestor(*g.find("mm0"), *g.find("ar1")));
  CHECK(dg.is_ancestor(*g.find("ar1"), *g.find("ar2"))); // group issue order
  CHECK_FALSE(dg.is_ancestor(*g.find("mm1"), *g.find("ar2")));
  CHECK_FALSE(dg.is_ancestor(*g.find("ar2"), *g.find("ar1")));
}

TEST_CASE("CUDA device names map to known hardware tables") {
  CHECK(osched::is_known_gpu("NVIDIA H200"));
  CHECK(osched::is_known_gpu("NVIDIA A100-SXM4-80GB"));
  CHECK(osched::is_known_gpu("Tesla V100-SXM2-32GB"));
  CHECK_FALSE(osched::is_known_gpu("NVIDIA GeForce RTX 4090"));
  CHECK_FALSE(osched::is_known_gpu("synthetic"));
  CHECK(osched::default_hardware("NVIDIA H200").hbm_gbps == 4800);
}
