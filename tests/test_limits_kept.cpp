// Every limit a user sets is kept by every policy: the written graph of
// `schedule` (improved, the default) is replayed by a checker written here,
// apart from the scheduler, and compared with the greedy alone (--policy
// upstream) on every bundled graph under several option sets. The improved
// policy may go as far as the limit, or as far as the greedy's own order
// where that already goes further (the greedy runs a collective bigger than
// the in-flight limit, then forces its wait), never beyond.

#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "format/graph_file.h"
#include "ops/collective_info.h"
#include "ops/op_table.h"
#include "test_support.h"

using namespace osched;
using namespace osched::test;

namespace {

struct Use {
  int64_t in_flight = 0; // most collective bytes started and not yet waited on
  int64_t prefetch = 0;  // most compute nodes a collective starts before the first it blocks
  int64_t distance = 0;  // most earlier (input-order) collectives not started when one starts
};

bool is_wait(const Node& n) {
  return n.target.str().find("wait_tensor") != std::string::npos;
}

// Replays `out` (the written order); `in` gives the input's collective order.
Use replay(const Graph& in, const Graph& out) {
  const size_t n = out.nodes.size();
  std::vector<std::vector<NodeId>> users(n);
  for (NodeId v = 0; v < static_cast<NodeId>(n); ++v)
    for (NodeId p : node_inputs(out.nodes[static_cast<size_t>(v)]))
      users[static_cast<size_t>(p)].push_back(v);
  // Each collective's wait: a wait_tensor reading it (through a getitem for
  // the coalesced forms); a collective without one is not moved by anyone.
  std::map<NodeId, NodeId> wait_of;
  for (NodeId v = 0; v < static_cast<NodeId>(n); ++v) {
    const Node& w = out.nodes[static_cast<size_t>(v)];
    if (!is_wait(w))
      continue;
    for (NodeId p : data_inputs(w)) {
      NodeId c = p;
      if (!decode_collective(out, c)) {
        std::vector<NodeId> up = data_inputs(out.nodes[static_cast<size_t>(c)]);
        if (up.empty() || !decode_collective(out, up[0]))
          continue;
        c = up[0];
      }
      wait_of.emplace(c, v);
    }
  }
  // Input order of the collectives, by name.
  std::map<std::string, int64_t> input_rank;
  for (NodeId v = 0; v < static_cast<NodeId>(in.nodes.size()); ++v)
    if (decode_collective(in, v))
      input_rank.emplace(in.nodes[static_cast<size_t>(v)].name, static_cast<int64_t>(v));
  std::vector<int64_t> computes_before(n + 1, 0);
  for (size_t i = 0; i < n; ++i)
    computes_before[i + 1] = computes_before[i] + (is_compute_node(out.nodes[i]) ? 1 : 0);

  Use use;
  int64_t in_flight = 0;
  std::map<NodeId, int64_t> bytes_of;
  std::vector<int64_t> started; // input ranks of started collectives
  for (size_t i = 0; i < n; ++i) {
    const NodeId v = static_cast<NodeId>(i);
    if (auto c = decode_collective(out, v); c && wait_of.count(v)) {
      in_flight += c->memory_bytes;
      bytes_of[v] = c->memory_bytes;
      use.in_flight = std::max(use.in_flight, in_flight);
      const int64_t rank = input_rank.at(out.nodes[i].name);
      int64_t earlier_unstarted = 0;
      for (const auto& [name, r] : input_rank)
        if (r < rank && wait_of.count(*out.find(name)) &&
            std::find(started.begin(), started.end(), r) == started.end())
          ++earlier_unstarted;
      use.distance = std::max(use.distance, earlier_unstarted);
      started.push_back(rank);
      // The first compute node (in the written order) that needs it.
      size_t first = n;
      std::vector<NodeId> stack{v};
      std::vector<char> seen(n, 0);
      while (!stack.empty()) {
        const NodeId u = stack.back();
        stack.pop_back();
        for (NodeId w : users[static_cast<size_t>(u)])
          if (!seen[static_cast<size_t>(w)]) {
            seen[static_cast<size_t>(w)] = 1;
            if (is_compute_node(out.nodes[static_cast<size_t>(w)]))
              first = std::min(first, static_cast<size_t>(w));
            else
              stack.push_back(w);
          }
      }
      if (first < n)
        use.prefetch = std::max(use.prefetch, computes_before[first] - computes_before[i]);
    }
    for (const auto& [c, w] : wait_of)
      if (w == v)
        in_flight -= bytes_of.count(c) ? bytes_of[c] : 0;
  }
  return use;
}

struct Limits {
  const char* flags;
  double in_flight_gb;
  int prefetch;
  int distance;
};

} // namespace

TEST_CASE("limits: every option's limit is kept by the improved policy as far as the greedy keeps "
          "it, replayed apart on every bundled graph") {
  const Limits sets[] = {
      {"", 5.0, 200, 200},
      {"--max-in-flight-gb 0.05", 0.05, 200, 200},
      {"--max-in-flight-gb 0.25", 0.25, 200, 200},
      {"--max-in-flight-gb 0.001", 0.001, 200, 200},
      {"--max-compute-pre-fetch 0", 5.0, 0, 200},
      {"--max-compute-pre-fetch 2", 5.0, 2, 200},
      {"--max-coll-distance 0", 5.0, 200, 0},
      {"--max-coll-distance 2 --max-in-flight-gb 0.1", 0.1, 200, 2},
  };
  TempDir dir;
  size_t checked = 0, tightened = 0;
  for (const std::string& path : valid_graphs()) {
    const Graph in = read_graph_file(path);
    for (const Limits& l : sets) {
      INFO(path << " " << l.flags);
      const std::string common = "schedule '" + path + "' -q " + l.flags;
      CliResult up = run_cli(common + " --policy upstream -o '" + dir.file("up.json") + "'");
      CliResult im = run_cli(common + " -o '" + dir.file("im.json") + "'");
      REQUIRE(up.exit_code == 0);
      REQUIRE(im.exit_code == 0);
      const Use greedy = replay(in, read_graph_file(dir.file("up.json")));
      const Use improved = replay(in, read_graph_file(dir.file("im.json")));
      const int64_t in_flight_limit = static_cast<int64_t>(l.in_flight_gb * 1024 * 1024 * 1024);
      CHECK(improved.in_flight <= std::max(in_flight_limit, greedy.in_flight));
      CHECK(improved.prefetch <= std::max<int64_t>(l.prefetch, greedy.prefetch));
      CHECK(improved.distance <= std::max<int64_t>(l.distance, greedy.distance));
      ++checked;
      tightened += improved.in_flight < greedy.in_flight || improved.prefetch < greedy.prefetch;
    }
  }
  CHECK(checked >= 30 * std::size(sets));
  (void)tightened;
}

TEST_CASE("limits: on the llama example a 0.05 GB in-flight limit and a pre-fetch of 0 hold "
          "(they were broken by 2.94 GB and 21 compute nodes)") {
  TempDir dir;
  const std::string path = source_path("testdata/example_llama_fsdp.json");
  const Graph in = read_graph_file(path);
  CliResult r =
      run_cli("schedule '" + path + "' -q --max-in-flight-gb 0.05 -o '" + dir.file("a.json") + "'");
  REQUIRE(r.exit_code == 0);
  const Use a = replay(in, read_graph_file(dir.file("a.json")));
  CliResult up =
      run_cli("schedule '" + path + "' -q --max-in-flight-gb 0.05 --policy upstream -o '" +
              dir.file("u.json") + "'");
  REQUIRE(up.exit_code == 0);
  const Use u = replay(in, read_graph_file(dir.file("u.json")));
  // The greedy passes 0.05 GB only by its forced-wait rule: one collective
  // (the largest here is 226 MB) in flight alone.
  CHECK(u.in_flight <= 226 * 1024 * 1024 + 1024 * 1024);
  CHECK(a.in_flight <= u.in_flight);
  r = run_cli("schedule '" + path + "' -q --max-compute-pre-fetch 0 -o '" + dir.file("b.json") +
              "'");
  REQUIRE(r.exit_code == 0);
  CHECK(replay(in, read_graph_file(dir.file("b.json"))).prefetch == 0);
}
