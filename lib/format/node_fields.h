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
#include <type_traits>
#include <utility>
#include <vector>

#include "graph/graph.h"

namespace osched {

// The kinds with an accessor below (Text, TextList, Flag, AnyJson) can hold
// any number of fields; each of the others is one field's, whose place in
// Node the codecs know.
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

// The first number of a row in protobuf order: its flag, else its value.
constexpr uint32_t first_proto_number(const NodeField& f) {
  return f.proto_flag ? f.proto_flag : f.proto;
}

namespace node_field_access {
inline const InternedString& target(const Node& n) {
  return n.target;
}
inline InternedString& edit_target(Node& n) {
  return n.target;
}
inline const std::optional<bool>& is_view(const Node& n) {
  return n.is_view;
}
inline std::optional<bool>& edit_is_view(Node& n) {
  return n.is_view;
}
inline const std::optional<std::vector<std::string>>& tags(const Node& n) {
  return n.attrs().tags;
}
inline std::optional<std::vector<std::string>>& edit_tags(Node& n) {
  return n.edit_attrs().tags;
}
inline const nlohmann::json& meta(const Node& n) {
  return n.attrs().meta;
}
inline nlohmann::json& edit_meta(Node& n) {
  return n.edit_attrs().meta;
}
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

// The keys alone, in table order (the known keys an unknown-field object
// never holds).
inline constexpr std::array<std::string_view, kNodeFields.size()> kNodeFieldKeys = [] {
  std::array<std::string_view, kNodeFields.size()> keys{};
  for (size_t i = 0; i < keys.size(); ++i)
    keys[i] = kNodeFields[i].key;
  return keys;
}();

// Unknown JSON fields travel in protobuf as one JSON object in this field.
inline constexpr uint32_t kNodeExtraProto = 13;

// Row indices as listed, in key order (the JSON writers') and in protobuf
// field order (the protobuf writers': a row sits at its flag, or its value
// without one).
using NodeFieldOrder = std::array<size_t, kNodeFields.size()>;
template <typename Less> constexpr NodeFieldOrder sorted_node_fields(Less less) {
  NodeFieldOrder order{};
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  for (size_t i = 1; i < order.size(); ++i)
    for (size_t j = i; j > 0 && less(kNodeFields[order[j]], kNodeFields[order[j - 1]]); --j) {
      const size_t t = order[j];
      order[j] = order[j - 1];
      order[j - 1] = t;
    }
  return order;
}
inline constexpr NodeFieldOrder kNodeFieldRows =
    sorted_node_fields([](const NodeField&, const NodeField&) { return false; });
inline constexpr NodeFieldOrder kNodeFieldsByKey =
    sorted_node_fields([](const NodeField& a, const NodeField& b) { return a.key < b.key; });
inline constexpr NodeFieldOrder kNodeFieldsByNumber =
    sorted_node_fields([](const NodeField& a, const NodeField& b) {
      return first_proto_number(a) < first_proto_number(b);
    });

// Row indices as compile-time constants (std::integral_constant), so a
// codec's code for a row is made for that row when compiled: its switch on
// the kind and its accessor calls resolved, as fast as code written per
// field. for_each_node_field calls fn with each row of Order in turn;
// visit_node_field with the row `row` (a runtime index below the table's
// size) and returns what fn returns.
template <const NodeFieldOrder& Order, typename Fn, size_t... I>
void for_each_node_field(Fn&& fn, std::index_sequence<I...>) {
  (fn(std::integral_constant<size_t, Order[I]>{}), ...);
}
template <const NodeFieldOrder& Order, typename Fn> void for_each_node_field(Fn&& fn) {
  for_each_node_field<Order>(fn, std::make_index_sequence<kNodeFields.size()>{});
}
// A switch, so the row is found in one jump.
#define OSCHED_NODE_FIELD_ROW(I)                                                                   \
  case I:                                                                                          \
    if constexpr (I < kNodeFields.size())                                                          \
      return fn(std::integral_constant<size_t, I>{});                                              \
    return false;
template <typename Fn> bool visit_node_field(size_t row, Fn&& fn) {
  static_assert(kNodeFields.size() <= 16, "visit_node_field has 16 cases");
  switch (row) {
    OSCHED_NODE_FIELD_ROW(0)
    OSCHED_NODE_FIELD_ROW(1)
    OSCHED_NODE_FIELD_ROW(2)
    OSCHED_NODE_FIELD_ROW(3)
    OSCHED_NODE_FIELD_ROW(4)
    OSCHED_NODE_FIELD_ROW(5)
    OSCHED_NODE_FIELD_ROW(6)
    OSCHED_NODE_FIELD_ROW(7)
    OSCHED_NODE_FIELD_ROW(8)
    OSCHED_NODE_FIELD_ROW(9)
    OSCHED_NODE_FIELD_ROW(10)
    OSCHED_NODE_FIELD_ROW(11)
    OSCHED_NODE_FIELD_ROW(12)
    OSCHED_NODE_FIELD_ROW(13)
    OSCHED_NODE_FIELD_ROW(14)
    OSCHED_NODE_FIELD_ROW(15)
  default:
    return false;
  }
}
#undef OSCHED_NODE_FIELD_ROW

// The row with this JSON key, or -1 for an unknown field.
inline int find_node_field(std::string_view key) {
  for (size_t i = 0; i < kNodeFields.size(); ++i)
    if (kNodeFields[i].key == key)
      return static_cast<int>(i);
  return -1;
}

// Each protobuf field number's row (its value or its flag), -1 for none.
inline constexpr std::array<int8_t, kNodeProtoLimit> kNodeFieldOfNumber = [] {
  std::array<int8_t, kNodeProtoLimit> rows{};
  for (auto& r : rows)
    r = -1;
  for (size_t i = 0; i < kNodeFields.size(); ++i) {
    rows[kNodeFields[i].proto] = static_cast<int8_t>(i);
    if (kNodeFields[i].proto_flag)
      rows[kNodeFields[i].proto_flag] = static_cast<int8_t>(i);
  }
  return rows;
}();
inline int node_field_of_number(uint32_t number) {
  return number < kNodeProtoLimit ? kNodeFieldOfNumber[number] : -1;
}

// The rows a reader requires, as bits by row index: of every node, and of
// call_function nodes.
constexpr uint32_t node_field_rows_with(NodeFieldPresence p) {
  uint32_t bits = 0;
  for (size_t i = 0; i < kNodeFields.size(); ++i)
    if (kNodeFields[i].presence == p)
      bits |= uint32_t{1} << i;
  return bits;
}
inline constexpr uint32_t kRequiredNodeFields = node_field_rows_with(NodeFieldPresence::Required);
inline constexpr uint32_t kRequiredCallFields =
    kRequiredNodeFields | node_field_rows_with(NodeFieldPresence::RequiredForCall);

// Whether writers write the field for this node: the kinds that can be
// absent are left out when they are.
inline bool node_field_written(const NodeField& f, const Node& n) {
  switch (f.kind) {
  case NodeFieldKind::TextList:
    return f.text_list.get(n).has_value();
  case NodeFieldKind::Flag:
    return f.flag.get(n).has_value();
  case NodeFieldKind::MutatedArgs:
    return n.attrs().mutates.has_value();
  case NodeFieldKind::NodeNames:
    return !n.attrs().control_deps.empty();
  case NodeFieldKind::AnyJson:
    return !f.any_json.get(n).is_null();
  default:
    return true;
  }
}

} // namespace osched
