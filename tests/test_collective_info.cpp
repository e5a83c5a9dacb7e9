// The decoded collective view: every pass reads kind, group, size, reduce
// op, dtype and bytes from decode_collective, so its rules are tested here
// on small inline graphs.

#include <catch2/catch.hpp>

#include "ops/collective_info.h"
#include "test_support.h"

using namespace osched;
using osched::test::inline_graph;

TEST_CASE("decode_collective: all-gather sizes input + output, group from group_name") {
  Graph g = inline_graph(R"(
      {"name": "ag", "op": "call_function", "target": "_c10d_functional.all_gather_into_tensor.default",
       "args": [{"node": "x"}, 4, "tp"],
       "val": {"dtype": "float32", "shape": [16, 8], "stride": [8, 1], "device": "cuda:0"}},
      {"name": "w", "op": "call_function", "target": "_c10d_functional.wait_tensor.default", "args": [{"node": "ag"}],
       "val": {"dtype": "float32", "shape": [16, 8], "stride": [8, 1], "device": "cuda:0"}})");
  auto c = decode_collective(g, *g.find("ag"));
  REQUIRE(c);
  CHECK(c->node == *g.find("ag"));
  CHECK(c->kind == CollectiveKind::AllGather);
  CHECK_FALSE(c->coalesced);
  CHECK(c->group == "tp");
  CHECK(c->group_size == 4);
  CHECK(c->ranks == std::vector<int64_t>{0, 1, 2, 3});
  CHECK(c->reduce_op.empty());
  CHECK(*c->input_bytes == 128);
  CHECK(*c->dtype == DType::Float32);
  CHECK(c->size_bytes == 128 + 512);
  CHECK(c->memory_bytes == c->size_bytes);
  CHECK(c->num_hosts(8) == 1);
  CHECK(c->num_hosts(2) == 2);
  CHECK_FALSE(decode_collective(g, *g.find("w")));
  CHECK_FALSE(decode_collective(g, *g.find("x")));
}

TEST_CASE("decode_collective: reduce op positional or by keyword, all-reduce footprint halved") {
  Graph g = inline_graph(R"(
      {"name": "ar", "op": "call_function", "target": "_c10d_functional.all_reduce.default",
       "args": [{"node": "x"}], "kwargs": {"reduce_op": "avg", "group_name": "dp"},
       "val": {"dtype": "float32", "shape": [4, 8], "stride": [8, 1], "device": "cuda:0"}},
      {"name": "rs", "op": "call_function", "target": "_c10d_functional.reduce_scatter_tensor.default",
       "args": [{"node": "x"}, "sum", 4, "tp"],
       "val": {"dtype": "float32", "shape": [1, 8], "stride": [8, 1], "device": "cuda:0"}})");
  auto ar = decode_collective(g, *g.find("ar"));
  REQUIRE(ar);
  CHECK(ar->reduce_op == "avg");
  CHECK(ar->group == "dp");
  CHECK(ar->group_size == 2);
  CHECK(ar->num_hosts(4) == 2);
  CHECK(ar->size_bytes == 256);
  CHECK(ar->memory_bytes == 128);
  auto rs = decode_collective(g, *g.find("rs"));
  REQUIRE(rs);
  CHECK(rs->kind == CollectiveKind::ReduceScatter);
  CHECK(rs->reduce_op == "sum");
  CHECK(rs->size_bytes == 128 + 32);
}

TEST_CASE("decode_collective: legacy forms name the group by its ranks") {
  Graph g = inline_graph(R"(
      {"name": "ar", "op": "call_function", "target": "c10d_functional.all_reduce.default",
       "args": [{"node": "x"}, "sum", "", [0, 4], 2],
       "val": {"dtype": "float32", "shape": [4, 8], "stride": [8, 1], "device": "cuda:0"}})");
  auto c = decode_collective(g, *g.find("ar"));
  REQUIRE(c);
  CHECK(c->group == "ranks:0,4");
  CHECK(c->ranks == std::vector<int64_t>{0, 4});
  CHECK(c->group_size == 2);
  CHECK(c->reduce_op == "sum");
}

TEST_CASE("decode_collective: an unbacked input has no benchmarkable size") {
  Graph g = inline_graph(R"(
      {"name": "ar", "op": "call_function", "target": "_c10d_functional.all_reduce.default",
       "args": [{"node": "s"}, "sum", "tp"],
       "val": {"dtype": "float32", "shape": [{"sym": "u0"}, 8], "stride": [8, 1], "device": "cuda:0"}})");
  auto c = decode_collective(g, *g.find("ar"));
  REQUIRE(c);
  CHECK_FALSE(c->input_bytes);
  CHECK_FALSE(c->dtype);
  CHECK(c->group_size == 4);
}
