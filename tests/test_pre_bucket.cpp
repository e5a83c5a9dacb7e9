// Pre-bucketing (bucketing/pre_bucket.h): which collectives are FSDP-style,
// where runs are cut, the cap from a collective's time, and that the
// rewritten graph is valid. Expected buckets and caps are worked out by
// hand from the graphs built here.

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bucketing/apply_buckets.h"
#include "bucketing/pre_bucket.h"
#include "format/json_io.h"
#include "validate/validate.h"

using namespace osched;
using nlohmann::json;

namespace {

json tensor(const std::string& dtype, std::vector<int64_t> shape) {
  std::vector<int64_t> stride(shape.size(), 1);
  for (size_t i = shape.size(); i-- > 1;)
    stride[i - 1] = stride[i] * shape[i];
  return {{"dtype", dtype}, {"shape", shape}, {"stride", stride}, {"device", "cuda:0"}};
}

// `args` as a vector: clang reads a one-element braced list given as a
// json as that element, not as an array of it.
json node(const std::string& name, const std::string& target, std::vector<json> args, json val) {
  json n = json::object();
  n["name"] = name;
  n["op"] = "call_function";
  n["target"] = target;
  n["args"] = json(std::move(args));
  n["val"] = std::move(val);
  return n;
}

json node_ref(const std::string& name) {
  return {{"node", name}};
}

// A forward of `layers` layers on a group "dp" of 4 ranks: each layer
// gathers its parameter p<i> (bfloat16 [n], cast from float32), multiplies
// the activation by it, and `opaque_after` (>= 0) puts a custom op after
// that layer. The last activation is reduce-scattered to the output. One
// more all-gather reads the sum of two graph inputs.
struct FsdpForward {
  int layers = 4;
  int64_t n = 1500000; // elements per parameter shard
  int opaque_after = -1;
  bool pin_layer1 = false; // ag1_wait after act0 by a control dep

  Graph build() const {
    json nodes = json::array();
    for (const char* name : {"x", "bias"})
      nodes.push_back({{"name", name},
                       {"op", "placeholder"},
                       {"target", name},
                       {"val", tensor("bfloat16", {4 * n})}});
    for (int i = 0; i < layers; ++i)
      nodes.push_back({{"name", "p" + std::to_string(i)},
                       {"op", "placeholder"},
                       {"target", "p" + std::to_string(i)},
                       {"val", tensor("float32", {n})}});
    std::string act = "x";
    for (int i = 0; i < layers; ++i) {
      const std::string s = std::to_string(i);
      nodes.push_back(node("cast" + s, "prims.convert_element_type.default",
                           {node_ref("p" + s), "torch.bfloat16"}, tensor("bfloat16", {n})));
      nodes.push_back(node("ag" + s, "_c10d_functional.all_gather_into_tensor.default",
                           {node_ref("cast" + s), 4, "dp"}, tensor("bfloat16", {4 * n})));
      nodes.push_back(node("ag" + s + "_wait", "_c10d_functional.wait_tensor.default",
                           {node_ref("ag" + s)}, tensor("bfloat16", {4 * n})));
      if (pin_layer1 && i == 1)
        nodes.back()["control_deps"] = json::array({"act0"});
      nodes.push_back(node("act" + s, "aten.mul.Tensor",
                           {node_ref(act), node_ref("ag" + s + "_wait")},
                           tensor("bfloat16", {4 * n})));
      act = "act" + s;
      if (i == opaque_after)
        nodes.push_back(node("send" + s, "mylib.send_to_peer.default", {node_ref(act)}, nullptr));
    }
    nodes.push_back(node("mixed", "aten.add.Tensor", {node_ref("x"), node_ref("bias")},
                         tensor("bfloat16", {4 * n})));
    nodes.push_back(node("ag_act", "_c10d_functional.all_gather_into_tensor.default",
                         {node_ref("mixed"), 4, "dp"}, tensor("bfloat16", {16 * n})));
    nodes.push_back(node("ag_act_wait", "_c10d_functional.wait_tensor.default",
                         {node_ref("ag_act")}, tensor("bfloat16", {16 * n})));
    nodes.push_back(node("rs", "_c10d_functional.reduce_scatter_tensor.default",
                         {node_ref(act), "sum", 4, "dp"}, tensor("bfloat16", {n})));
    nodes.push_back(node("rs_wait", "_c10d_functional.wait_tensor.default", {node_ref("rs")},
                         tensor("bfloat16", {n})));
    nodes.push_back(node("rs_out", "prims.convert_element_type.default",
                         {node_ref("rs_wait"), "torch.float32"}, tensor("float32", {n})));
    nodes.push_back(
        {{"name", "output"},
         {"op", "output"},
         {"target", "output"},
         {"args", json::array({json::array({node_ref("rs_out"), node_ref("ag_act_wait")})})}});
    json g = {{"format", "overlap-sched.graph"},
              {"version", 1},
              {"world_size", 4},
              {"process_groups", {{"dp", {{"ranks", {0, 1, 2, 3}}}}}},
              {"nodes", nodes}};
    return graph_from_json_text(g.dump());
  }
};

// 1 ms before the first byte, then 1 MB/ms: 90% of the time is transfer
// from 9e6 input bytes on.
double latency_bound(const CollectiveInfo& c) {
  return 1.0 + static_cast<double>(*c.input_bytes) * 1e-6;
}

std::vector<std::string> member_names(const Graph& g, const PreBucketPlan& p, const Bucket& b) {
  std::vector<std::string> out;
  for (size_t m : b.members)
    out.push_back(g.nodes[p.collectives[m].start].name);
  return out;
}

} // namespace

TEST_CASE("pre-bucketing takes parameter gathers up to the cap the group's latency sets") {
  const Graph g = FsdpForward{}.build();
  const PreBucketPlan p = plan_pre_buckets(g, PreBucketOptions{}, latency_bound);
  // Candidates: the four parameter gathers and the reduce-scatter that
  // flows to the output; ag_act reads two graph inputs.
  std::vector<std::string> candidates;
  for (const OverlapInterval& iv : p.collectives)
    candidates.push_back(g.nodes[iv.start].name);
  CHECK(candidates == std::vector<std::string>{"ag0", "ag1", "ag2", "ag3", "rs"});
  // The gathers' cap: the first size in 10 MiB x 1.25^k whose input (a
  // quarter, 4 ranks) is 90% transfer: 40,000,000 (10e6 input bytes: 10 of
  // 11 ms; 32,000,000 gives 8 of 9 ms). A reduce-scatter is measured by its
  // input: 10 MiB already is (10.49 of 11.49 ms).
  REQUIRE(p.caps.size() == 2);
  CHECK(p.caps[0].group == "dp");
  CHECK(p.caps[0].kind == "all_gather");
  CHECK(p.caps[0].cap_bytes == 40000000);
  CHECK(p.caps[1].kind == "reduce_scatter");
  CHECK(p.caps[1].cap_bytes == 10485760);
  // Each gather measures 4 x 3e6 bytes: three fit (36e6), the fourth would
  // pass the cap and stays alone.
  REQUIRE(p.buckets.size() == 1);
  CHECK(member_names(g, p, p.buckets[0]) == std::vector<std::string>{"ag0", "ag1", "ag2"});

  // The rewrite is a valid graph: one merged gather, its copy-in performing
  // the casts, and the members' users reading its split.
  BucketedGraph b = apply_buckets(Graph(g), p.collectives, p.buckets, "prebucket");
  CHECK_NOTHROW(validate_graph(b.graph));
  CHECK(b.graph.find("prebucket0_all_gather"));
  CHECK(!b.graph.find("ag1"));
  CHECK(!b.graph.find("cast1"));
  CHECK(b.graph.find("ag3"));
  REQUIRE(b.buckets.size() == 1);
  CHECK(b.buckets[0].members == std::vector<std::string>{"ag0", "ag1", "ag2"});
}

TEST_CASE("pre-bucketing never spans an op it cannot classify") {
  FsdpForward f;
  f.opaque_after = 1; // mylib.send_to_peer between layer 1 and layer 2
  const Graph g = f.build();
  const PreBucketPlan p = plan_pre_buckets(g, PreBucketOptions{}, latency_bound);
  REQUIRE(p.buckets.size() == 2);
  CHECK(member_names(g, p, p.buckets[0]) == std::vector<std::string>{"ag0", "ag1"});
  CHECK(member_names(g, p, p.buckets[1]) == std::vector<std::string>{"ag2", "ag3"});
  // Declared pure, the op holds nothing back: ag0..ag2 again.
  PreBucketOptions pure;
  pure.assume_pure = "mylib.send_to_peer";
  const PreBucketPlan q = plan_pre_buckets(g, pure, latency_bound);
  REQUIRE(q.buckets.size() == 1);
  CHECK(member_names(g, q, q.buckets[0]) == std::vector<std::string>{"ag0", "ag1", "ag2"});
}

TEST_CASE("pre-bucketing's cap follows the group's cost and the bucket limit") {
  const Graph g = FsdpForward{}.build();
  // Bandwidth alone (no latency): every size is saturated, the floor
  // (10 MiB) is the cap and no two 12e6-byte gathers fit in it.
  const PreBucketPlan flat = plan_pre_buckets(
      g, PreBucketOptions{}, [](const CollectiveInfo& c) { return *c.input_bytes * 1e-6; });
  REQUIRE(flat.caps.size() == 2);
  CHECK(flat.caps[0].cap_bytes == int64_t{10} << 20);
  CHECK(flat.caps[1].cap_bytes == int64_t{10} << 20);
  CHECK(flat.buckets.empty());
  // --bucket-max-gb caps a bucket's input + output bytes: 3e6 + 12e6 per
  // gather, so a 31e6 limit takes two.
  PreBucketOptions small;
  small.max_bucket_bytes = 31000000;
  const PreBucketPlan two = plan_pre_buckets(g, small, latency_bound);
  REQUIRE(two.buckets.size() == 2);
  CHECK(member_names(g, two, two.buckets[0]) == std::vector<std::string>{"ag0", "ag1"});
  CHECK(member_names(g, two, two.buckets[1]) == std::vector<std::string>{"ag2", "ag3"});
}

TEST_CASE("pre-bucketing leaves graphs without parameter gathers alone") {
  FsdpForward f;
  f.layers = 0; // only the activation gather and the reduce-scatter
  const Graph g = f.build();
  const PreBucketPlan p = plan_pre_buckets(g, PreBucketOptions{}, latency_bound);
  CHECK(p.collectives.empty());
  CHECK(p.buckets.empty());
}

TEST_CASE("pre-bucketing leaves collectives pinned by control_deps alone") {
  // ag1_wait after act0, which reads ag0's wait: merged, the bucket's wait
  // would wait on a user of itself.
  FsdpForward f;
  f.pin_layer1 = true;
  const Graph g = f.build();
  const PreBucketPlan p = plan_pre_buckets(g, PreBucketOptions{}, latency_bound);
  REQUIRE(p.buckets.size() == 1);
  CHECK(member_names(g, p, p.buckets[0]) == std::vector<std::string>{"ag0", "ag2", "ag3"});
  BucketedGraph b = apply_buckets(Graph(g), p.collectives, p.buckets, "prebucket");
  CHECK_NOTHROW(validate_graph(b.graph));
}
