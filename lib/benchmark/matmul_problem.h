#pragma once
// A matmul a compute node performs, as the GPU benchmark runs it: operator,
// dtype, and the shapes and strides of its operands. Its key (together with
// the GPU name) identifies a measurement in the benchmark cache.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "graph/dtype.h"
#include "graph/graph.h"

namespace osched {

enum class MatmulOp : uint8_t { Mm, Addmm, Bmm, Baddbmm };

struct MatmulOperand {
  std::vector<int64_t> shape;
  std::vector<int64_t> stride;
};

struct MatmulProblem {
  MatmulOp op = MatmulOp::Mm;
  DType dtype = DType::BFloat16;
  MatmulOperand a; // [m,k] or [b,m,k]
  MatmulOperand b; // [k,n] or [b,k,n]
  int64_t batch = 1;
  int64_t m = 0, n = 0, k = 0;

  // "aten.mm.default|bfloat16|[8192,4096]/[4096,1]|[4096,4096]/[1,4096]"
  std::string key() const;
};

std::string_view matmul_op_target(MatmulOp op);

// The problem node n runs, or nullopt when it is not a benchmarkable matmul:
// another operator, a dtype cuBLAS is not asked to time here (only float32,
// float16, bfloat16), missing metadata, or an unbacked symbolic dim.
std::optional<MatmulProblem> matmul_problem(const Graph& g, NodeId n);

} // namespace osched
