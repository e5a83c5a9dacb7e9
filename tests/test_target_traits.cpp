// Target traits are decided once per distinct target and cached in the
// interned string: every cached answer must equal the string test it
// replaces, for every operator the tables know and for near misses.

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "ops/collective.h"
#include "ops/op_table.h"
#include "ops/target_traits.h"

using namespace osched;

namespace {

bool same(const std::optional<CollectiveSignature>& a,
          const std::optional<CollectiveSignature>& b) {
  if (a.has_value() != b.has_value())
    return false;
  return !a || (a->kind == b->kind && a->coalesced == b->coalesced &&
                a->group_name_pos == b->group_name_pos && a->ranks_pos == b->ranks_pos &&
                a->group_size_pos == b->group_size_pos);
}

} // namespace

TEST_CASE("target traits: cached answers equal the string tests") {
  std::vector<std::string> packets = {"_c10d_functional.all_gather_into_tensor",
                                      "_c10d_functional.all_gather_into_tensor_out",
                                      "_c10d_functional.all_gather_into_tensor_coalesced",
                                      "_c10d_functional.reduce_scatter_tensor",
                                      "_c10d_functional.reduce_scatter_tensor_coalesced",
                                      "_c10d_functional.all_reduce",
                                      "_c10d_functional.all_reduce_",
                                      "_c10d_functional.all_reduce_coalesced_",
                                      "_c10d_functional.all_to_all_single",
                                      "_c10d_functional.broadcast_",
                                      "_c10d_functional_autograd.reduce_scatter_tensor",
                                      "c10d_functional.all_gather_into_tensor",
                                      "c10d_functional.reduce_scatter_tensor_coalesced",
                                      "c10d_functional.all_to_all_single",
                                      "c10d_functional.broadcast",
                                      "_c10d_functional.wait_tensor",
                                      "c10d_functional.wait_tensor",
                                      "_c10d_functional_autograd.wait_tensor",
                                      "c10d.allreduce_",
                                      "_dtensor.shard_dim_alltoall",
                                      "aten.mm",
                                      "aten.addmm",
                                      "aten.bmm",
                                      "aten._scaled_dot_product_flash_attention",
                                      "aten._scaled_dot_product_flash_attention_backward",
                                      "higher_order.flex_attention",
                                      "aten.view",
                                      "aten.permute",
                                      "aten.t",
                                      "aten.split_with_sizes",
                                      "aten.add",
                                      "aten.mul",
                                      "aten.gelu_backward",
                                      "prims.convert_element_type",
                                      "aten.sym_size",
                                      "aten.sym_stride",
                                      "aten.empty",
                                      "aten.copy_",
                                      "aten.mmm",
                                      "aten.m",
                                      "mm",
                                      "getitem",
                                      "operator.getitem",
                                      "_operator.getitem",
                                      "output",
                                      "",
                                      ".",
                                      "..",
                                      "aten",
                                      "_c10d",
                                      "c10d_functional",
                                      "_c10d_functional.all_gather_into_tensorX"};
  std::vector<std::string> targets;
  for (const auto& p : packets) {
    targets.push_back(p);
    targets.push_back(p + ".default");
    targets.push_back(p + ".Tensor");
  }
  for (const auto& t : targets) {
    INFO(t);
    // Twice: the first call decides and stores, the second reads the memo.
    for (int pass = 0; pass < 2; ++pass) {
      InternedString it(t);
      CHECK(target_has(it, target_bit::kCompute) == is_compute_target(t));
      CHECK(target_has(it, target_bit::kView) == is_view_target(t));
      CHECK(target_has(it, target_bit::kPointwise) == is_pointwise_target(t));
      CHECK(target_has(it, target_bit::kMetadata) == is_metadata_target(t));
      CHECK(target_has(it, target_bit::kGetitem) == is_getitem_target(t));
      CHECK(target_has(it, target_bit::kWait) == is_wait_target(t));
      CHECK(target_has(it, target_bit::kCollective) == collective_signature(t).has_value());
      CHECK(same(collective_signature(it), collective_signature(std::string_view(t))));
      CHECK(target_has(it, target_bit::kCommNamespace) ==
            (t.find("c10") != std::string::npos || t.find("_dtensor") != std::string::npos));
      CHECK((it.memo() & target_bit::kKnown) != 0);
    }
  }
}

TEST_CASE("target traits: a node's own tags and is_view still win over the target") {
  Node n;
  n.op = NodeOp::CallFunction;
  n.target = "aten.add.Tensor";
  CHECK(is_pointwise_node(n));
  n.edit_attrs().tags = std::vector<std::string>{"inplace_view"};
  CHECK_FALSE(is_pointwise_node(n));
  n.target = "aten.view.default";
  CHECK(is_view_node(n));
  n.is_view = false;
  CHECK_FALSE(is_view_node(n));
  n.op = NodeOp::Placeholder;
  n.target = "aten.mm.default";
  CHECK_FALSE(is_compute_node(n));
}

TEST_CASE("interned strings: equal texts share one entry across threads of use") {
  InternedString a("aten.mm.default");
  std::string copy = "aten.mm.default";
  InternedString b(copy);
  CHECK(a == b);
  CHECK(a.str() == copy);
  CHECK(InternedString("aten.bmm.default") != a);
  CHECK(InternedString().empty());
}
