// The node-field table against the other two places a field is spelled,
// graph.proto and the schema, and the codecs that dispatch through it.

#include <catch2/catch.hpp>

#include "graph.pb.h"

#include <set>

#include <nlohmann/json.hpp>

#include "format/graph_file.h"
#include "format/json_io.h"
#include "format/json_node_writer.h"
#include "format/node_fields.h"
#include "format/proto_io.h"
#include "test_support.h"

using namespace osched;
using namespace osched::test;
using google::protobuf::FieldDescriptor;

namespace {

std::set<std::string> table_keys() {
  std::set<std::string> keys;
  for (const NodeField& f : kNodeFields)
    keys.emplace(f.key);
  return keys;
}

// A node holding every field of the table, the absent-able ones included.
Graph graph_with_every_field() {
  Graph g = read_graph_file(source_path("testdata/fsdp_tiny.json"));
  Node& n = g.nodes[7]; // fwd_relu0, whose argument 0 is a tensor
  n.edit_attrs().kwargs = {{"a", Value::integer(1)}};
  n.edit_attrs().tags = std::vector<std::string>{"pointwise"};
  n.is_view = false;
  n.edit_attrs().mutates = std::vector<MutatedArg>{MutatedArg{0, ""}};
  n.edit_attrs().control_deps = {0};
  n.edit_attrs().meta = {{"stack", "x"}};
  return g;
}

} // namespace

TEST_CASE("every node field row names its graph.proto field, and graph.proto has no other") {
  const auto* d = overlap_sched::pb::Node::descriptor();
  std::set<int> numbers;
  for (const NodeField& f : kNodeFields) {
    INFO(f.key);
    const FieldDescriptor* value = d->FindFieldByNumber(static_cast<int>(f.proto));
    REQUIRE(value != nullptr);
    // The field is the key, or for JSON carried as text the key + "_json".
    CHECK((value->name() == f.key || value->name() == std::string(f.key) + "_json"));
    numbers.insert(value->number());
    if (f.proto_flag) {
      const FieldDescriptor* flag = d->FindFieldByNumber(static_cast<int>(f.proto_flag));
      REQUIRE(flag != nullptr);
      CHECK(!flag->is_repeated());
      CHECK(flag->type() == (f.kind == NodeFieldKind::TensorMetas ? FieldDescriptor::TYPE_ENUM
                                                                  : FieldDescriptor::TYPE_BOOL));
      numbers.insert(flag->number());
    }
    switch (f.kind) {
    case NodeFieldKind::Name:
    case NodeFieldKind::OpName:
    case NodeFieldKind::Text:
    case NodeFieldKind::AnyJson:
      CHECK(value->type() == FieldDescriptor::TYPE_STRING);
      CHECK(!value->is_repeated());
      break;
    case NodeFieldKind::TextList:
    case NodeFieldKind::NodeNames:
      CHECK(value->type() == FieldDescriptor::TYPE_STRING);
      CHECK(value->is_repeated());
      break;
    case NodeFieldKind::Flag:
      CHECK(value->type() == FieldDescriptor::TYPE_BOOL);
      CHECK(value->has_presence());
      break;
    default:
      CHECK(value->type() == FieldDescriptor::TYPE_MESSAGE);
      CHECK(value->is_repeated());
    }
  }
  const FieldDescriptor* extra = d->FindFieldByNumber(static_cast<int>(kNodeExtraProto));
  REQUIRE(extra != nullptr);
  CHECK(extra->name() == "extra_json");
  numbers.insert(extra->number());
  CHECK(numbers.size() == static_cast<size_t>(d->field_count()));
  for (int i = 0; i < d->field_count(); ++i)
    CHECK(numbers.count(d->field(i)->number()) == 1);
  for (int number = 0; number < static_cast<int>(kNodeProtoLimit) + 2; ++number) {
    const int row = node_field_of_number(static_cast<uint32_t>(number));
    if (row >= 0)
      CHECK((kNodeFields[row].proto == static_cast<uint32_t>(number) ||
             kNodeFields[row].proto_flag == static_cast<uint32_t>(number)));
    else
      CHECK(
          (number == static_cast<int>(kNodeExtraProto) || d->FindFieldByNumber(number) == nullptr));
  }
}

TEST_CASE("the schema's node has exactly the table's fields and presence rules") {
  const nlohmann::json schema =
      nlohmann::json::parse(read_text(source_path("schemas/graph.schema.json")));
  const nlohmann::json& node = schema.at("$defs").at("node");
  std::set<std::string> schema_keys;
  for (const auto& [k, v] : node.at("properties").items())
    schema_keys.insert(k);
  CHECK(schema_keys == table_keys());
  std::set<std::string> required, for_call;
  for (const NodeField& f : kNodeFields) {
    if (f.presence == NodeFieldPresence::Required)
      required.emplace(f.key);
    if (f.presence == NodeFieldPresence::RequiredForCall)
      for_call.emplace(f.key);
  }
  CHECK(node.at("required").get<std::set<std::string>>() == required);
  CHECK(node.at("if").at("properties").at("op").at("const") == "call_function");
  CHECK(node.at("then").at("required").get<std::set<std::string>>() == for_call);
}

TEST_CASE("node field lookups and the writing orders") {
  for (size_t row = 0; row < kNodeFields.size(); ++row) {
    CHECK(find_node_field(kNodeFields[row].key) == static_cast<int>(row));
    CHECK(node_field_of_number(kNodeFields[row].proto) == static_cast<int>(row));
    CHECK(kNodeFieldRows[row] == row);
  }
  CHECK(find_node_field("extra") == -1);
  CHECK(find_node_field("") == -1);
  CHECK(node_field_of_number(kNodeExtraProto) == -1);
  for (size_t i = 1; i < kNodeFields.size(); ++i) {
    CHECK(kNodeFields[kNodeFieldsByKey[i - 1]].key < kNodeFields[kNodeFieldsByKey[i]].key);
    CHECK(first_proto_number(kNodeFields[kNodeFieldsByNumber[i - 1]]) <
          first_proto_number(kNodeFields[kNodeFieldsByNumber[i]]));
  }
  // Each row visited once, as the constant it is.
  std::vector<size_t> visited;
  for_each_node_field<kNodeFieldsByKey>([&](auto row) { visited.push_back(decltype(row)::value); });
  CHECK(visited == std::vector<size_t>(kNodeFieldsByKey.begin(), kNodeFieldsByKey.end()));
  for (size_t row = 0; row < kNodeFields.size(); ++row)
    CHECK(visit_node_field(row, [&](auto r) { return decltype(r)::value == row; }));
  uint32_t required = 0;
  for (size_t row = 0; row < kNodeFields.size(); ++row)
    if (kNodeFields[row].key == "name" || kNodeFields[row].key == "op")
      required |= uint32_t{1} << row;
  CHECK(kRequiredNodeFields == required);
  CHECK(kRequiredCallFields == (required | uint32_t{1} << find_node_field("target")));
}

TEST_CASE("every row of the table is written and read back by all four node codecs") {
  const Graph g = graph_with_every_field();
  const Node& n = g.nodes[7]; // fwd_relu0, whose argument 0 is a tensor
  for (const NodeField& f : kNodeFields)
    CHECK(node_field_written(f, n));
  // The direct JSON writer writes every key, in key order.
  std::string direct;
  append_node_json(direct, n, g);
  const nlohmann::json written = nlohmann::json::parse(direct);
  std::set<std::string> keys;
  for (const auto& [k, v] : written.items())
    keys.insert(k);
  CHECK(keys == table_keys());
  CHECK(written.dump() == direct);
  CHECK(written.at("mutates") == nlohmann::json::array({0}));
  CHECK(written.at("meta") == nlohmann::json({{"stack", "x"}}));
  // JSON and protobuf, direct and general, all keep every field.
  const std::string text = graph_to_json_text(g);
  const std::string pb = graph_to_proto_bytes(g);
  CHECK(pb == graph_to_proto_bytes_general(g));
  CHECK(graph_to_json_text(graph_from_json_text(text)) == text);
  CHECK(graph_to_json_text(graph_from_json_text_general(text)) == text);
  CHECK(graph_to_json_text(graph_from_proto_bytes(pb)) == text);
  CHECK(graph_to_json_text(graph_from_proto_bytes_general(pb)) == text);
  // Without the meta (which only the general readers keep) the fast JSON
  // reader takes the node: the same graph again.
  Graph plain = g;
  plain.nodes[7].edit_attrs().meta = nullptr;
  const std::string plain_text = graph_to_json_text(plain);
  CHECK(graph_to_json_text(graph_from_json_text(plain_text)) == plain_text);
  CHECK(graph_to_json_text(graph_from_proto_bytes(graph_to_proto_bytes(plain))) == plain_text);
}
