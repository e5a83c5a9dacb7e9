#pragma once
// Which arguments a node writes into. Post-grad graphs fill buffers in place
// (FSDP2 copy-in/copy-out, `out=` collectives, aten ops ending in `_`); the
// format states it per node (`mutates`), and this table covers the known ops
// when the exporter did not.

#include <vector>

#include "graph/graph.h"

namespace osched {

// The node's own `mutates` when present, else the built-in table.
std::vector<MutatedArg> mutated_args(const Node& n);

// What the table alone says for a target (used by exporters and tests).
std::vector<MutatedArg> builtin_mutated_args(const Node& n);

// The argument value a MutatedArg names, or nullptr when the node lacks it.
const Value* mutated_value(const Node& n, const MutatedArg& a);

// Does the node return the tensors it writes (in-place and `out=` ops), so
// its outputs alias them? auto_functionalized returns fresh copies instead.
bool outputs_alias_mutated(const Node& n);

// Calls fn(const Value&) for every node reference the node writes into.
template <typename Fn> void for_each_mutated_ref(const Node& n, Fn&& fn) {
  for (const MutatedArg& a : mutated_args(n))
    if (const Value* v = mutated_value(n, a))
      for_each_ref(*v, fn);
}

} // namespace osched
