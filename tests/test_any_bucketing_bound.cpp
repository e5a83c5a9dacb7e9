// The bound over every order and every bucketing is a bound: on small
// random graphs, no bucketing of their collectives (every partition of each
// group's collectives of one kind into buckets, costed by the table at the
// bucket's size, with no copy costs) and no order of the result, all tried,
// simulates below it. The table's all-gather row costs more per byte past
// 2 MiB than below, so a bucket's time is not simply its members' floor.

#include <catch2/catch.hpp>

#include <map>
#include <random>
#include <string>
#include <vector>

#include "bucketing/any_bucketing_bound.h"
#include "cost/collective_table.h"
#include "cost/estimator.h"
#include "every_order.h"
#include "format/graph_file.h"
#include "ops/collective_info.h"
#include "scheduler/lower_bound.h"
#include "sim/simulate.h"
#include "test_support.h"

using namespace osched;
using namespace osched::test;

namespace {

const char* kTable = "Group  Group Size  Collective              1MB (ms)  2MB (ms)  4MB (ms)\n"
                     "-----  ----------  ----------------------  --------  --------  --------\n"
                     "a      4           all_reduce              1.0       1.5       2.8\n"
                     "a      4           all_gather_into_tensor  0.8       1.2       2.6\n"
                     "b      4           all_reduce              0.5       1.4       2.0\n";

std::string meta(int64_t numel, const char* dtype = "float32") {
  return R"("val":{"shape":[)" + std::to_string(numel) + R"(],"stride":[1],"dtype":")" + dtype +
         R"(","device":"cuda:0"})";
}
std::string node_ref(const std::string& name) {
  return R"({"node":")" + name + R"("})";
}
std::string node(const std::string& name, const std::string& target, const std::string& args,
                 const std::string& m) {
  return R"({"name":")" + name + R"(","op":"call_function","target":")" + target + R"(","args":[)" +
         args + "]," + m + "}";
}

struct Case {
  Graph g;
  RuntimeTable rt;
  CollectiveTable table;
};

// x, then `steps` random steps: a matmul-like node of a random size reading
// two earlier tensors (custom 1-3 ms), or a collective of an earlier tensor
// (all-reduce on group a or b, or all-gather on a, its input sometimes
// converted from bfloat16 just for it) with its wait. Collectives cost the
// table's time at their input size.
Case random_case(std::mt19937& rng, int steps) {
  std::vector<std::string> tensors{"x"};
  std::vector<int64_t> numel{int64_t{1} << 18};
  std::vector<bool> used{false};
  std::string nodes = R"({"name":"x","op":"placeholder","target":"x",)" + meta(numel[0]) + "}";
  std::map<std::string, double> custom;
  const int64_t sizes[] = {int64_t{1} << 17, int64_t{1} << 18, int64_t{1} << 19,
                           3 * (int64_t{1} << 18)}; // 0.5, 1, 2, 3 MiB of float32
  auto pick = [&] {
    const size_t k = rng() % tensors.size();
    used[k] = true;
    return k;
  };
  for (int i = 0; i < steps; ++i) {
    const std::string id = std::to_string(i);
    const unsigned what = rng() % 5;
    if (what < 2) {
      const std::string name = "mm" + id;
      const int64_t n = sizes[rng() % 4];
      const size_t a = pick(), b = pick();
      nodes += "," + node(name, "aten.mm.default",
                          node_ref(tensors[a]) + "," + node_ref(tensors[b]), meta(n));
      custom[name] = 1 + rng() % 3;
      tensors.push_back(name);
      numel.push_back(n);
      used.push_back(false);
      continue;
    }
    const size_t in = pick();
    std::string input = tensors[in];
    const std::string name = "c" + id;
    std::string target, args;
    int64_t out = numel[in];
    if (what == 4) { // all-gather on a
      if (rng() % 2) {
        const std::string cast = "cast" + id;
        nodes += "," + node(cast, "prims.convert_element_type.default",
                            node_ref(input) + R"(,"bfloat16")", meta(numel[in], "bfloat16"));
        custom[cast] = 1;
        input = cast;
      }
      target = "_c10d_functional.all_gather_into_tensor.default";
      args = node_ref(input) + R"(,4,"a")";
      out *= 4;
    } else {
      target = "_c10d_functional.all_reduce.default";
      args = node_ref(input) + R"(,"sum",")" + (what == 2 ? "a" : "b") + "\"";
    }
    const char* dtype = input.rfind("cast", 0) == 0 ? "bfloat16" : "float32";
    nodes += "," + node(name, target, args, meta(out, dtype));
    nodes += "," + node(name + "_wait", "_c10d_functional.wait_tensor.default", node_ref(name),
                        meta(out, dtype));
    tensors.push_back(name + "_wait");
    numel.push_back(out);
    used.push_back(false);
  }
  std::string outs;
  for (size_t k = 0; k < tensors.size(); ++k)
    if (!used[k])
      outs += (outs.empty() ? "" : ",") + node_ref(tensors[k]);
  nodes += R"(,{"name":"output","op":"output","target":"output","args":[[)" + outs + "]]}";
  Case c{graph_from_json_text(R"({"format":"overlap-sched.graph","version":1,"world_size":4,
      "process_groups":{"a":{"ranks":[0,1,2,3]},"b":{"ranks":[0,1,2,3]}},"nodes":[)" +
                              nodes + "]}"),
         {},
         parse_collective_table(kTable, "t.table")};
  CustomEstimates est;
  est.nodes = custom;
  AnalyticalEstimator analytical(default_hardware());
  c.rt = estimate_runtimes(c.g, &est, nullptr, analytical, &c.table);
  return c;
}

// Every set partition of `items`, as lists of blocks.
void partitions(const std::vector<NodeId>& items, size_t at,
                std::vector<std::vector<NodeId>>& blocks,
                std::vector<std::vector<std::vector<NodeId>>>& out) {
  if (at == items.size()) {
    out.push_back(blocks);
    return;
  }
  for (size_t b = 0; b < blocks.size(); ++b) {
    blocks[b].push_back(items[at]);
    partitions(items, at + 1, blocks, out);
    blocks[b].pop_back();
  }
  blocks.push_back({items[at]});
  partitions(items, at + 1, blocks, out);
  blocks.pop_back();
}

// The bucket of `members` as the rewrite costs it (the table at the summed
// input size, no copies), deleting the conversions its copy-in performs.
MergedCollective bucket_of(const Case& c, const std::vector<NodeId>& members) {
  MergedCollective m;
  m.starts = members;
  double mib = 0;
  std::optional<CollectiveInfo> first;
  for (NodeId s : members) {
    const std::optional<CollectiveInfo> info = decode_collective(c.g, s);
    mib += static_cast<double>(*info->input_bytes) / (1024.0 * 1024.0);
    first = info;
    const Node& n = c.g.nodes[static_cast<size_t>(s)];
    const Node& in = c.g.nodes[static_cast<size_t>(n.args[0].i)];
    if (in.target == "prims.convert_element_type.default")
      m.removed.push_back(static_cast<NodeId>(n.args[0].i));
  }
  m.ms = table_time_at(*c.table.row_for(*first), mib);
  return m;
}

} // namespace

TEST_CASE("any-bucketing bound: no bucketing and no order of a small random graph simulates "
          "below it (all tried)") {
  std::mt19937 rng(20261207);
  int merging_helps = 0, tight = 0, cases = 0;
  for (int trial = 0; trial < 40; ++trial) {
    Case c = random_case(rng, 6 + static_cast<int>(rng() % 2));
    INFO("trial " << trial);
    const SimulationPlan plan = make_simulation_plan(c.g, c.rt);
    const AnyBucketingBound any =
        any_bucketing_bound(c.g, plan, c.rt, &c.table, default_hardware(), nullptr, false);
    CHECK(any.uncosted == 0);
    // Pools by (group stream, kind); every partition of each, combined.
    std::map<std::pair<int32_t, int>, std::vector<NodeId>> pools;
    for (NodeId s : plan.collectives)
      pools[{plan.group[static_cast<size_t>(s)], static_cast<int>(decode_collective(c.g, s)->kind)}]
          .push_back(s);
    std::vector<std::vector<MergedCollective>> bucketings{{}};
    for (const auto& [key, members] : pools) {
      std::vector<std::vector<std::vector<NodeId>>> parts;
      std::vector<std::vector<NodeId>> blocks;
      partitions(members, 0, blocks, parts);
      std::vector<std::vector<MergedCollective>> next;
      for (const auto& so_far : bucketings)
        for (const auto& p : parts) {
          std::vector<MergedCollective> b = so_far;
          for (const auto& block : p)
            if (block.size() > 1)
              b.push_back(bucket_of(c, block));
          next.push_back(std::move(b));
        }
      bucketings = std::move(next);
    }
    const double unmerged = best_step_over_orders(c.g, plan);
    double best = unmerged;
    for (const auto& b : bucketings)
      best = std::min(best, best_step_over_orders(c.g, plan, b));
    CHECK(best >= any.bound.step_ms - 1e-9);
    // The written-orders bound of the unmerged graph need not hold here.
    merging_helps += best < unmerged - 1e-9;
    tight += best <= any.bound.step_ms * 1.05;
    ++cases;
  }
  // Not vacuous: merging often shortens the best step, and the bound is
  // often within 5% of the best.
  CHECK(merging_helps >= 8);
  CHECK(tight >= cases / 3);
}

TEST_CASE("any-bucketing bound: by hand, eight latency-bound all-reduces merge into one call") {
  // x -> eight all-reduces of 64 KiB on group a (each the table's 1 MiB
  // time, 1.0 ms, below its first column) -> waits -> one node reading all
  // (1 ms). Unmerged, the stream needs 8 ms; merged into one 512 KiB
  // bucket, 1.0 ms. Each all-reduce blocks (no compute besides the reader),
  // so the bound is 1 (compute) + 1 (one merged call) = 2 ms, and the bound
  // over orders alone 1 + 8 = 9 ms.
  std::string nodes = R"({"name":"x","op":"placeholder","target":"x",)" + meta(16384) + "}";
  std::string reads;
  for (int i = 0; i < 8; ++i) {
    const std::string name = "ar" + std::to_string(i);
    nodes += "," + node(name, "_c10d_functional.all_reduce.default",
                        node_ref("x") + R"(,"sum","a")", meta(16384));
    nodes += "," +
             node(name + "_w", "_c10d_functional.wait_tensor.default", node_ref(name), meta(16384));
    reads += (reads.empty() ? "" : ",") + node_ref(name + "_w");
  }
  nodes += "," + node("sum", "aten.stack.default", "[" + reads + "]", meta(16384 * 8));
  nodes += R"(,{"name":"output","op":"output","target":"output","args":[[{"node":"sum"}]]})";
  const Graph g = graph_from_json_text(
      R"({"format":"overlap-sched.graph","version":1,"world_size":4,
      "process_groups":{"a":{"ranks":[0,1,2,3]},"b":{"ranks":[0,1,2,3]}},"nodes":[)" +
      nodes + "]}");
  const CollectiveTable table = parse_collective_table(kTable, "t.table");
  CustomEstimates est;
  est.nodes["sum"] = 1.0;
  AnalyticalEstimator analytical(default_hardware());
  const RuntimeTable rt = estimate_runtimes(g, &est, nullptr, analytical, &table);
  const SimulationPlan plan = make_simulation_plan(g, rt);
  const AnyBucketingBound any =
      any_bucketing_bound(g, plan, rt, &table, default_hardware(), nullptr, false);
  CHECK(any.pooled == 8);
  CHECK(any.bound.compute_ms == Approx(1.0));
  CHECK(any.bound.blocking_comm_ms == Approx(1.0));
  CHECK(any.bound.busiest_group_comm_ms == Approx(1.0));
  CHECK(any.bound.step_ms == Approx(2.0));
  CHECK(step_lower_bound(g, plan, rt).step_ms == Approx(9.0));
  // A user estimate that may price a merged all-reduce: the bound cannot
  // know its cost, so those collectives count as taking no time.
  est.ops["_c10d_functional.all_reduce.default"] = 1.0;
  const RuntimeTable rt2 = estimate_runtimes(g, &est, nullptr, analytical, &table);
  const AnyBucketingBound blind = any_bucketing_bound(g, make_simulation_plan(g, rt2), rt2, &table,
                                                      default_hardware(), &est, false);
  CHECK(blind.uncosted == 8);
  CHECK(blind.bound.step_ms == Approx(1.0));
}
