#pragma once
// Removing repeated ids while keeping first occurrences in order. Nodes such
// as a graph's output can reference a million values, so this must not be
// quadratic.

#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

namespace osched {

template <typename T> void dedupe_keep_order(std::vector<T>& v) {
  if (v.size() < 32) {
    size_t kept = 0;
    for (size_t i = 0; i < v.size(); ++i)
      if (std::find(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(kept), v[i]) ==
          v.begin() + static_cast<std::ptrdiff_t>(kept))
        v[kept++] = v[i];
    v.resize(kept);
    return;
  }
  std::vector<std::pair<T, size_t>> sorted;
  sorted.reserve(v.size());
  for (size_t i = 0; i < v.size(); ++i)
    sorted.emplace_back(v[i], i);
  std::sort(sorted.begin(), sorted.end());
  std::vector<bool> keep(v.size(), false);
  for (size_t i = 0; i < sorted.size(); ++i)
    if (i == 0 || !(sorted[i].first == sorted[i - 1].first))
      keep[sorted[i].second] = true;
  size_t kept = 0;
  for (size_t i = 0; i < v.size(); ++i)
    if (keep[i])
      v[kept++] = v[i];
  v.resize(kept);
}

} // namespace osched
