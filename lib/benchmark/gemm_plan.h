#pragma once
// How a graph matmul maps onto one cuBLAS call. cuBLAS is column-major, so
// the row-major C[m,n] = A[m,k] B[k,n] runs as C^T = B^T A^T: B is cuBLAS's
// first operand and A its second. A row-major operand with unit column stride
// is its own transpose in column-major terms (no transpose flag, ld = row
// stride); one with unit row stride (a transposed view) takes the transpose
// flag (ld = column stride); any other layout is timed as contiguous.
// Header-only: the GPU plugin uses it without linking the library, and the
// tests check it against a CPU reference.

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "benchmark/matmul_problem.h"

namespace osched {

struct GemmOperandPlan {
  bool transpose = false;
  int64_t ld = 1;
  int64_t batch_stride = 0;
  size_t elements = 0; // buffer size that covers every element read
};

struct GemmPlan {
  GemmOperandPlan first;  // the graph's B
  GemmOperandPlan second; // the graph's A
  int64_t rows = 0;       // cuBLAS m: the graph's n
  int64_t cols = 0;       // cuBLAS n: the graph's m
  int64_t inner = 0;      // k
  int64_t ldc = 0;
  int64_t stride_c = 0;
  int64_t batch = 1;
  size_t c_elements = 0;
  bool accumulate = false; // addmm / baddbmm: beta = 1 on a bias-filled C
  bool batched = false;
};

// Elements an operand's strides can reach.
inline size_t operand_span(const MatmulOperand& o) {
  size_t span = 1;
  for (size_t i = 0; i < o.shape.size(); ++i) {
    if (o.shape[i] == 0)
      return 0;
    span += static_cast<size_t>(o.shape[i] - 1) *
            static_cast<size_t>(std::max<int64_t>(o.stride[i], 0));
  }
  return span;
}

// Row-major [r, c] with strides (sr, sc), read as the column-major [c, r].
inline GemmOperandPlan plan_operand(const MatmulOperand& o, int64_t r, int64_t c, size_t offset,
                                    int64_t batch) {
  GemmOperandPlan p;
  const int64_t sr = o.stride[offset], sc = o.stride[offset + 1];
  if (sc == 1 || c == 1) {
    p.ld = std::max<int64_t>({sr, c, 1});
  } else if (sr == 1 || r == 1) {
    p.transpose = true;
    p.ld = std::max<int64_t>({sc, r, 1});
  } else {
    p.ld = std::max<int64_t>(c, 1); // timed as contiguous
  }
  p.batch_stride = offset == 1 ? std::max<int64_t>(o.stride[0], 0) : 0;
  p.elements = std::max(operand_span(o), static_cast<size_t>(batch * r * c));
  return p;
}

inline GemmPlan plan_gemm(const MatmulProblem& p) {
  GemmPlan g;
  g.batched = p.op == MatmulOp::Bmm || p.op == MatmulOp::Baddbmm;
  const size_t off = g.batched ? 1 : 0;
  g.first = plan_operand(p.b, p.k, p.n, off, p.batch);
  g.second = plan_operand(p.a, p.m, p.k, off, p.batch);
  g.rows = p.n;
  g.cols = p.m;
  g.inner = p.k;
  g.ldc = std::max<int64_t>(p.n, 1);
  g.stride_c = p.m * p.n;
  g.batch = p.batch;
  g.c_elements = static_cast<size_t>(p.batch * p.m * p.n);
  g.accumulate = p.op == MatmulOp::Addmm || p.op == MatmulOp::Baddbmm;
  return g;
}

} // namespace osched
