// Hang safety: which ops are barriers, that no collective start or wait
// crosses one in any output (random graphs, every policy, bucketing on and
// off), the report's safety section, and check-ranks on seeded divergences.

#include <catch2/catch.hpp>

#include <map>
#include <random>
#include <string>
#include <vector>

#include "analysis/verify.h"
#include "format/json_io.h"
#include "ops/collective.h"
#include "ops/op_barrier.h"
#include "pipeline/schedule_options.h"
#include "report/timeline.h"
#include "safety/check_ranks.h"
#include "safety/opaque_ops.h"
#include "schedule_support.h"
#include "test_support.h"

using namespace osched;
using namespace osched::test;

namespace {

const char* kMeta =
    R"("val":{"shape":[512,512],"stride":[512,1],"dtype":"float32","device":"cuda:0"})";

std::string node_ref(const std::string& name) {
  return R"({"node":")" + name + R"("})";
}

std::string call(const std::string& name, const std::string& target, const std::string& args) {
  return R"({"name":")" + name + R"(","op":"call_function","target":")" + target + R"(","args":[)" +
         args + "]," + kMeta + "}";
}

// Random steps over x: matmuls, all-reduces of group a or b with their
// waits, and opaque ops (an unknown op whose result is used, or a send
// nothing reads).
std::string random_graph_text(std::mt19937& rng, int steps) {
  std::vector<std::string> tensors{"x"};
  std::vector<bool> used{false};
  std::string nodes = R"({"name":"x","op":"placeholder","target":"x",)" + std::string(kMeta) + "}";
  auto pick = [&] {
    const size_t k = rng() % tensors.size();
    used[k] = true;
    return tensors[k];
  };
  auto add = [&](const std::string& name) {
    tensors.push_back(name);
    used.push_back(false);
  };
  for (int i = 0; i < steps; ++i) {
    const std::string id = std::to_string(i);
    const unsigned r = rng() % 20;
    if (r < 8) {
      nodes += "," + call("mm" + id, "aten.mm.default", node_ref(pick()) + "," + node_ref(pick()));
      add("mm" + id);
    } else if (r < 15) {
      const std::string group = rng() % 2 ? "a" : "b";
      nodes += "," + call("ar" + id, "_c10d_functional.all_reduce.default",
                          node_ref(pick()) + R"(,"sum",")" + group + "\"");
      nodes += "," + call("ar" + id + "_wait", "_c10d_functional.wait_tensor.default",
                          node_ref("ar" + id));
      add("ar" + id + "_wait");
    } else if (r < 18) {
      nodes += "," + call("op" + id, "mylib.mystery.default", node_ref(pick()));
      add("op" + id);
    } else {
      nodes += "," + call("send" + id, "torchcomms.send.default", node_ref(pick()) + ",1");
      add("send" + id);
    }
  }
  std::string outs;
  for (size_t k = 0; k < tensors.size(); ++k)
    if (!used[k])
      outs += (outs.empty() ? "" : ",") + node_ref(tensors[k]);
  nodes += R"(,{"name":"output","op":"output","target":"output","args":[[)" + outs + "]]}";
  return R"({"format":"overlap-sched.graph","version":1,"world_size":4,
      "process_groups":{"a":{"ranks":[0,1,2,3]},"b":{"ranks":[0,1,2,3]}},"nodes":[)" +
         nodes + "]}";
}

std::map<std::string, NodeId> positions(const Graph& g) {
  std::map<std::string, NodeId> pos;
  for (NodeId i = 0; i < g.size(); ++i)
    pos[g.nodes[static_cast<size_t>(i)].name] = i;
  return pos;
}

// For every opaque op of `in` and every collective start or wait of `out`
// (a bucket's start or wait standing for each member's), the two are in
// the same relative order in both graphs. "" when they are.
std::string crossing(const Graph& in, const Graph& out, const std::vector<BucketSummary>* buckets) {
  const std::map<std::string, NodeId> pin = positions(in), pout = positions(out);
  std::map<std::string, std::vector<std::string>> members;
  if (buckets)
    for (const BucketSummary& b : *buckets)
      members[b.name] = b.members;
  // Each input collective's wait, by the collective's name.
  std::map<std::string, std::string> wait_of;
  for (NodeId i = 0; i < in.size(); ++i)
    if (NodeId c = collective_of_wait(in, i); c >= 0)
      wait_of[in.nodes[static_cast<size_t>(c)].name] = in.nodes[static_cast<size_t>(i)].name;
  const std::vector<OpaqueOp> ops = find_opaque_ops(in, AssumePure());
  for (NodeId x = 0; x < out.size(); ++x) {
    const Node& n = out.nodes[static_cast<size_t>(x)];
    const bool is_wait = is_wait_node(n);
    if (!is_wait && !is_collective_node(n))
      continue;
    const NodeId c = is_wait ? collective_of_wait(out, x) : x;
    if (c < 0)
      continue;
    const std::string& cname = out.nodes[static_cast<size_t>(c)].name;
    std::vector<std::string> originals =
        members.count(cname) ? members[cname] : std::vector<std::string>{cname};
    for (std::string& o : originals)
      if (is_wait)
        o = wait_of.at(o);
    for (const OpaqueOp& op : ops) {
      const std::string& oname = in.nodes[static_cast<size_t>(op.node)].name;
      for (const std::string& o : originals)
        if ((pin.at(o) < op.node) != (x < pout.at(oname)))
          return n.name + " (for " + o + ") crossed " + oname;
    }
  }
  return "";
}

RankGraph rank_graph(int64_t rank, const std::string& collectives) {
  // Groups: "a" all four ranks, "p" ranks 0 and 1, "q" ranks 2 and 3.
  std::string nodes = R"({"name":"x","op":"placeholder","target":"x",)" + std::string(kMeta) + "}";
  nodes += collectives;
  nodes += R"(,{"name":"output","op":"output","target":"output","args":[[]]}]})";
  Graph g = graph_from_json_text(
      R"({"format":"overlap-sched.graph","version":1,"world_size":4,"rank":)" +
      std::to_string(rank) +
      R"(,"process_groups":{"a":{"ranks":[0,1,2,3]},"p":{"ranks":[0,1]},"q":{"ranks":[2,3]}},
      "nodes":[)" +
      nodes);
  return {rank, "rank" + std::to_string(rank) + ".json", std::move(g)};
}

// An all-reduce of x (or, with `gather`, an all-gather) on `group`, waited.
std::string collective(const std::string& name, const std::string& group, bool gather = false) {
  std::string s =
      gather
          ? R"(,{"name":")" + name +
                R"(","op":"call_function","target":"_c10d_functional.all_gather_into_tensor.default","args":[)" +
                node_ref("x") + R"(,4,")" + group +
                R"("],"val":{"shape":[2048,512],"stride":[512,1],"dtype":"float32","device":"cuda:0"}})"
          : "," + call(name, "_c10d_functional.all_reduce.default",
                       node_ref("x") + R"(,"sum",")" + group + "\"");
  return s + "," + call(name + "_w", "_c10d_functional.wait_tensor.default", node_ref(name));
}

} // namespace

TEST_CASE("op barriers: known namespaces move, communication and unknown ops do not") {
  const std::vector<std::pair<std::string, BarrierKind>> cases = {
      {"aten.mm.default", BarrierKind::None},
      {"aten.broadcast_to.default", BarrierKind::None}, // a view, though it says broadcast
      {"prims.convert_element_type.default", BarrierKind::None},
      {"fsdp.all_gather_copy_in.default", BarrierKind::None},
      {"higher_order.flex_attention", BarrierKind::None},
      {"operator.getitem", BarrierKind::None},
      {"_c10d_functional.all_gather_into_tensor.default", BarrierKind::None},
      {"_c10d_functional.wait_tensor.default", BarrierKind::None},
      {"c10d_functional.all_reduce.default", BarrierKind::None},
      {"torchcomms.send.default", BarrierKind::Communication},
      {"c10d.send.default", BarrierKind::Communication},
      {"c10d.allreduce_.default", BarrierKind::Communication},
      {"_dtensor.shard_dim_alltoall.default", BarrierKind::Communication},
      {"mylib.isend.default", BarrierKind::Communication},
      {"mylib.all_to_all_v.default", BarrierKind::Communication},
      {"custom_nccl.ring.default", BarrierKind::Communication},
      {"mylib.mystery_op.default", BarrierKind::Unknown},
      {"higher_order.cond", BarrierKind::Unknown},
      {"higher_order.auto_functionalized", BarrierKind::Unknown},
      {"torch.ops.higher_order.flex_attention", BarrierKind::None}, // as Python prints it
      {"torch.ops.mylib.mystery_op.default", BarrierKind::Unknown},
      {"torch.nn.functional.linear", BarrierKind::None},
      {"torch.distributed.barrier", BarrierKind::Communication},
  };
  for (const auto& [target, kind] : cases) {
    INFO(target);
    CHECK(target_barrier_kind(target) == kind);
  }
  const AssumePure pure = parse_assume_pure(" mylib.mystery_op , torchcomms.send.default");
  CHECK(pure.covers("mylib.mystery_op.default"));  // by overload packet
  CHECK(pure.covers("torchcomms.send.default"));   // exactly
  CHECK_FALSE(pure.covers("torchcomms.send.out")); // another overload
  CHECK_FALSE(pure.covers("mylib.mystery_op2.default"));
  CHECK(pure.targets() == std::vector<std::string>{"mylib.mystery_op", "torchcomms.send.default"});
}

TEST_CASE("schedule: collectives keep their place after a send the tool cannot classify") {
  // The order mm0, send, ag1, wait1, mm1, mm2, ag2, wait2, mm3: without the
  // barrier both all-gathers were issued before the send and it sank last.
  TempDir tmp;
  const std::string out = tmp.file("out.json"), report = tmp.file("r.json");
  CliResult r = run_cli("schedule " + source_path("testdata/scenarios/opaque_send.json") + " -o " +
                        out + " --report " + report);
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.find("warning: 1 op(s) the tool cannot classify keep their place among "
                   "collectives: send (torchcomms.send.default, communication op)") !=
        std::string::npos);
  const Graph g = graph_from_json_text(read_text(out));
  const std::map<std::string, NodeId> pos = positions(g);
  for (const char* n : {"ag1", "wait1", "ag2", "wait2"})
    CHECK(pos.at(n) > pos.at("send"));
  const nlohmann::json rep = nlohmann::json::parse(read_text(report));
  const nlohmann::json& op = rep["safety"]["opaque_ops"].at(0);
  CHECK(op["name"] == "send");
  CHECK(op["why"] == "communication op");
  CHECK(op["starts_held"] == nlohmann::json::array({"ag1", "ag2"}));
  CHECK(rep["safety"]["groups"] ==
        nlohmann::json::parse(R"([{"group":"0","collectives":2,"order_changed":false}])"));

  // Declared pure, it moves as before: the all-gathers go first.
  r = run_cli("schedule " + source_path("testdata/scenarios/opaque_send.json") + " -o " + out +
              " -q --assume-pure torchcomms.send");
  REQUIRE(r.exit_code == 0);
  const std::map<std::string, NodeId> free_pos = positions(graph_from_json_text(read_text(out)));
  CHECK(free_pos.at("ag1") < free_pos.at("send"));
  CHECK(run_cli("schedule " + source_path("testdata/scenarios/opaque_send.json") + " -o " + out +
                " --assume-pure ,")
            .exit_code == 2);
}

TEST_CASE("schedule: no collective start or wait crosses an opaque op (random graphs)") {
  std::mt19937 rng(20261207);
  int with_ops = 0, buckets = 0;
  for (int trial = 0; trial < 120; ++trial) {
    const std::string text = random_graph_text(rng, 6 + static_cast<int>(rng() % 10));
    const Graph in = graph_from_json_text(text);
    with_ops += !find_opaque_ops(in, AssumePure()).empty();
    for (OrderSearchKind policy : {OrderSearchKind::Improved, OrderSearchKind::Upstream})
      for (bool bucketing : {false, true}) {
        ScheduleConfig cfg;
        cfg.policy = policy;
        cfg.collective_bucketing = bucketing;
        const ScheduleOutput out = schedule_graph(graph_from_json_text(text), text, cfg);
        INFO("trial " << trial << (bucketing ? " bucketed" : "") << "\n" << text);
        if (out.report.bucketing)
          buckets += static_cast<int>(out.report.bucketing->buckets.size());
        CHECK(crossing(in, out.graph,
                       out.report.bucketing ? &out.report.bucketing->buckets : nullptr) == "");
      }
  }
  CHECK(with_ops > 60); // the property was exercised
  CHECK(buckets > 0);
}

TEST_CASE("check-ranks: identical ranks are consistent") {
  std::vector<RankGraph> g;
  for (int r = 0; r < 4; ++r)
    g.push_back(rank_graph(r, collective("c1", "a") + collective("c2", "a", true)));
  const RankCheckResult res = check_ranks(g);
  CHECK(res.consistent);
  CHECK(res.line == "consistent: 4 ranks, 1 groups, 2 collectives");
}

TEST_CASE("check-ranks: a size mismatch, a swapped pair, a cycle, per-group members") {
  SECTION("size") {
    std::vector<RankGraph> g{rank_graph(0, collective("c1", "a")),
                             rank_graph(1, collective("c1", "a", true))};
    const RankCheckResult res = check_ranks(g);
    CHECK_FALSE(res.consistent);
    CHECK(res.detail["problem"] == "sequence");
    CHECK(res.detail["position"] == 1);
    CHECK(res.line == "group a, collective 1: rank 0 (rank0.json) issues c1 (all_reduce, "
                      "float32, 1048576 bytes, sum); rank 1 (rank1.json) issues c1 (all_gather, "
                      "float32, 1048576 bytes)");
  }
  SECTION("swapped pair in one group") {
    std::vector<RankGraph> g{
        rank_graph(0, collective("c1", "a") + collective("c2", "a", true)),
        rank_graph(1, collective("c1", "a") + collective("c2", "a", true)),
        rank_graph(2, collective("c2", "a", true) + collective("c1", "a")),
    };
    const RankCheckResult res = check_ranks(g);
    CHECK_FALSE(res.consistent);
    CHECK(res.detail["group"] == "a");
    CHECK(res.detail["position"] == 1);
    CHECK(res.detail["ranks"][1]["rank"] == 2);
    CHECK(res.detail["ranks"][1]["node"] == "c2");
  }
  SECTION("missing collective at the end") {
    std::vector<RankGraph> g{rank_graph(0, collective("c1", "a") + collective("c2", "a")),
                             rank_graph(1, collective("c1", "a"))};
    const RankCheckResult res = check_ranks(g);
    CHECK(res.detail["position"] == 2);
    CHECK(res.line.find("rank 1 (rank1.json) issues nothing more") != std::string::npos);
  }
  SECTION("two groups in opposite orders on two ranks") {
    // Ranks 0 and 1 share groups p and a (a's other members absent from
    // the check): rank 0 issues p then a, rank 1 a then p.
    std::vector<RankGraph> g{rank_graph(0, collective("p1", "p") + collective("a1", "a")),
                             rank_graph(1, collective("a1", "a") + collective("p1", "p"))};
    const RankCheckResult res = check_ranks(g);
    CHECK_FALSE(res.consistent);
    CHECK(res.detail["problem"] == "cycle");
    CHECK(res.line == "cyclic wait across groups: rank 1 issues a#1 (a1) before p#1 (p1); rank 0 "
                      "issues p#1 (p1) before a#1 (a1)");
  }
  SECTION("different ranks per group") {
    // p is ranks 0-1, q ranks 2-3: their sequences differ and must not be compared.
    std::vector<RankGraph> g{rank_graph(0, collective("p1", "p")),
                             rank_graph(1, collective("p1", "p")),
                             rank_graph(2, collective("q1", "q") + collective("q2", "q")),
                             rank_graph(3, collective("q1", "q") + collective("q2", "q"))};
    CHECK(check_ranks(g).line == "consistent: 4 ranks, 2 groups, 3 collectives");
    // Rank 2 issuing on p, which it is not a member of, is a divergence.
    g[2] = rank_graph(2, collective("p1", "p") + collective("q1", "q") + collective("q2", "q"));
    const RankCheckResult res = check_ranks(g);
    CHECK(res.detail["problem"] == "members");
    CHECK(res.line == "group p: rank 2 issues its collectives but is not among its members [0,1]");
  }
}

TEST_CASE("check-ranks CLI: exit codes, one line, --json, numbering") {
  TempDir tmp;
  auto write = [&](const std::string& name, const std::string& collectives, int64_t rank) {
    RankGraph rg = rank_graph(rank, collectives);
    const std::string path = tmp.file(name);
    std::ofstream(path) << graph_to_json_text(rg.graph);
    return path;
  };
  const std::string a = write("a.json", collective("c1", "a") + collective("c2", "a"), 0);
  const std::string b = write("b.json", collective("c1", "a") + collective("c2", "a"), 1);
  const std::string c = write("c.json", collective("c2", "a", true) + collective("c1", "a"), 1);
  CliResult r = run_cli("check-ranks " + a + " " + b);
  CHECK(r.exit_code == 0);
  CHECK(r.out == "consistent: 2 ranks, 1 groups, 2 collectives\n");
  r = run_cli("check-ranks " + a + " " + c);
  CHECK(r.exit_code == 1);
  CHECK(r.out.empty());
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  CHECK(r.err.find("group a, collective 1: rank 0") == 0);
  r = run_cli("check-ranks --json " + a + " " + c);
  CHECK(r.exit_code == 1);
  const nlohmann::json j = nlohmann::json::parse(r.out);
  CHECK(j["consistent"] == false);
  CHECK(j["ranks"][1]["file"] == c);
  // Both graphs say rank 1: numbered by argument order unless fields are required.
  CHECK(run_cli("check-ranks " + b + " " + b).exit_code == 0);
  r = run_cli("check-ranks --ranks-from field " + b + " " + b);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("rank 1 is given by another graph too") != std::string::npos);
  r = run_cli("check-ranks " + a + " " + tmp.file("missing.json"));
  CHECK(r.exit_code == 2);
}

TEST_CASE("verify: a collective moved across an opaque op is a violation") {
  const Graph in =
      graph_from_json_text(read_text(source_path("testdata/scenarios/opaque_send.json")));
  Graph moved = in; // ag1 (and its wait) issued before the send
  const NodeId send = *in.find("send"), ag1 = *in.find("ag1");
  std::swap(moved.nodes[static_cast<size_t>(send)], moved.nodes[static_cast<size_t>(ag1)]);
  moved.rebuild_index();
  const std::optional<std::string> v = verify_reordering(in, moved);
  REQUIRE(v);
  CHECK(v->find("opaque op order violated: 'ag1'") == 0);
  VerifyOptions pure;
  pure.assume_pure = "torchcomms.send";
  CHECK_FALSE(verify_reordering(in, moved, pure));
}

TEST_CASE("timeline: opaque ops are drawn apart, also when they take no time") {
  const Graph g =
      graph_from_json_text(read_text(source_path("testdata/scenarios/opaque_send.json")));
  RuntimeTable rt;
  rt.ms.assign(g.nodes.size(), 0.5);
  rt.source.assign(g.nodes.size(), RuntimeSource::Custom);
  for (double cost : {0.5, 0.0}) {
    rt.ms[static_cast<size_t>(*g.find("send"))] = cost;
    const Timeline t = build_timeline(g, rt, "original");
    std::vector<std::string> opaque;
    for (const TimelineEvent& e : t.events)
      if (e.kind == TimelineEvent::Kind::Opaque)
        opaque.push_back(e.name + (e.end_ms > e.start_ms ? "" : " (instant)"));
    CHECK(opaque == std::vector<std::string>{cost > 0 ? "send" : "send (instant)"});
    // Declared pure, it is ordinary compute.
    for (const TimelineEvent& e :
         build_timeline(g, rt, "original", parse_assume_pure("torchcomms.send")).events)
      CHECK(e.kind != TimelineEvent::Kind::Opaque);
  }
}
