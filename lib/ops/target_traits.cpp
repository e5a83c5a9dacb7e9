#include "ops/target_traits.h"

#include <utility>

#include "ops/op_barrier.h"
#include "ops/op_table.h"

namespace osched {
namespace {

// Signature fields packed above the class bits; positions are -1..5, kept +1.
constexpr int kKindShift = 8;       // 3 bits
constexpr int kCoalescedShift = 11; // 1 bit
constexpr int kGroupNameShift = 12; // 3 bits each from here
constexpr int kRanksShift = 15;
constexpr int kGroupSizeShift = 18;

uint32_t pack_position(int pos, int shift) {
  return static_cast<uint32_t>(pos + 1) << shift;
}
int unpack_position(uint32_t bits, int shift) {
  return static_cast<int>((bits >> shift) & 7u) - 1;
}

} // namespace

uint32_t classify_target(const InternedString& target) {
  using namespace target_bit;
  std::string_view t = target;
  uint32_t bits = kKnown;
  // Each class bit is the string test it replaces.
  const std::pair<bool (*)(std::string_view), uint32_t> tests[] = {
      {is_compute_target, kCompute},     {is_view_target, kView},
      {is_pointwise_target, kPointwise}, {is_metadata_target, kMetadata},
      {is_getitem_target, kGetitem},     {is_wait_target, kWait}};
  for (const auto& [test, bit] : tests)
    if (test(t))
      bits |= bit;
  if (t.find("c10") != std::string_view::npos || t.find("_dtensor") != std::string_view::npos)
    bits |= kCommNamespace;
  switch (target_barrier_kind(t)) {
  case BarrierKind::Communication:
    bits |= kCommBarrier;
    break;
  case BarrierKind::Unknown:
    bits |= kOpaque;
    break;
  case BarrierKind::None:
    break;
  }
  if (auto sig = collective_signature(t)) {
    bits |= kCollective;
    bits |= static_cast<uint32_t>(sig->kind) << kKindShift;
    bits |= static_cast<uint32_t>(sig->coalesced) << kCoalescedShift;
    bits |= pack_position(sig->group_name_pos, kGroupNameShift);
    bits |= pack_position(sig->ranks_pos, kRanksShift);
    bits |= pack_position(sig->group_size_pos, kGroupSizeShift);
  }
  target.set_memo(bits);
  return bits;
}

std::optional<CollectiveSignature> collective_signature(const InternedString& target) {
  uint32_t bits = target_bits(target);
  if (!(bits & target_bit::kCollective))
    return std::nullopt;
  CollectiveSignature sig;
  sig.kind = static_cast<CollectiveKind>((bits >> kKindShift) & 7u);
  sig.coalesced = ((bits >> kCoalescedShift) & 1u) != 0;
  sig.group_name_pos = unpack_position(bits, kGroupNameShift);
  sig.ranks_pos = unpack_position(bits, kRanksShift);
  sig.group_size_pos = unpack_position(bits, kGroupSizeShift);
  return sig;
}

} // namespace osched
