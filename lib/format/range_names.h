#pragma once
// Node names for readers that read a graph's nodes in two ranges at once
// (the JSON and protobuf fast readers): references to nodes already read
// resolve at once; a reader that starts mid-graph keeps a name it has not
// seen (it may belong to a node of the range before) and resolves it once
// the reader before it is done.

#include <algorithm>
#include <cstddef>
#include <functional>
#include <future>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "graph/graph.h"

namespace osched {

// A node range of at least this many bytes of input is let go of in steps of
// this size (InputBytes::done_with), so the text and the model it becomes
// are not both resident.
constexpr size_t kReleaseStep = size_t{8} << 20;

// Graphs of at least this many nodes are read in two halves on two threads
// (the second half's references to the first resolved after).
constexpr size_t kParallelReadMinNodes = 20000;

class RangeNames {
public:
  // `nodes` is sized up front; `defer_unknown`: the range does not start at
  // the first node.
  RangeNames(std::vector<Node>& nodes, bool defer_unknown)
      : nodes_(nodes), defer_unknown_(defer_unknown) {}

  void reserve(size_t n) { names_.reserve(n); }
  void set_range(NodeId lo, NodeId hi) {
    lo_ = lo;
    hi_ = hi;
  }

  // Makes node `at`'s name visible to the nodes after it; false when the
  // name is there already.
  bool add(NodeId at) {
    if (named_ == at)
      return names_.insert(nodes_, at, name_hash_);
    return names_.insert(nodes_, at);
  }
  // Node `at` has its name now: its slot in the table is fetched while the
  // rest of the node is read (the table is far larger than the caches).
  void named(NodeId at) {
    name_hash_ = names_.prefetch(nodes_[static_cast<size_t>(at)].name);
    named_ = at;
  }

  // `out` becomes a reference of node `at` to `name` (output `index`, -1:
  // the whole value); false: unknown here and not deferrable.
  bool ref(std::string_view name, int32_t index, NodeId at, Value& out) {
    if (std::optional<NodeId> id = names_.find(nodes_, name)) {
      out = Value::node_ref(*id, index);
      return true;
    }
    if (!defer_unknown_)
      return false;
    // The name waits in one text for all: node index -2 - k for the k-th.
    out = Value::node_ref(-2 - static_cast<int64_t>(deferred_names_.size()), index);
    deferred_names_.emplace_back(deferred_text_.size(), name.size());
    deferred_text_.append(name);
    if (deferred_nodes_.empty() || deferred_nodes_.back() != at)
      deferred_nodes_.push_back(at);
    return true;
  }

  // Appends `name` to node `at`'s control deps; false as for ref().
  bool control_dep(std::string_view name, NodeId at) {
    std::vector<NodeId>& deps = nodes_[static_cast<size_t>(at)].edit_attrs().control_deps;
    if (std::optional<NodeId> id = names_.find(nodes_, name)) {
      deps.push_back(*id);
      return true;
    }
    if (!defer_unknown_)
      return false;
    deferred_control_.emplace_back(at, deps.size(), std::string(name));
    deps.push_back(-1);
    return true;
  }

  // Resolves the deferred names against `before`, the names of the range
  // just before this one; false when a name is unknown there too (a forward
  // or unknown reference).
  bool resolve_deferred(const RangeNames& before);

  // Adds the names of `after`, the range just after this one (once its
  // deferred names are resolved); false when one is a name of this range
  // too. Reserved for both.
  bool absorb(const RangeNames& after);

  NameIndex take_names() { return std::move(names_); }

private:
  std::vector<Node>& nodes_;
  bool defer_unknown_ = false;
  NameIndex names_; // of the nodes read so far
  NodeId lo_ = 0, hi_ = 0;
  NodeId named_ = -1; // the node whose name's hash is name_hash_
  uint32_t name_hash_ = 0;
  std::vector<NodeId> deferred_nodes_; // nodes with a reference by name
  // Those names, back to back (no allocation per reference): offset, length.
  std::string deferred_text_;
  std::vector<std::pair<size_t, size_t>> deferred_names_;
  std::vector<std::tuple<NodeId, size_t, std::string>> deferred_control_;
};

// Reads the nodes whose input bytes are `spans` ([first, second) pairs of
// offsets, in node order, sorted) into
// `nodes` (sized for them) with `make_reader(defer_unknown)`'s readers, whose
// `read(begin, end, at)` reads one node and whose `names()` is its
// RangeNames; at least `parallel_min_nodes` nodes: the second half of the
// bytes on another thread, joined by resolving its references to the first
// half (the same model either way). The names of all nodes, or nullopt when
// a reader gave up.
template <typename Span, typename MakeReader>
std::optional<NameIndex> read_node_spans(const std::vector<Span>& spans, size_t parallel_min_nodes,
                                         const std::function<void(size_t, size_t)>& done_with,
                                         MakeReader make_reader) {
  auto read_range = [&](auto& reader, size_t lo, size_t hi, size_t names) {
    reader.names().reserve(names);
    reader.names().set_range(static_cast<NodeId>(lo), static_cast<NodeId>(hi));
    size_t released = lo < hi ? spans[lo].first : 0;
    for (size_t k = lo; k < hi; ++k) {
      if (!reader.read(spans[k].first, spans[k].second, static_cast<NodeId>(k)))
        return false;
      // Read bytes are let go in steps, so the input and the model it
      // becomes are not both resident.
      if (done_with && spans[k].second - released >= kReleaseStep) {
        done_with(released, spans[k].second);
        released = spans[k].second;
      }
    }
    return true;
  };
  const size_t n = spans.size();
  if (n >= 2 && n >= parallel_min_nodes) {
    const size_t half_bytes =
        (static_cast<size_t>(spans.front().first) + static_cast<size_t>(spans.back().second)) / 2;
    size_t mid = static_cast<size_t>(
        std::lower_bound(spans.begin(), spans.end(), half_bytes,
                         [](const auto& span, size_t at) { return size_t(span.first) < at; }) -
        spans.begin());
    mid = std::clamp<size_t>(mid, 1, n - 1);
    auto first = make_reader(false);
    auto second = make_reader(true);
    std::future<bool> later =
        std::async(std::launch::async, [&] { return read_range(second, mid, n, n - mid); });
    const bool first_ok = read_range(first, 0, mid, n); // room for both halves' names
    const bool second_ok = later.get();
    if (!first_ok || !second_ok || !second.names().resolve_deferred(first.names()) ||
        !first.names().absorb(second.names()))
      return std::nullopt;
    return first.names().take_names();
  }
  auto reader = make_reader(false);
  if (!read_range(reader, 0, n, n))
    return std::nullopt;
  return reader.names().take_names();
}

} // namespace osched
