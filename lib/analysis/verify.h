#pragma once
// Checks that a reordered graph is a legal reordering of the original: same
// nodes (modulo bucketing), every data and control dependency respected,
// every in-place write kept in order against the readers and writers of its
// storage, and, when asked, each process group's collectives issued in the
// original order (what --preserve-group-order guarantees; the default
// schedule, like upstream's, may change it). Ops the tool cannot classify
// keep their place among collective starts and waits (checked for the nodes
// the reordered graph keeps; bucket members are checked where bucketing
// plans them).

#include <optional>
#include <string>

#include "graph/graph.h"

namespace osched {

struct VerifyOptions {
  bool group_order = false;
  // Every op the tool cannot classify keeps its side of every collective
  // start and wait (safety/opaque_ops.h), except targets declared pure.
  bool opaque_ops = true;
  std::string assume_pure; // comma-separated, as schedule's --assume-pure
};

// nullopt when legal; otherwise the first violation, one line.
std::optional<std::string> verify_reordering(const Graph& original, const Graph& reordered,
                                             const VerifyOptions& options = {});

} // namespace osched
