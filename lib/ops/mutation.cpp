#include "ops/mutation.h"

#include <array>
#include <string_view>

#include "ops/op_table.h"
#include "ops/op_writes.h"

namespace osched {
namespace {

// Operator name inside its namespace: "aten.add_.Tensor" -> "add_".
std::string_view op_name(std::string_view packet) {
  auto dot = packet.find('.');
  return dot == std::string_view::npos ? packet : packet.substr(dot + 1);
}

// Ops outside the namespaces whose schemas are dumped (ops/op_writes.h),
// with the argument their schema marks `(a!)`.
struct KnownWriter {
  std::string_view packet;
  int32_t position; // -1: the `out` keyword
};
constexpr std::array<KnownWriter, 3> kKnownWriters = {{
    {"fsdp.all_gather_copy_in", 1}, // (Tensor[] inputs, Tensor(a!) all_gather_output, ...)
    {"fsdp.split_with_sizes_copy", -1},
    {"fsdp.chunk_cat", -1},
}};

bool is_auto_functionalized(std::string_view packet) {
  return packet == "higher_order.auto_functionalized" ||
         packet == "higher_order.auto_functionalized_v2";
}

bool has_ref(const Value& v) {
  bool any = false;
  for_each_ref(v, [&](const Value&) { any = true; });
  return any;
}

} // namespace

std::vector<MutatedArg> builtin_mutated_args(const Node& n) {
  std::vector<MutatedArg> out;
  if (n.op != NodeOp::CallFunction)
    return out;
  const std::string_view packet = overload_packet(n.target);
  if (is_auto_functionalized(packet)) {
    // v2 names the written bases; v1 passes the op's arguments as keywords
    // and which are mutable is in the op's schema, which the graph lacks:
    // every tensor keyword counts (extra orders are safe, missing ones not).
    if (packet == "higher_order.auto_functionalized_v2") {
      if (const Value* v = n.kwarg("_all_bases"); v && has_ref(*v))
        out.push_back({-1, "_all_bases"});
      return out;
    }
    for (const auto& [k, v] : n.attrs().kwargs)
      if (has_ref(v))
        out.push_back({-1, k});
    return out;
  }
  for (const KnownWriter& w : kKnownWriters) {
    if (w.packet != packet)
      continue;
    if (w.position >= 0)
      out.push_back({w.position, ""});
    else
      out.push_back({-1, "out"});
    return out;
  }
  // What the op's schema marks written (schemas/torch_op_writes.tsv): an
  // argument passed by position, or by keyword.
  if (const std::vector<SchemaWrite>* writes = schema_writes(n.target)) {
    for (const SchemaWrite& w : *writes) {
      if (!w.keyword_only && static_cast<size_t>(w.index) < n.args.size()) {
        if (has_ref(n.args[static_cast<size_t>(w.index)]))
          out.push_back({w.index, ""});
      } else if (const Value* v = n.kwarg(w.name); v && has_ref(*v)) {
        out.push_back({-1, std::string(w.name)});
      }
    }
    return out;
  }
  // Ops the schemas above do not cover (other namespaces, Python's
  // operators): `out=` variants, and in-place names.
  if (const Value* v = n.kwarg("out"); v && has_ref(*v))
    out.push_back({-1, "out"});
  // In-place ops: a trailing underscore (add_, copy_, all_reduce_,
  // _foreach_copy_) or Python's in-place dunders (__iadd__).
  std::string_view name = op_name(packet);
  const bool dunder =
      name.size() > 4 && name.substr(0, 2) == "__" && name.substr(name.size() - 2) == "__";
  const bool inplace =
      dunder ? name[2] == 'i' && name != "__invert__" : (!name.empty() && name.back() == '_');
  if (inplace && !n.args.empty() && has_ref(n.args[0]))
    out.push_back({0, ""});
  return out;
}

std::vector<MutatedArg> mutated_args(const Node& n) {
  if (n.attrs().mutates)
    return *n.attrs().mutates;
  return builtin_mutated_args(n);
}

const Value* mutated_value(const Node& n, const MutatedArg& a) {
  if (a.position >= 0)
    return static_cast<size_t>(a.position) < n.args.size() ? &n.args[a.position] : nullptr;
  return n.kwarg(a.kwarg);
}

bool outputs_alias_mutated(const Node& n) {
  return !is_auto_functionalized(overload_packet(n.target));
}

} // namespace osched
