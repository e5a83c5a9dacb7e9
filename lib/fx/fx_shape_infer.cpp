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
#include "ops/op_registry.h"
#include "ops/op_table.h"

namespace osched {
namespace {

using namespace shape_rules;

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

struct RuleEntry {
  Rule rule = nullptr;
  Needs needs = Needs::Any;
  bool before_pointwise =
      false; // decided before the pointwise family (dtype conversions, same-shape ops)
};

// Each ShapeRule of the op registry (ops/op_registry.h), by value.
const RuleEntry& rule_entry(ShapeRule r) {
  using S = ShapeRule;
  static const auto* table = [] {
    const std::pair<ShapeRule, RuleEntry> entries[] = {
        {S::Convert, {rule_convert, Needs::Any, true}},
        {S::SameShape, {rule_same_shape, Needs::Any, true}},
        {S::ViewLike, {view_like, Needs::Any, false}},
        {S::Matmul, {matmul, Needs::Any, false}},
        {S::ValuesAndIndices, {values_and_indices, Needs::Any, false}},
        {S::Split, {split, Needs::Any, false}},
        {S::Full, {rule_full, Needs::NoTensor, false}},
        {S::Cat, {rule_cat, Needs::NoTensor, false}},
        {S::Stack, {rule_stack, Needs::NoTensor, false}},
        {S::NewEmpty, {rule_new_empty, Needs::Tensor, false}},
        {S::Permute, {rule_permute, Needs::Tensor, false}},
        {S::Transpose, {rule_t, Needs::Tensor, false}},
        {S::Expand, {rule_expand, Needs::Tensor, false}},
        {S::Unsqueeze, {rule_unsqueeze, Needs::Tensor, false}},
        {S::Squeeze, {rule_squeeze, Needs::Tensor, false}},
        {S::Slice, {rule_slice, Needs::Tensor, false}},
        {S::Select, {rule_select, Needs::Tensor, false}},
        {S::Embedding, {rule_embedding, Needs::Tensor, false}},
        {S::LayerNorm, {rule_native_layer_norm, Needs::Tensor, false}},
        {S::LayerNormBackward, {rule_native_layer_norm_backward, Needs::Tensor, false}},
        {S::IntoInputSizes, {rule_into_input_sizes, Needs::Tensor, false}},
        {S::Dropout, {rule_native_dropout, Needs::Tensor, false}},
        {S::ViewAsComplex, {rule_view_as_complex, Needs::Tensor, false}},
        {S::ViewAsReal, {rule_view_as_real, Needs::Tensor, false}},
        {S::Conj, {rule_conj, Needs::Tensor, false}},
        {S::EmbeddingDenseBackward, {rule_embedding_dense_backward, Needs::Tensor, false}},
        {S::GroupedMm, {rule_grouped_mm, Needs::Tensor, false}},
        {S::ConstantPadNd, {rule_constant_pad_nd, Needs::Tensor, false}},
        {S::Index, {rule_index, Needs::Tensor, false}},
        {S::Gather, {rule_gather, Needs::Tensor, false}},
        {S::TopK, {rule_topk, Needs::Tensor, false}},
        {S::Sort, {rule_sort, Needs::Tensor, false}},
        {S::Histc, {rule_histc, Needs::Tensor, false}},
        {S::Cumsum, {rule_cumsum, Needs::Tensor, false}},
        {S::DevicePut, {rule_device_put, Needs::Tensor, false}},
    };
    auto* t = new std::array<RuleEntry, 256>{};
    for (const auto& [id, e] : entries)
      (*t)[static_cast<size_t>(id)] = e;
    return t;
  }();
  return (*table)[static_cast<size_t>(r)];
}

std::optional<InferredVal> apply(const RuleEntry& r, const Ctx& c, std::string_view p,
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
  const OpRow* row = find_op(p);
  const RuleEntry* rule = row && row->shape != ShapeRule::None ? &rule_entry(row->shape) : nullptr;
  if (rule && rule->before_pointwise)
    return apply(*rule, c, p, x);
  if (is_pointwise_target(t))
    return pointwise(c, p);
  if (t.rfind("operator.", 0) == 0 || t.rfind("_operator.", 0) == 0)
    return python_operator(c, t);
  if (rule)
    return apply(*rule, c, p, x);
  if (is_reduction_target(t))
    return reduction(c);
  if (p.find("_attention") != std::string_view::npos && p.substr(0, 5) == "aten.")
    return attention(c, p);
  return std::nullopt;
}

bool has_shape_rule(ShapeRule r) {
  return r != ShapeRule::None && rule_entry(r).rule != nullptr;
}

} // namespace osched
