#include "scheduler/potential_overlap.h"

#include <algorithm>
#include <cstdint>
#include <functional>

namespace osched {
namespace {

// Bits [0, k) of a 64-bit mask.
uint64_t low_bits(size_t k) {
  return k >= 64 ? ~uint64_t{0} : (uint64_t{1} << k) - 1;
}

// Nodes whose nearby checks ran out of budget, resolved 64 at a time: one
// sweep marks the ancestors and one the descendants of all 64 (a bit each;
// node indices are topological), then one pass over the compute nodes each
// way finds every source's nearest unrelated compute on either side. That is
// O(N + E) per 64 such nodes, where marking each alone cost O(N + E) per node.
void resolve_far(const DependencyGraph& dg, const std::vector<NodeId>& compute,
                 const std::vector<NodeId>& nodes, std::vector<size_t> far,
                 std::vector<NodeId>& result) {
  std::sort(far.begin(), far.end(), [&](size_t a, size_t b) { return nodes[a] < nodes[b]; });
  const size_t n = static_cast<size_t>(dg.size());
  std::vector<uint64_t> anc(n), desc(n);
  for (size_t first = 0; first < far.size(); first += 64) {
    const size_t count = std::min<size_t>(64, far.size() - first);
    auto source = [&](size_t j) { return nodes[far[first + j]]; };
    const NodeId lo = source(0), hi = source(count - 1);
    std::fill(anc.begin(), anc.begin() + hi + 1, 0);
    std::fill(desc.begin() + lo, desc.end(), 0);
    for (size_t j = 0; j < count; ++j) {
      anc[source(j)] |= uint64_t{1} << j;
      desc[source(j)] |= uint64_t{1} << j;
    }
    for (NodeId v = hi; v >= 0; --v)
      if (anc[v]) {
        auto [b, e] = dg.inputs(v);
        for (auto p = b; p != e; ++p)
          anc[*p] |= anc[v];
      }
    for (NodeId v = lo; v < static_cast<NodeId>(n); ++v)
      if (desc[v]) {
        auto [b, e] = dg.users(v);
        for (auto p = b; p != e; ++p)
          desc[*p] |= desc[v];
      }
    // Sources are sorted, so those before a position are a prefix of the
    // bits. Ascending, the first unrelated compute after each source; then
    // descending, the last one before it.
    std::vector<NodeId> left(count, -1), right(count, -1);
    uint64_t need = low_bits(count);
    size_t below = 0; // sources at positions below c
    for (NodeId c : compute) {
      while (below < count && source(below) < c)
        ++below;
      for (uint64_t m = ~(anc[c] | desc[c]) & low_bits(below) & need; m; m &= m - 1) {
        const int j = __builtin_ctzll(m);
        right[j] = c;
        need &= ~(uint64_t{1} << j);
      }
    }
    need = low_bits(count);
    below = count;
    for (auto it = compute.rbegin(); it != compute.rend(); ++it) {
      const NodeId c = *it;
      while (below > 0 && source(below - 1) >= c)
        --below;
      for (uint64_t m = ~(anc[c] | desc[c]) & ~low_bits(below) & need; m; m &= m - 1) {
        const int j = __builtin_ctzll(m);
        left[j] = c;
        need &= ~(uint64_t{1} << j);
      }
    }
    // Nearest first; a tie goes to the earlier compute node.
    for (size_t j = 0; j < count; ++j) {
      const NodeId x = source(j);
      NodeId pick = left[j];
      if (right[j] >= 0 && (pick < 0 || right[j] - x < x - pick))
        pick = right[j];
      result[far[first + j]] = pick;
    }
  }
}

// Lower bounds on how much of the compute order is related to each node,
// from its neighbours alone (one pass each way, O(E log E)): `prefix[v]` = k
// proves compute nodes 0..k-1 are all ancestors of v, `suffix[v]` = k proves
// compute nodes k.. are all descendants. A node's bound is the best of its
// neighbours' bounds, extended by neighbours that are themselves the adjacent
// compute nodes (a matmul pair on two branches). On chain-like stretches (a
// TP all-reduce between two matmuls) they are exact, so such nodes are known
// to have no independent compute without any search.
struct ComputeCoverage {
  std::vector<int32_t> prefix, suffix;
};

ComputeCoverage compute_coverage(const DependencyGraph& dg, const std::vector<NodeId>& compute) {
  const NodeId n = dg.size();
  const int32_t nc = static_cast<int32_t>(compute.size());
  std::vector<int32_t> ordinal(static_cast<size_t>(n), -1);
  for (int32_t j = 0; j < nc; ++j)
    ordinal[compute[j]] = j;
  ComputeCoverage cov;
  cov.prefix.assign(static_cast<size_t>(n), 0);
  cov.suffix.assign(static_cast<size_t>(n), nc);
  std::vector<int32_t> points;
  for (NodeId v = 0; v < n; ++v) {
    int32_t k = 0;
    points.clear();
    auto [b, e] = dg.inputs(v);
    for (auto p = b; p != e; ++p) {
      k = std::max(k, cov.prefix[*p]);
      if (ordinal[*p] >= 0)
        points.push_back(ordinal[*p]);
    }
    std::sort(points.begin(), points.end());
    for (int32_t j : points)
      if (j == k)
        ++k;
    cov.prefix[v] = k;
  }
  for (NodeId v = n - 1; v >= 0; --v) {
    int32_t k = nc;
    points.clear();
    auto [b, e] = dg.users(v);
    for (auto p = b; p != e; ++p) {
      k = std::min(k, cov.suffix[*p]);
      if (ordinal[*p] >= 0)
        points.push_back(ordinal[*p]);
    }
    std::sort(points.begin(), points.end(), std::greater<>());
    for (int32_t j : points)
      if (j == k - 1)
        --k;
    cov.suffix[v] = k;
  }
  return cov;
}

} // namespace

std::vector<NodeId> PotentialOverlap::find_hiding(const std::vector<NodeId>& nodes) const {
  std::vector<NodeId> result(nodes.size(), -1);
  const int64_t nc = static_cast<int64_t>(compute_.size());
  const ComputeCoverage cov = compute_coverage(dg_, compute_);
  std::vector<size_t> far; // left to resolve_far
  // Most nodes have an independent compute node close by, found with a few
  // windowed reachability checks. A node whose checks exceed this budget is
  // resolved against the whole graph instead, batched with others.
  const int64_t budget = 4096;
  for (size_t k = 0; k < nodes.size(); ++k) {
    const NodeId x = nodes[k];
    int64_t visits = 0;
    // Walk outwards from x's position: nearest neighbour first.
    int64_t right = std::lower_bound(compute_.begin(), compute_.end(), x) - compute_.begin();
    int64_t left = right - 1;
    const int64_t after =
        right < nc && compute_[right] == x ? right + 1 : right; // first compute past x
    if (cov.prefix[x] >= right && cov.suffix[x] <= after)
      continue; // every compute node is an ancestor or a descendant
    while (left >= 0 || right < nc) {
      int64_t pick;
      if (left < 0)
        pick = right++;
      else if (right >= nc)
        pick = left--;
      else if (x - compute_[left] <= compute_[right] - x)
        pick = left--;
      else
        pick = right++;
      const NodeId c = compute_[pick];
      if (c == x)
        continue;
      auto related = c < x ? dg_.is_ancestor_within(c, x, budget, visits)
                           : dg_.is_ancestor_within(x, c, budget, visits);
      if (!related) {
        far.push_back(k);
        break;
      }
      if (*related)
        continue;
      result[k] = c;
      break;
    }
  }
  if (!far.empty())
    resolve_far(dg_, compute_, nodes, std::move(far), result);
  return result;
}

} // namespace osched
