#include "benchmark/matmul_problem.h"

#include "cost/flops.h"

namespace osched {
namespace {

std::optional<MatmulOperand> operand(const TensorMeta* t, size_t rank) {
  if (!t || t->shape.size() != rank || t->stride.size() != rank)
    return std::nullopt;
  MatmulOperand o;
  for (size_t i = 0; i < rank; ++i) {
    // A symbolic dim is benchmarked at its hint; an unbacked one cannot be.
    if (!t->shape[i].is_known() || !t->stride[i].is_known())
      return std::nullopt;
    o.shape.push_back(t->shape[i].value);
    o.stride.push_back(t->stride[i].value);
  }
  return o;
}

std::string dims(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i)
    s += (i ? "," : "") + std::to_string(v[i]);
  return s + "]";
}

} // namespace

std::string_view matmul_op_target(MatmulOp op) {
  switch (op) {
  case MatmulOp::Mm:
    return "aten.mm.default";
  case MatmulOp::Addmm:
    return "aten.addmm.default";
  case MatmulOp::Bmm:
    return "aten.bmm.default";
  case MatmulOp::Baddbmm:
    return "aten.baddbmm.default";
  }
  return "";
}

std::string MatmulProblem::key() const {
  return std::string(matmul_op_target(op)) + "|" + std::string(dtype_name(dtype)) + "|" +
         dims(a.shape) + "/" + dims(a.stride) + "|" + dims(b.shape) + "/" + dims(b.stride);
}

std::optional<MatmulProblem> matmul_problem(const Graph& g, NodeId id) {
  const Node& node = g.nodes[id];
  MatmulProblem p;
  size_t first = 0; // argument index of the left operand
  size_t rank = 2;
  if (node.target == "aten.mm.default") {
    p.op = MatmulOp::Mm;
  } else if (node.target == "aten.addmm.default") {
    p.op = MatmulOp::Addmm;
    first = 1;
  } else if (node.target == "aten.bmm.default") {
    p.op = MatmulOp::Bmm;
    rank = 3;
  } else if (node.target == "aten.baddbmm.default") {
    p.op = MatmulOp::Baddbmm;
    first = 1;
    rank = 3;
  } else {
    return std::nullopt;
  }
  if (node.args.size() < first + 2)
    return std::nullopt;
  const TensorMeta* ta = ref_meta(g, node.args[first]);
  const TensorMeta* tb = ref_meta(g, node.args[first + 1]);
  auto a = operand(ta, rank);
  auto b = operand(tb, rank);
  if (!a || !b || ta->dtype != tb->dtype)
    return std::nullopt;
  if (ta->dtype != DType::Float32 && ta->dtype != DType::Float16 && ta->dtype != DType::BFloat16)
    return std::nullopt;
  size_t off = rank - 2;
  if (a->shape[off + 1] != b->shape[off])
    return std::nullopt;
  if (rank == 3 && a->shape[0] != b->shape[0])
    return std::nullopt;
  p.dtype = ta->dtype;
  p.batch = rank == 3 ? a->shape[0] : 1;
  p.m = a->shape[off];
  p.k = a->shape[off + 1];
  p.n = b->shape[off + 1];
  p.a = std::move(*a);
  p.b = std::move(*b);
  return p;
}

} // namespace osched
