#pragma once
// Buffer sizes and element counts of one NCCL benchmark run. Header-only: the
// GPU plugin uses it without linking the library, and tests check that every
// call stays inside its buffers.

#include <algorithm>
#include <cstdint>

#include "ops/collective.h"

namespace osched {

struct CollectivePlan {
  int64_t elem_bytes = 1;
  int64_t count = 0;      // elements of the per-rank input (a multiple of nranks)
  int64_t nccl_count = 0; // the count argument: per-rank output for reduce-scatter, else the input
  int64_t chunk = 0;      // all-to-all: elements sent to (and received from) each peer
  int64_t send_bytes = 0;
  int64_t recv_bytes = 0;
};

// `input_bytes` per rank, rounded down to whole elements and up to a multiple
// of the rank count (at least one element per rank).
inline CollectivePlan plan_collective(CollectiveKind kind, int64_t input_bytes, int64_t elem_bytes,
                                      int nranks) {
  CollectivePlan p;
  const int64_t n = std::max(nranks, 1);
  p.elem_bytes = std::max<int64_t>(elem_bytes, 1);
  int64_t count = std::max<int64_t>(input_bytes / p.elem_bytes, 1);
  count = (count + n - 1) / n * n;
  p.count = count;
  p.send_bytes = count * p.elem_bytes;
  p.nccl_count = kind == CollectiveKind::ReduceScatter ? count / n : count;
  p.chunk = count / n;
  switch (kind) {
  case CollectiveKind::AllGather:
    p.recv_bytes = p.send_bytes * n;
    break;
  case CollectiveKind::ReduceScatter:
    p.recv_bytes = p.send_bytes / n;
    break;
  case CollectiveKind::AllReduce:
  case CollectiveKind::AllToAll:
  case CollectiveKind::Broadcast:
    p.recv_bytes = p.send_bytes;
    break;
  }
  return p;
}

} // namespace osched
