#pragma once
// What an operator target is (compute, view, pointwise, a collective and its
// signature, a wait, ...), decided from its text once per distinct target and
// kept in the interned string's memo word. The scheduler asks these questions
// of every node several times; the string tests behind them (table scans,
// overload-packet splits) would otherwise run each time.

#include <cstdint>
#include <optional>

#include "graph/interned_string.h"
#include "ops/collective.h"

namespace osched {

namespace target_bit {
constexpr uint32_t kKnown = 1u << 0;
constexpr uint32_t kCompute = 1u << 1;
constexpr uint32_t kView = 1u << 2;
constexpr uint32_t kPointwise = 1u << 3;
constexpr uint32_t kMetadata = 1u << 4;
constexpr uint32_t kGetitem = 1u << 5;
constexpr uint32_t kWait = 1u << 6;
constexpr uint32_t kCollective = 1u << 7; // signature in bits 8-20
// Mentions "c10" or "_dtensor": a communication op of some kind, recognised
// or not (the scheduler never moves one onto a collective's path).
constexpr uint32_t kCommNamespace = 1u << 21;
// An op collectives may not move across (ops/op_barrier.h): one that
// communicates, or one the tool cannot classify.
constexpr uint32_t kCommBarrier = 1u << 22;
constexpr uint32_t kOpaque = 1u << 23;
} // namespace target_bit

uint32_t classify_target(const InternedString& target);

// The target's class bits (target_bit::*), computed on first use.
inline uint32_t target_bits(const InternedString& target) {
  uint32_t m = target.memo();
  return m ? m : classify_target(target);
}

inline bool target_has(const InternedString& target, uint32_t bit) {
  return (target_bits(target) & bit) != 0;
}

} // namespace osched
