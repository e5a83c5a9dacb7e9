#pragma once
// Tensor metadata as FX text prints it: the annotation strings of
// `print_readable()` (`"bf16[8, s0][s0, 1]cuda:0"`, `"Sym(s0)"`) and the
// symbolic dims inside them, with hints for backed symbols.

#include <map>
#include <optional>
#include <stdexcept>
#include <string>

#include "fx/fx_text.h"
#include "graph/dtype.h"
#include "graph/tensor_meta.h"

namespace osched {

// Values of symbols (`s0=128`); a symbol without one is unbacked.
using FxSymbolHints = std::map<std::string, int64_t>;

// torch's short dtype names (`bf16`, `f32`, `b8`, ...).
std::optional<DType> parse_fx_dtype_abbr(std::string_view abbr);
// `torch.bfloat16` / `bfloat16` -> DType.
std::optional<DType> parse_fx_dtype_name(std::string_view name);

// The value of a symbolic expression (+ - * // % and Max/Min over ints and
// hinted symbols), or nullopt when a symbol has no hint or the arithmetic
// fails; then `why`, when given and empty, says why ("division by zero").
std::optional<int64_t> eval_fx_dim(const FxExpr& e, const FxSymbolHints& hints,
                                   std::string* why = nullptr);

// A dim from its text: an integer, or a symbol named by the text whose hint
// is evaluated when every symbol in it has one.
Dim fx_dim(const std::string& text, const FxSymbolHints& hints, int line);
// The symbol `name`, with its hint when `hints` has one (else unbacked).
Dim named_symbol(const std::string& name, const FxSymbolHints& hints);
// A size, stride or hint past 64 bits: no tensor has it, so the import
// stops with an error on the node's line instead of writing a wrapped size.
struct FxDimOverflow : std::overflow_error {
  FxDimOverflow() : std::overflow_error("shape arithmetic overflows 64 bits") {}
};

// Dim arithmetic for shape propagation: symbolic operands make a symbolic
// result named by the expression, hinted when the operands are. Throws
// FxDimOverflow.
Dim dim_mul(const Dim& a, int64_t k);
Dim dim_div(const Dim& a, int64_t k);
Dim dim_add(const Dim& a, const Dim& b);
// `a op b` for op in + - * // % (Python's floor semantics), symbolic when
// either is; nullopt for another operator or a division by zero.
std::optional<Dim> dim_arith(std::string_view op, const Dim& a, const Dim& b);
std::string dim_text(const Dim& d);

struct FxAnnotation {
  bool is_symint = false; // "Sym(...)": a scalar, no tensor
  std::optional<TensorMeta> tensor;
};

// Parses an annotation; throws FxSyntaxError on malformed text. Missing
// strides are contiguous; a missing device is `default_device`.
FxAnnotation parse_fx_annotation(const std::string& text, const FxSymbolHints& hints, int line,
                                 const std::string& default_device);

std::vector<Dim> contiguous_strides(const std::vector<Dim>& shape);

} // namespace osched
