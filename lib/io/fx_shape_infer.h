#pragma once
// Output metadata of a node whose FX text carries none (minifier repros),
// propagated from its inputs for the common aten ops: matmuls, views,
// cat/split/slice, broadcasting pointwise ops, reductions, attention,
// collectives and their waits, dtype conversions, factories and getitem.

#include <optional>
#include <vector>

#include "graph/graph.h"
#include "io/fx_meta.h"

namespace osched {

struct InferredVal {
  ValKind kind = ValKind::Single;
  MetaList val;
};

// `n` is not yet in `g`; its arguments reference nodes of `g`. A size given
// by a SymInt node takes that node's name as its symbol, hinted from `hints`.
// nullopt when the op is unknown or an input lacks metadata.
std::optional<InferredVal> infer_fx_output(const Graph& g, const Node& n,
                                           const FxSymbolHints& hints);

// Ops whose result is a Python scalar or SymInt, never a tensor (sym_size,
// operator.mul on sizes, ...): such nodes need no metadata.
bool is_scalar_fx_target(std::string_view target);

} // namespace osched
