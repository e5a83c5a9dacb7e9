#include "scheduler/descendant_query.h"

#include <algorithm>

namespace osched {

namespace {

// Each node's row is its users' rows together, plus its own bit: users come
// later in id order, so one pass from the last node fills every row.
void build_descendant_bits(const DependencyGraph& dg, CollectiveChains& c, size_t max_words) {
  const auto n = static_cast<size_t>(dg.size());
  int32_t bits = 0;
  for (size_t v = 0; v < n; ++v)
    if (c.chain[v] >= 0)
      ++bits;
  const size_t words = (static_cast<size_t>(bits) + 63) / 64;
  if (bits == 0 || n * words > max_words)
    return;
  c.words = words;
  c.bit.assign(n, -1);
  int32_t next = 0;
  for (size_t v = 0; v < n; ++v)
    if (c.chain[v] >= 0)
      c.bit[v] = next++;
  c.reaches.assign(n * words, 0);
  for (size_t v = n; v-- > 0;) {
    uint64_t* row = c.reaches.data() + v * words;
    auto [b, e] = dg.users(static_cast<NodeId>(v));
    for (auto p = b; p != e; ++p) {
      const uint64_t* from = c.reaches.data() + static_cast<size_t>(*p) * words;
      for (size_t w = 0; w < words; ++w)
        row[w] |= from[w];
    }
    if (c.bit[v] >= 0)
      row[static_cast<size_t>(c.bit[v]) / 64] |= uint64_t{1} << (c.bit[v] % 64);
  }
}

} // namespace

CollectiveChains build_collective_chains(const DependencyGraph& dg, std::vector<NodeId> starts,
                                         const std::vector<char>& can_overlap,
                                         size_t max_bit_words) {
  const NodeId n = dg.size();
  CollectiveChains c;
  c.latest_overlap_ancestor = latest_ancestors_in(dg, can_overlap);
  c.chain.assign(static_cast<size_t>(n), -1);
  std::sort(starts.begin(), starts.end());
  // Link each start that some overlap node may precede to the previous one
  // when the previous reaches it: walks over disjoint windows, O(N + E).
  int32_t chain = -1;
  NodeId prev = -1;
  for (NodeId s : starts) {
    if (c.latest_overlap_ancestor[static_cast<size_t>(s)] < 0)
      continue; // never a descendant of an overlap node
    if (prev < 0 || !dg.is_ancestor(prev, s))
      ++chain;
    c.chain[static_cast<size_t>(s)] = chain;
    prev = s;
  }
  build_descendant_bits(dg, c, max_bit_words);
  return c;
}

DescendantQuery::DescendantQuery(const DependencyGraph& dg, const CollectiveChains& chains)
    : dg_(dg), chains_(chains) {
  const NodeId n = dg.size();
  run_end_.resize(static_cast<size_t>(n));
  // Children of each node in the forest, as offsets (CSR).
  std::vector<int32_t> first(static_cast<size_t>(n) + 1, 0);
  auto parent = [&](NodeId v) { return dg.num_users(v) == 1 ? *dg.users(v).first : -1; };
  for (NodeId v = 0; v < n; ++v)
    if (NodeId p = parent(v); p >= 0)
      ++first[static_cast<size_t>(p) + 1];
  for (NodeId v = 0; v < n; ++v)
    first[static_cast<size_t>(v) + 1] += first[static_cast<size_t>(v)];
  std::vector<NodeId> children(static_cast<size_t>(first.back()));
  std::vector<int32_t> fill(first.begin(), first.end() - 1);
  for (NodeId v = 0; v < n; ++v)
    if (NodeId p = parent(v); p >= 0)
      children[static_cast<size_t>(fill[static_cast<size_t>(p)]++)] = v;
  tin_.assign(static_cast<size_t>(n), 0);
  tout_.assign(static_cast<size_t>(n), 0);
  int32_t clock = 0;
  std::vector<std::pair<NodeId, int32_t>> stack; // (node, next child offset)
  for (NodeId root = 0; root < n; ++root) {
    if (parent(root) >= 0)
      continue;
    stack.push_back({root, first[static_cast<size_t>(root)]});
    run_end_[static_cast<size_t>(root)] = root;
    tin_[static_cast<size_t>(root)] = clock++;
    while (!stack.empty()) {
      auto& [v, next] = stack.back();
      if (next == first[static_cast<size_t>(v) + 1]) {
        tout_[static_cast<size_t>(v)] = clock - 1;
        stack.pop_back();
        continue;
      }
      const NodeId child = children[static_cast<size_t>(next++)];
      run_end_[static_cast<size_t>(child)] = root;
      tin_[static_cast<size_t>(child)] = clock++;
      stack.push_back({child, first[static_cast<size_t>(child)]});
    }
  }
}

void DescendantQuery::classify(NodeId from, const std::vector<NodeId>& candidates,
                               std::vector<char>& is_descendant) {
  is_descendant.assign(candidates.size(), 0);
  if (chains_.words > 0) {
    const uint64_t* row = chains_.reaches.data() + static_cast<size_t>(from) * chains_.words;
    for (size_t i = 0; i < candidates.size(); ++i) {
      const NodeId c = candidates[i];
      const int32_t b = chains_.bit[static_cast<size_t>(c)];
      is_descendant[i] = c > from && b >= 0 && ((row[b / 64] >> (b % 64)) & 1) != 0;
    }
    return;
  }
  if (mark_.empty())
    mark_.assign(static_cast<size_t>(dg_.size()), 0);
  ++stamp_;
  stack_.clear();
  beyond_.clear();
  bool walked = false;
  int32_t descendant_chain = -1; // the chain of the latest descendant found
  // What `from` reaches beyond its run of single users, the run end reaches.
  const NodeId walk_from = run_end_[static_cast<size_t>(from)];
  for (size_t i = 0; i < candidates.size(); ++i) {
    const NodeId c = candidates[i];
    if (!may_descend(from, c))
      continue;
    if (on_single_user_run(c, from)) {
      is_descendant[i] = 1;
      continue;
    }
    const int32_t chain = chains_.chain[static_cast<size_t>(c)];
    if (chain >= 0 && chain == descendant_chain) {
      is_descendant[i] = 1;
      continue;
    }
    if (walked) {
      // Open again after the first walk: walk on to the last open
      // candidate, and read the rest off the marks.
      size_t last = candidates.size() - 1;
      while (last > i && !may_descend(from, candidates[last]))
        --last;
      walk(candidates[last], false);
      for (size_t j = i; j <= last; ++j)
        is_descendant[j] = may_descend(from, candidates[j]) &&
                           (on_single_user_run(candidates[j], from) ||
                            mark_[static_cast<size_t>(candidates[j])] == stamp_);
      return;
    }
    stack_.push_back(walk_from);
    walked = true;
    walk(c, true);
    if (mark_[static_cast<size_t>(c)] == stamp_) {
      is_descendant[i] = 1;
      descendant_chain = chain;
    }
  }
}

void DescendantQuery::walk(NodeId bound, bool keep_beyond) {
  for (NodeId v : beyond_)
    if (v <= bound && mark_[static_cast<size_t>(v)] != stamp_) {
      mark_[static_cast<size_t>(v)] = stamp_;
      stack_.push_back(v);
    }
  beyond_.clear();
  while (!stack_.empty()) {
    const NodeId v = stack_.back();
    stack_.pop_back();
    auto [b, e] = dg_.users(v);
    for (auto p = b; p != e; ++p) {
      if (*p > bound) {
        if (keep_beyond)
          beyond_.push_back(*p);
        continue;
      }
      if (mark_[static_cast<size_t>(*p)] == stamp_)
        continue;
      mark_[static_cast<size_t>(*p)] = stamp_;
      stack_.push_back(*p);
    }
  }
}

} // namespace osched
