#include "scheduler/ancestor_bits.h"

namespace osched {

AncestorBits::AncestorBits(const DependencyGraph& dg, const std::vector<char>& member,
                           size_t max_words) {
  const auto n = static_cast<size_t>(dg.size());
  size_t members = 0;
  for (size_t v = 0; v < n; ++v)
    members += member[v] != 0;
  const size_t words = (members + 63) / 64;
  if (members == 0 || n * words > max_words)
    return;
  words_ = words;
  rank_.assign(n, -1);
  int32_t next = 0;
  for (size_t v = 0; v < n; ++v)
    if (member[v])
      rank_[v] = next++;
  bits_.assign(n * words, 0);
  for (size_t v = 0; v < n; ++v) {
    uint64_t* row = bits_.data() + v * words;
    auto [b, e] = dg.inputs(static_cast<NodeId>(v));
    for (auto p = b; p != e; ++p) {
      const auto u = static_cast<size_t>(*p);
      const uint64_t* in = bits_.data() + u * words;
      for (size_t w = 0; w < words; ++w)
        row[w] |= in[w];
      if (rank_[u] >= 0)
        row[static_cast<size_t>(rank_[u]) / 64] |= uint64_t{1} << (rank_[u] % 64);
    }
  }
}

} // namespace osched
