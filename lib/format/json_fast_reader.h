#pragma once
// The fast path of JSON graph reading: the node array is split into nodes by
// a byte scan and each node is parsed alone by simdjson's DOM parser (its
// tape stays one node long) and read straight into the model. The DOM
// parser picks the CPU's SIMD kernels at run time; the on-demand API is
// compiled for the build's target, which a portable build leaves generic.
//
// It covers well-formed graphs in topological order whose nodes hold only
// the format's own fields (no per-node "meta" or unknown fields); anything
// else, every error included, makes it give up (nullopt), and the general
// reader (json_io.h) reads the text again and words the error. So the two
// paths accept the same graphs and build the same model (tests and the
// fuzz_graph_json target compare them).

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "format/range_names.h"
#include "graph/graph.h"

namespace osched {

struct FastNodes {
  std::vector<Node> nodes;
  // The node array's span in the text, brackets included: the rest of the
  // document (the header) is read by the general reader.
  size_t array_begin = 0, array_end = 0;
  // Every node's name (all distinct: a repeated name makes the fast path
  // give up), so the graph need not index them again.
  NameIndex names;
};

// Node arrays of at least this many bytes are split into nodes on two
// threads: the second half from a guessed node start near the middle, kept
// only when the first half's scan arrives exactly there.
constexpr size_t kParallelSplitMinBytes = size_t{16} << 20;

// Reads `text[0, size)`; `capacity` bytes must be readable from `text`
// (simdjson reads ahead; a copy is made when capacity - size < 64).
// `done_with(begin, end)`, when given, is told of byte ranges of nodes already
// read (InputBytes::done_with lets go of a mapping's pages there).
std::optional<FastNodes> read_nodes_fast(const char* text, size_t size, size_t capacity,
                                         size_t parallel_min_nodes = kParallelReadMinNodes,
                                         const std::function<void(size_t, size_t)>& done_with = {},
                                         size_t parallel_split_min_bytes = kParallelSplitMinBytes);

} // namespace osched
