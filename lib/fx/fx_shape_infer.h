#pragma once
// Output metadata of a node whose FX text carries none (minifier repros),
// propagated from its inputs: matmuls, views, cat/split/slice, broadcasting
// pointwise ops, reductions, indexing, attention (SDPA, flex), grouped
// matmuls, collectives and their waits, dtype conversions, factories,
// triton kernel wrappers and getitem. Also the values of SymInt nodes
// (`sym_size`, `_local_scalar_dense`, size arithmetic, `sym_sum`), which
// later sizes refer to.
//
// A shape is never guessed: an op with an input of unknown metadata, or one
// without a rule here, gets none.

#include <optional>
#include <vector>

#include "fx/fx_meta.h"
#include "graph/graph.h"
#include "ops/op_registry.h"

namespace osched {

struct InferredVal {
  ValKind kind = ValKind::Single;
  MetaList val;
};

// What a node that yields a Python scalar holds, by node id.
struct FxScalar {
  bool scalar = false;      // a SymInt/SymBool/None result, never a tensor
  std::optional<Dim> value; // its value as a size, when it is one
};
using FxScalars = std::vector<FxScalar>;

// `n` is not yet in `g`; its arguments reference nodes of `g`, and
// `scalars` has an entry for each of them. A size given by a SymInt node
// takes that node's value, else a symbol named after the node (hinted from
// `hints`). nullopt when the op has no rule or an input lacks metadata.
std::optional<InferredVal> infer_fx_output(const Graph& g, const Node& n,
                                           const FxSymbolHints& hints, const FxScalars& scalars);

// The scalar entry of `n` (same contract as infer_fx_output).
FxScalar infer_fx_scalar(const Graph& g, const Node& n, const FxSymbolHints& hints,
                         const FxScalars& scalars);

// Whether the importer has the rule an op registry row names (every
// ShapeRule but None must have one).
bool has_shape_rule(ShapeRule r);

} // namespace osched
