#include <catch2/catch.hpp>

#include <optional>

#include "format/json_io.h"
#include "format/proto_io.h"
#include "graph/boxed_json.h"
#include "graph/count_optional.h"
#include "graph/graph.h"
#include "scheduler/reorder.h"
#include "test_support.h"

using namespace osched;
using namespace osched::test;

TEST_CASE("count optional: absent, zero and counts behave as std::optional<int64_t>") {
  CountOptional none;
  CHECK_FALSE(none.has_value());
  CHECK_FALSE(static_cast<bool>(none));
  CHECK(none.value_or(7) == 7);
  CHECK_THROWS_AS(none.value(), std::bad_optional_access);
  CHECK(std::optional<int64_t>(none) == std::nullopt);
  CHECK(none == std::nullopt);

  CountOptional zero = 0; // present: zero is a count
  CHECK(zero.has_value());
  CHECK(*zero == 0);
  CHECK(zero.value_or(7) == 0);
  CHECK(std::optional<int64_t>(zero) == int64_t{0});
  CHECK(zero != none);

  CountOptional big = int64_t{1} << 52;
  CHECK(big.value() == int64_t{1} << 52);
  big = std::nullopt;
  CHECK(big == none);
  big = 5;
  big.reset();
  CHECK_FALSE(big);

  // From std::optional, both ways.
  CountOptional from_opt = std::optional<int64_t>(12);
  CHECK(*from_opt == 12);
  CountOptional from_empty = std::optional<int64_t>();
  CHECK_FALSE(from_empty);
}

TEST_CASE("boxed json: null without a box, edited in place, copied deeply") {
  BoxedJson j;
  CHECK(j.is_null());
  CHECK_FALSE(j.is_object());
  CHECK_FALSE(j.contains("a"));
  CHECK(j.dump() == "null");
  CHECK(j.find("a") == j.end());

  j["a"]["b"] = 1; // creates the object
  CHECK(j.is_object());
  CHECK(j.contains("a"));
  CHECK(j.get()["a"]["b"] == 1);
  CHECK(j.dump() == R"({"a":{"b":1}})");

  BoxedJson copy = j;
  copy["a"]["b"] = 2;
  CHECK(j.get()["a"]["b"] == 1);
  CHECK(copy.get()["a"]["b"] == 2);

  j = nlohmann::json(); // null again
  CHECK(j.is_null());
  j = nlohmann::json{{"stack", "x"}};
  const nlohmann::json& view = j;
  CHECK(view["stack"] == "x");
  const BoxedJson& constant = j;
  CHECK(constant.find("stack") != constant.end());
}

TEST_CASE("a node's and a tensor's usually absent fields take one word each") {
  CHECK(sizeof(BoxedJson) == sizeof(void*));
  CHECK(sizeof(CountOptional) == sizeof(int64_t));
}

TEST_CASE("node attrs: none until a node has one, read as empty, copied deeply") {
  Node plain;
  CHECK(plain.existing_attrs() == nullptr);
  CHECK(plain.attrs().kwargs.empty());
  CHECK(plain.attrs().control_deps.empty());
  CHECK_FALSE(plain.attrs().tags.has_value());
  CHECK_FALSE(plain.attrs().mutates.has_value());
  CHECK(plain.attrs().meta.is_null());
  CHECK(plain.attrs().extra.is_null());
  CHECK(plain.kwarg("k") == nullptr);
  CHECK(plain.existing_attrs() == nullptr); // reading made none

  Node a;
  a.edit_attrs().kwargs.emplace_back("k", Value::integer(3));
  REQUIRE(a.existing_attrs() != nullptr);
  REQUIRE(a.kwarg("k") != nullptr);
  CHECK(a.kwarg("k")->i == 3);
  Node b = a; // its own copy
  b.edit_attrs().kwargs[0].second = Value::integer(4);
  b.edit_attrs().control_deps.push_back(0);
  CHECK(a.kwarg("k")->i == 3);
  CHECK(a.attrs().control_deps.empty());
  CHECK(b.kwarg("k")->i == 4);
  Node c = std::move(b);
  CHECK(c.kwarg("k")->i == 4);

  // Readers and the reorder pass give attrs only to the nodes that have
  // some: the model stays one word per node for the rest.
  Graph base = graph_from_json_text(read_text(source_path("testdata/example_llama_fsdp.json")));
  REQUIRE(base.nodes.size() > 10);
  base.nodes[3].edit_attrs().kwargs.emplace_back("alpha", Value::real(0.5));
  base.nodes[5].edit_attrs().tags = std::vector<std::string>{"pointwise"};
  base.nodes[7].edit_attrs().control_deps.push_back(2);
  const std::string text = graph_to_json_text(base);
  Graph from_json = graph_from_json_text(text);
  Graph from_general = graph_from_json_text_general(text);
  const std::string pb = graph_to_proto_bytes(from_json);
  Graph from_pb = graph_from_proto_bytes(pb);
  Graph from_pb_general = graph_from_proto_bytes_general(pb);
  Graph reordered = from_json;
  std::vector<NodeId> identity(reordered.nodes.size());
  for (size_t i = 0; i < identity.size(); ++i)
    identity[i] = static_cast<NodeId>(i);
  permute_nodes(reordered.nodes, identity);
  remap_refs(reordered.nodes, identity); // visits every node's references
  size_t without = 0;
  for (const Graph* g : {&from_json, &from_general, &from_pb, &from_pb_general, &reordered}) {
    REQUIRE(g->nodes.size() == from_json.nodes.size());
    for (size_t i = 0; i < g->nodes.size(); ++i) {
      Node& n = const_cast<Node&>(g->nodes[i]);
      const NodeAttrs& at = n.attrs();
      const bool any = !at.kwargs.empty() || !at.control_deps.empty() || at.tags || at.mutates ||
                       !at.meta.is_null() || !at.extra.is_null();
      INFO(n.name);
      CHECK((n.existing_attrs() != nullptr) == any);
      without += !any;
    }
  }
  CHECK(without > 0);
  CHECK(from_pb.nodes[3].existing_attrs() != nullptr);
  CHECK(reordered.nodes[7].attrs().control_deps == std::vector<NodeId>{2});
}

TEST_CASE("value: 24 bytes, one box for a string or a list, copied deeply") {
  CHECK(sizeof(Value) == 24);
  Value none = Value::integer(7);
  CHECK(none.str().empty());
  CHECK(none.items().empty());

  Value s = Value::string("abc");
  CHECK(s.str() == "abc");
  CHECK(s.items().empty()); // a string has no items
  Value s2 = s;
  s2.set_str("xyz");
  CHECK(s.str() == "abc");
  CHECK(s2.str() == "xyz");
  s2.set_str("");
  CHECK(s2.str().empty());

  Value l;
  l.kind = Value::Kind::List;
  l.edit_items() = {Value::real(0.5), Value::string("in"), Value::node_ref(3, 1)};
  CHECK(l.str().empty()); // a list has no string
  Value l2 = l;
  l2.edit_items()[1].set_str("changed");
  l2.edit_items().push_back(Value::boolean(true));
  REQUIRE(l.items().size() == 3);
  CHECK(l.items()[0].f == 0.5);
  CHECK(l.items()[1].str() == "in");
  CHECK(l.items()[2].i == 3);
  CHECK(l.items()[2].ref_output == 1);
  CHECK(l2.items().size() == 4);
  CHECK(l2.items()[1].str() == "changed");

  // A reference waiting for its name holds the name, then drops it.
  Value ref = Value::node_ref(-1, 0);
  ref.set_str("later");
  Value moved = std::move(ref);
  CHECK(moved.str() == "later");
  CHECK(moved.ref_output == 0);
  moved.i = 5;
  moved.set_str("");
  CHECK(moved.str().empty());
  CHECK(moved.i == 5);

  // The box changes kind: a string value made a list, and back.
  Value x = Value::string("text");
  x.kind = Value::Kind::List;
  x.edit_items().push_back(Value::integer(1));
  CHECK(x.str().empty());
  CHECK(x.items().size() == 1);
  x.kind = Value::Kind::String;
  x.set_str("again");
  CHECK(x.items().empty());
  CHECK(x.str() == "again");
  x = l; // copy-assigned over a string
  CHECK(x.items().size() == 3);
  x = Value::null(); // move-assigned
  CHECK(x.items().empty());
  CHECK(x.kind == Value::Kind::Null);
}
