#pragma once
// The fields of a node, one row each: its JSON key, its protobuf field
// numbers, the kind of value it holds, whether readers require it and, for
// the kinds several fields can share, where the value lives in a Node. The
// JSON and protobuf codecs, general and fast, readers and writers, dispatch
// through this table, so a new field of a shared kind is one row here (and
// its line in graph.proto and the schema, which tests/test_node_fields
// holds to the table).

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "graph/graph.h"

namespace osched {

enum class NodeFieldKind : uint8_t {
  Name,        // non-empty and unique
  OpName,      // a node op's name
  Text,        // a string
  ValueList,   // values, node references among them
  ValueMap,    // values by key
  TensorMetas, // null, one tensor meta, or a list of them (nulls allowed)
  TextList,    // a list of strings, or absent
  Flag,        // a boolean, or absent
  MutatedArgs, // argument positions and "kwarg:NAME", or absent
  NodeNames,   // names of other nodes; absent when empty
  AnyJson,     // any JSON, kept as written; absent when null
};

enum class NodeFieldPresence : uint8_t {
  Required,        // every node has it
  RequiredForCall, // call_function nodes have it
  Optional,
};

// Where a field of a shared kind lives: read on a const node, changed on
// one that may get its attrs on first use.
template <typename T> struct NodeFieldAccess {
  const T& (*get)(const Node&) = nullptr;
  T& (*edit)(Node&) = nullptr;
};

struct NodeField {
  std::string_view key;
  uint32_t proto;      // the protobuf field that holds the value
  uint32_t proto_flag; // the one that says whether or how it is present; 0: none
  NodeFieldKind kind;
  NodeFieldPresence presence;
  NodeFieldAccess<InternedString> text;                               // Text
  NodeFieldAccess<std::optional<bool>> flag;                          // Flag
  NodeFieldAccess<std::optional<std::vector<std::string>>> text_list; // TextList
  NodeFieldAccess<nlohmann::json> any_json;                           // AnyJson
};

namespace node_field_access {
const InternedString& target(const Node& n);
InternedString& edit_target(Node& n);
const std::optional<bool>& is_view(const Node& n);
std::optional<bool>& edit_is_view(Node& n);
const std::optional<std::vector<std::string>>& tags(const Node& n);
std::optional<std::vector<std::string>>& edit_tags(Node& n);
const nlohmann::json& meta(const Node& n);
nlohmann::json& edit_meta(Node& n);
} // namespace node_field_access

// In the order the general readers check them, which decides which of two
// faults in one node is reported.
inline constexpr std::array<NodeField, 11> kNodeFields = [] {
  namespace a = node_field_access;
  using K = NodeFieldKind;
  using P = NodeFieldPresence;
  return std::array<NodeField, 11>{{
      {"name", 1, 0, K::Name, P::Required, {}, {}, {}, {}},
      {"op", 2, 0, K::OpName, P::Required, {}, {}, {}, {}},
      {"target", 3, 0, K::Text, P::RequiredForCall, {a::target, a::edit_target}, {}, {}, {}},
      {"args", 4, 0, K::ValueList, P::Optional, {}, {}, {}, {}},
      {"kwargs", 5, 0, K::ValueMap, P::Optional, {}, {}, {}, {}},
      {"val", 7, 6, K::TensorMetas, P::Optional, {}, {}, {}, {}},
      {"tags", 9, 8, K::TextList, P::Optional, {}, {}, {a::tags, a::edit_tags}, {}},
      {"is_view", 10, 0, K::Flag, P::Optional, {}, {a::is_view, a::edit_is_view}, {}, {}},
      {"mutates", 15, 14, K::MutatedArgs, P::Optional, {}, {}, {}, {}},
      {"control_deps", 11, 0, K::NodeNames, P::Optional, {}, {}, {}, {}},
      {"meta", 12, 0, K::AnyJson, P::Optional, {}, {}, {}, {a::meta, a::edit_meta}},
  }};
}();

// Every node field number is below this (the fast reader counts fields in
// an array of this size).
inline constexpr uint32_t kNodeProtoLimit = 16;
static_assert(
    [] {
      for (const NodeField& f : kNodeFields)
        if (f.proto >= kNodeProtoLimit || f.proto_flag >= kNodeProtoLimit)
          return false;
      return true;
    }(),
    "a node field number at or past kNodeProtoLimit");

// Unknown JSON fields travel in protobuf as one JSON object in this field.
inline constexpr uint32_t kNodeExtraProto = 13;

// The rows in key order (the JSON writers') and in protobuf field order
// (the protobuf writers': a row sits at its flag, or its value without one).
using NodeFieldOrder = std::array<const NodeField*, kNodeFields.size()>;
const NodeFieldOrder& node_fields_by_key();
const NodeFieldOrder& node_fields_by_number();

// The row with this JSON key, or null for an unknown field.
const NodeField* find_node_field(std::string_view key);
// The row a protobuf field number (its value or its flag) belongs to, or
// null.
const NodeField* node_field_of_number(uint32_t number);
// Whether writers write the field for this node: the kinds that can be
// absent are left out when they are.
bool node_field_written(const NodeField& f, const Node& n);
inline size_t node_field_index(const NodeField& f) {
  return static_cast<size_t>(&f - kNodeFields.data());
}
// The first number of a row in protobuf order: its flag, else its value.
inline uint32_t first_proto_number(const NodeField& f) {
  return f.proto_flag ? f.proto_flag : f.proto;
}

} // namespace osched
