#include "format/node_fields.h"

#include <algorithm>

namespace osched {
namespace node_field_access {

const InternedString& target(const Node& n) {
  return n.target;
}
InternedString& edit_target(Node& n) {
  return n.target;
}
const std::optional<bool>& is_view(const Node& n) {
  return n.is_view;
}
std::optional<bool>& edit_is_view(Node& n) {
  return n.is_view;
}
const std::optional<std::vector<std::string>>& tags(const Node& n) {
  return n.attrs().tags;
}
std::optional<std::vector<std::string>>& edit_tags(Node& n) {
  return n.edit_attrs().tags;
}
const nlohmann::json& meta(const Node& n) {
  return n.attrs().meta;
}
nlohmann::json& edit_meta(Node& n) {
  return n.edit_attrs().meta;
}

} // namespace node_field_access

namespace {

template <typename Less> NodeFieldOrder sorted_rows(Less less) {
  NodeFieldOrder order;
  for (size_t i = 0; i < kNodeFields.size(); ++i)
    order[i] = &kNodeFields[i];
  std::sort(order.begin(), order.end(),
            [&](const NodeField* a, const NodeField* b) { return less(*a, *b); });
  return order;
}

std::array<const NodeField*, kNodeProtoLimit> rows_by_number() {
  std::array<const NodeField*, kNodeProtoLimit> rows{};
  for (const NodeField& f : kNodeFields) {
    rows[f.proto] = &f;
    if (f.proto_flag)
      rows[f.proto_flag] = &f;
  }
  return rows;
}

} // namespace

const NodeFieldOrder& node_fields_by_key() {
  static const NodeFieldOrder order =
      sorted_rows([](const NodeField& a, const NodeField& b) { return a.key < b.key; });
  return order;
}

const NodeFieldOrder& node_fields_by_number() {
  static const NodeFieldOrder order = sorted_rows([](const NodeField& a, const NodeField& b) {
    return first_proto_number(a) < first_proto_number(b);
  });
  return order;
}

const NodeField* find_node_field(std::string_view key) {
  for (const NodeField& f : kNodeFields)
    if (f.key == key)
      return &f;
  return nullptr;
}

bool node_field_written(const NodeField& f, const Node& n) {
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

const NodeField* node_field_of_number(uint32_t number) {
  static const std::array<const NodeField*, kNodeProtoLimit> rows = rows_by_number();
  return number < kNodeProtoLimit ? rows[number] : nullptr;
}

} // namespace osched
