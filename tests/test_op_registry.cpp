// The op registry (lib/ops/op_registry.h): one row per packet, the class,
// FLOP and shape answers of every consumer coming from it.
// tests/check_op_registry.py checks the rows against PyTorch itself.
#include <catch2/catch.hpp>

#include <set>
#include <string>

#include "cost/flops.h"
#include "fx/fx_shape_infer.h"
#include "ops/op_registry.h"
#include "ops/op_table.h"
#include "test_support.h"

using namespace osched;
using namespace osched::test;

TEST_CASE("op registry: one row per packet; formulas only on compute rows; every shape rule a "
          "row names is the importer's, and every rule is named") {
  std::set<std::string_view> packets;
  std::set<ShapeRule> named;
  size_t rows = 0;
  for (const OpRow* r = all_ops().begin; r != all_ops().end; ++r, ++rows) {
    CHECK(packets.insert(r->packet).second);
    CHECK((r->cls == OpClass::Compute) == (r->flops != FlopFormula::None));
    if (r->shape != ShapeRule::None) {
      CHECK(has_shape_rule(r->shape));
      named.insert(r->shape);
    }
    CHECK(find_op(r->packet) == r);
  }
  CHECK(rows > 200);
  for (int v = 1; v <= static_cast<int>(ShapeRule::DevicePut); ++v)
    CHECK(named.count(static_cast<ShapeRule>(v)) == 1);
  CHECK_FALSE(has_shape_rule(ShapeRule::None));
  CHECK(find_op("aten.no_such_op") == nullptr);
}

TEST_CASE("op registry: the classes op_table answers come from the rows") {
  CHECK(is_compute_target("aten.mm.default"));
  CHECK(is_compute_target("aten.convolution_overrideable.default"));
  CHECK(is_pointwise_target("aten.add.Tensor"));
  CHECK(is_reduction_target("aten.sum.dim_IntList"));
  CHECK(is_metadata_target("aten.sym_size.int"));
  CHECK(is_view_target("operator.getitem"));
  CHECK_FALSE(is_view_target("aten.contiguous.default")); // may alias; where kept, it copies
  CHECK_FALSE(is_compute_target("aten.add.Tensor"));
}

TEST_CASE("op registry: convolution_overrideable is costed as a convolution (by hand)") {
  // x [1, 3, 8, 8] * w [4, 3, 3, 3] -> [1, 4, 6, 6]: 2 * 36 outputs * 4 channels * 3 * 9 taps,
  // and transposed (argument 6) counts the input's spatial size instead: 2 * 64 * 4 * 3 * 9.
  auto conv = [](const char* transposed, const char* out_shape) {
    return inline_graph(std::string(R"(
      {"name": "in", "op": "placeholder", "target": "in",
       "val": {"dtype": "float32", "shape": [1, 3, 8, 8], "stride": [192, 64, 8, 1], "device": "cuda:0"}},
      {"name": "w", "op": "placeholder", "target": "w",
       "val": {"dtype": "float32", "shape": [4, 3, 3, 3], "stride": [27, 9, 3, 1], "device": "cuda:0"}},
      {"name": "conv", "op": "call_function", "target": "aten.convolution_overrideable.default",
       "args": [{"node": "in"}, {"node": "w"}, null, [1, 1], [0, 0], [1, 1], )") +
                        transposed + R"(, [0, 0], 1],
       "val": {"dtype": "float32", "shape": )" +
                        out_shape + R"(, "stride": [144, 36, 6, 1], "device": "cuda:0"}})");
  };
  const Graph g = conv("false", "[1, 4, 6, 6]");
  CHECK(count_flops(g, *g.find("conv")) == 2.0 * 36 * 4 * 3 * 9);
  const Graph t = conv("true", "[1, 4, 6, 6]");
  CHECK(count_flops(t, *t.find("conv")) == 2.0 * 64 * 4 * 3 * 9);
}
