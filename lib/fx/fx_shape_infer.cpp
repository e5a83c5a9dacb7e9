// Which shape rule answers a node (the table by op packet, the order of
// the families) and the nodes no family owns: getitem, waits, triton
// kernel wrappers, auto_functionalized.
#include "fx/fx_shape_infer.h"

#include <algorithm>
#include <array>
#include <string_view>
#include <unordered_map>

#include "fx/shape_rules.h"
#include "ops/collective.h"
#include "ops/op_table.h"

namespace osched {
namespace {

using namespace shape_rules;

constexpr std::array<std::string_view, 41> kSameShapePackets = {
    "aten.index_put",
    "aten.index_put_",
    "aten._unsafe_index_put",
    "aten.scatter",
    "aten.scatter_add",
    "aten.index_copy",
    "aten.slice_scatter", // self with src written into part of it
    "aten.select_scatter",
    "aten.diagonal_scatter",
    "aten.as_strided_scatter",
    "aten.clone",
    "aten.contiguous",
    "aten._to_copy",
    "aten.detach",
    "aten.alias",
    "aten.copy",
    "aten.copy_",
    "aten.fill",
    "aten.fill_",
    "aten.zeros_like",
    "aten.ones_like",
    "aten.empty_like",
    "aten.full_like",
    "aten.rand_like",
    "aten.randn_like",
    "aten.lift_fresh_copy",
    "aten.silu_backward",
    "aten.gelu_backward",
    "aten.threshold_backward",
    "aten.sigmoid_backward",
    "aten.tanh_backward",
    "aten.masked_fill",
    "aten.bernoulli",
    "aten._softmax",
    "aten._log_softmax",
    "aten._softmax_backward_data",
    "aten._log_softmax_backward_data",
    "aten.softmax",
    "aten.dropout",
    "aten.tril",
    "aten.triu",
};

// triton_kernel_wrapper_functional(..., kwargs={name: value},
// tensors_to_clone=[names]) returns a dict of the cloned tensors; as a
// list here, in tensors_to_clone's order (getitem by name looks it up).
const Value* pair_value(const Value& pairs, std::string_view key) {
  if (pairs.kind != Value::Kind::List)
    return nullptr;
  for (const auto& p : pairs.items())
    if (p.kind == Value::Kind::List && p.items().size() == 2 &&
        p.items()[0].kind == Value::Kind::String && p.items()[0].str() == key)
      return &p.items()[1];
  return nullptr;
}

std::optional<InferredVal> triton_wrapper(const Ctx& c) {
  const Value* kwargs = c.n.kwarg("kwargs");
  const Value* cloned = c.n.kwarg("tensors_to_clone");
  if (!kwargs || !cloned || cloned->kind != Value::Kind::List)
    return std::nullopt;
  std::vector<std::optional<TensorMeta>> outs;
  for (const auto& name : cloned->items()) {
    const Value* v = name.kind == Value::Kind::String ? pair_value(*kwargs, name.str()) : nullptr;
    const TensorMeta* m = v && v->is_ref() ? ref_meta(c.g, *v) : nullptr;
    if (!m)
      return std::nullopt;
    outs.push_back(fresh(m->shape, m->dtype, m->device));
  }
  return multi(std::move(outs));
}

// Which output a getitem selects: an integer, or a name of a triton
// wrapper's tensors_to_clone.
std::optional<size_t> selected_output(const Node& from, const Value& idx) {
  if (idx.kind == Value::Kind::Int)
    return idx.i < 0 ? std::nullopt : std::optional<size_t>(static_cast<size_t>(idx.i));
  if (idx.kind != Value::Kind::String)
    return std::nullopt;
  const Value* cloned = from.kwarg("tensors_to_clone");
  if (!cloned || cloned->kind != Value::Kind::List)
    return std::nullopt;
  for (size_t k = 0; k < cloned->items().size(); ++k)
    if (cloned->items()[k].kind == Value::Kind::String && cloned->items()[k].str() == idx.str())
      return k;
  return std::nullopt;
}

// What a rule needs of the first argument: nothing, that it is not a
// tensor (factories, lists of tensors), or that it is one.
enum class Needs : uint8_t { Any, NoTensor, Tensor };

struct ShapeRule {
  Rule rule;
  Needs needs;
  bool before_pointwise; // decided before the pointwise family (dtype conversions, same-shape ops)
};

// The first rule added for a packet wins.
const std::unordered_map<std::string_view, ShapeRule>& rule_table() {
  static const auto* table = [] {
    auto* t = new std::unordered_map<std::string_view, ShapeRule>;
    auto add = [&](std::initializer_list<std::string_view> packets, Rule rule, Needs needs,
                   bool early = false) {
      for (std::string_view p : packets)
        t->emplace(p, ShapeRule{rule, needs, early});
    };
    add({"prims.convert_element_type", "aten._to_copy", "aten.to"}, rule_convert, Needs::Any, true);
    for (std::string_view p : kSameShapePackets)
      t->emplace(p, ShapeRule{rule_same_shape, Needs::Any, true});
    add({"aten.view", "aten.reshape", "aten._unsafe_view", "aten._reshape_alias"}, view_like,
        Needs::Any);
    add({"aten.mm", "aten.addmm", "aten.bmm", "aten.baddbmm", "aten.matmul", "aten._scaled_mm"},
        matmul, Needs::Any);
    add({"aten.max", "aten.min", "aten.median", "aten.mode"}, values_and_indices, Needs::Any);
    add({"aten.split", "aten.split_with_sizes", "aten.chunk", "aten.unbind"}, split, Needs::Any);
    add({"aten.full", "aten.zeros", "aten.ones", "aten.empty", "aten.empty_strided", "aten.randn",
         "aten.rand"},
        rule_full, Needs::NoTensor);
    add({"aten.cat"}, rule_cat, Needs::NoTensor);
    add({"aten.stack"}, rule_stack, Needs::NoTensor);
    add({"aten.new_empty", "aten.new_zeros", "aten.new_ones", "aten.new_full",
         "aten.new_empty_strided"},
        rule_new_empty, Needs::Tensor);
    add({"aten.permute"}, rule_permute, Needs::Tensor);
    add({"aten.t", "aten.transpose"}, rule_t, Needs::Tensor);
    add({"aten.expand"}, rule_expand, Needs::Tensor);
    add({"aten.unsqueeze"}, rule_unsqueeze, Needs::Tensor);
    add({"aten.squeeze"}, rule_squeeze, Needs::Tensor);
    add({"aten.slice", "aten.narrow"}, rule_slice, Needs::Tensor);
    add({"aten.select"}, rule_select, Needs::Tensor);
    add({"aten.embedding"}, rule_embedding, Needs::Tensor);
    add({"aten.native_layer_norm"}, rule_native_layer_norm, Needs::Tensor);
    add({"aten.native_layer_norm_backward"}, rule_native_layer_norm_backward, Needs::Tensor);
    add({"aten.select_backward", "aten.slice_backward", "aten.diagonal_backward"},
        rule_into_input_sizes, Needs::Tensor);
    add({"aten.native_dropout"}, rule_native_dropout, Needs::Tensor);
    add({"aten.view_as_complex"}, rule_view_as_complex, Needs::Tensor);
    add({"aten.view_as_real"}, rule_view_as_real, Needs::Tensor);
    add({"aten._conj", "aten.conj", "aten._neg_view", "aten.resolve_conj", "aten.resolve_neg",
         "aten.conj_physical"},
        rule_conj, Needs::Tensor);
    add({"aten.embedding_dense_backward"}, rule_embedding_dense_backward, Needs::Tensor);
    add({"aten._grouped_mm"}, rule_grouped_mm, Needs::Tensor);
    add({"aten.constant_pad_nd"}, rule_constant_pad_nd, Needs::Tensor);
    add({"aten.index"}, rule_index, Needs::Tensor);
    add({"aten.gather"}, rule_gather, Needs::Tensor);
    add({"aten.topk"}, rule_topk, Needs::Tensor);
    add({"aten.sort"}, rule_sort, Needs::Tensor);
    add({"aten.histc"}, rule_histc, Needs::Tensor);
    add({"aten.cumsum", "aten.cumprod"}, rule_cumsum, Needs::Tensor);
    add({"prims.device_put"}, rule_device_put, Needs::Tensor);
    return t;
  }();
  return *table;
}

std::optional<InferredVal> apply(const ShapeRule& r, const Ctx& c, std::string_view p,
                                 const TensorMeta* x) {
  if ((r.needs == Needs::NoTensor && x) || (r.needs == Needs::Tensor && !x))
    return std::nullopt;
  return r.rule(c, p, x);
}

// (the op's result, then a new value of each of `_all_bases`): the
// result's metadata is the op's own, unknown here.
std::optional<InferredVal> auto_functionalized_v2(const Ctx& c) {
  const Value* bases = c.n.kwarg("_all_bases");
  if (!bases || bases->kind != Value::Kind::List)
    return std::nullopt;
  std::vector<std::optional<TensorMeta>> outs(1);
  for (const auto& b : bases->items()) {
    const TensorMeta* m = b.is_ref() ? ref_meta(c.g, b) : nullptr;
    if (!m)
      return std::nullopt;
    outs.push_back(fresh(m->shape, m->dtype, m->device));
  }
  return multi(std::move(outs));
}

} // namespace

std::optional<InferredVal> infer_fx_output(const Graph& g, const Node& n,
                                           const FxSymbolHints& hints, const FxScalars& scalars) {
  Ctx c{g, n, hints, scalars};
  const std::string& t = n.target;
  if (is_getitem_target(t)) {
    const Value* src = c.arg(0);
    const Value* idx = c.arg(1);
    if (!src || !src->is_ref() || !idx)
      return std::nullopt;
    const Node& from = g.nodes[static_cast<size_t>(src->i)];
    auto k = selected_output(from, *idx);
    if (!k || *k >= from.val.size() || !from.val[*k])
      return std::nullopt;
    TensorMeta m = *from.val[*k];
    return single(std::move(m));
  }
  if (!inputs_known(c))
    return std::nullopt;
  if (is_wait_node(n)) {
    const TensorMeta* in = c.meta(0);
    if (!in)
      return std::nullopt;
    return single(*in);
  }
  if (auto sig = collective_signature(t))
    return collective(c, *sig);
  if (t == "higher_order.flex_attention" || t == "higher_order.flex_attention_backward")
    return flex_attention(c, t == "higher_order.flex_attention_backward");
  if (t == "higher_order.triton_kernel_wrapper_functional")
    return triton_wrapper(c);
  if (t == "higher_order.auto_functionalized_v2")
    return auto_functionalized_v2(c);
  const std::string_view p = overload_packet(t);
  const TensorMeta* x = c.meta(0);
  const auto& rules = rule_table();
  const auto rule = rules.find(p);
  if (rule != rules.end() && rule->second.before_pointwise)
    return apply(rule->second, c, p, x);
  if (is_pointwise_target(t))
    return pointwise(c, p);
  if (t.rfind("operator.", 0) == 0 || t.rfind("_operator.", 0) == 0)
    return python_operator(c, t);
  if (rule != rules.end())
    return apply(rule->second, c, p, x);
  if (is_reduction_target(t))
    return reduction(c);
  if (p.find("_attention") != std::string_view::npos && p.substr(0, 5) == "aten.")
    return attention(c, p);
  return std::nullopt;
}

} // namespace osched
