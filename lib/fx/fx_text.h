#pragma once
// The text forms PyTorch prints FX graphs in (`print_readable()`,
// TORCH_COMPILE_DEBUG's fx_graph_*.py, TORCH_LOGS=post_grad_graphs lines,
// minifier `Repro` files), parsed into a small syntax tree: the forward's
// parameters with their annotations, its statements and return, and the
// `load_args` block of a repro. Only the Python subset FX code generation
// emits is accepted; anything else is an FxSyntaxError naming the line.

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "errors/error.h"

namespace osched {

struct FxSyntaxError : Error {
  FxSyntaxError(int line_no, const std::string& message, int col_no = 0)
      : Error(ErrorKind::BadInput, message), line(line_no), col(col_no) {}
  int line;
  int col; // 1-based column of the offending token, 0 when not known
};

// An expression of the subset: literals, names, dotted attributes, calls,
// subscripts, tuples/lists, dicts, binary operators (arithmetic, bitwise,
// comparisons: `text` is the operator as written), unary minus and `~`.
struct FxExpr {
  enum class Kind : uint8_t {
    Int,
    Float,
    String,
    Name,
    Attr,
    Call,
    Subscript,
    List,
    Dict, // items: key, value, key, value, ...
    BinOp,
    Neg,
    Invert
  };
  Kind kind = Kind::Name;
  int64_t i = 0;
  double f = 0;
  std::string text; // String/Name/Attr path/BinOp operator; an imaginary Float's literal ("2j")
  std::vector<FxExpr> items;                          // Call args, List items, operands
  std::vector<std::pair<std::string, FxExpr>> kwargs; // Call keyword arguments
  bool tuple = false;                                 // List written with parentheses
};

struct FxParam {
  std::string name;
  std::string annotation; // the quoted annotation, "" when none
  int line = 0;
};

// `name[: "annotation"] = expr`, one per `;`-separated part of a line.
// `a, b, = fx_pytree.tree_flatten_spec(...)` (a joint graph unpacking its
// inputs) has `unpacked` set and names in `targets`.
struct FxStatement {
  std::string name;
  std::string annotation;
  FxExpr value;
  int line = 0;
  int col = 0;
  std::vector<std::string> targets;
};

// One statement of a repro's `load_args(reader)` block.
struct FxLoadArg {
  std::string assigned; // `buf0 = ...`, "" for an expression statement
  FxExpr call;
  std::string comment; // trailing `# primals_1`, trimmed
  int line = 0;
};

struct FxProgram {
  // Which forward was read, of how many in the file, and the class it
  // belongs to ("" when at top level).
  int graph_index = 0;
  int graph_count = 0;
  std::string graph_class;
  std::vector<FxParam> params;
  std::vector<FxStatement> body;
  FxExpr returned;
  bool has_return = false;
  int return_line = 0;
  int forward_line = 0;
  std::vector<FxLoadArg> load_args;
  // A repro's measured collective table: get_colls_estimations_file()'s
  // file name and get_colls_group_mapping()'s graph group -> table group.
  std::string colls_table_file;
  std::vector<std::pair<std::string, std::string>> colls_group_mapping;
  // get_pg_config(): group name -> size.
  std::vector<std::pair<std::string, int64_t>> pg_sizes;
};

// Parses one `def forward` in `text` and the file's `load_args` block and
// repro functions if any: the `graph_index`-th (0 = first), or when it is
// negative the one with the most statements (a repro file can hold empty
// stub classes before the real graph, and print_readable prints submodule
// graphs beside the main one). Log prefixes (`[rank0]:`, glog headers,
// `[0/1] [__post_grad_graphs]`) are stripped from every line first.
FxProgram parse_fx_text(const std::string& text, int graph_index = -1);

// Parses one expression (a dim of an annotation, for example).
FxExpr parse_fx_expression(const std::string& text, int line = 0);

// The dotted path of a Name/Attr expression ("torch.ops.aten.mm.default"),
// or "" for any other kind.
std::string fx_dotted_path(const FxExpr& e);

// `s` without leading and trailing whitespace.
std::string fx_trim(std::string_view s);

// Python text of an expression (used to name symbolic dims).
std::string fx_expr_text(const FxExpr& e);

} // namespace osched
