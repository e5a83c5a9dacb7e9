#pragma once
// One FX text imported into a graph: the parsed program's load_args,
// placeholders, statements and output become nodes with their metadata
// (printed, loaded or inferred), then process groups are assigned and the
// graph checked. Internal to lib/fx: import_fx_text (fx_import.h) is the
// entry point.

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "fx/fx_import.h"
#include "fx/fx_shape_infer.h"
#include "fx/fx_text.h"
#include "text/json_limits.h"

namespace osched::fx_importer {

constexpr size_t kUnknownNamesShown = 5;

// The graph name a file gives: its base name without the extension.
std::string file_stem(const std::string& file);

// `torch.ops.aten.mm.default` -> `aten.mm.default`; an overload packet
// (`torch.ops.aten.mm`) gets `.default`, as torch resolves it.
std::string call_target(const std::string& path);

class Importer {
public:
  // `line_offset` and `col_offset` place the text inside a larger file (a
  // TORCH_TRACE record's payload, one tab in) for error messages.
  Importer(const std::string& file, const FxImportOptions& opts, int line_offset = 0,
           int col_offset = 0)
      : file_(file), opts_(opts), line_offset_(line_offset), col_offset_(col_offset) {
    hints_ = opts.hints;
  }
  FxImportResult run(const std::string& text);

private:
  [[noreturn]] void fail(int line, const std::string& msg, int col = 0) const;
  struct LoadedStorage {
    std::string device = "cpu";
    int users = 0;
  };
  // load_args (fx_importer_values.cpp)
  Dim load_dim(const FxExpr& e, int line);
  std::vector<Dim> load_dims(const FxExpr& e, int line);
  static const FxExpr* call_arg(const FxExpr& call, size_t pos, std::string_view kw);
  void read_load_args(const FxProgram& prog);
  // argument values (fx_importer_values.cpp)
  std::string device_text(const FxExpr& e, int line) const;
  // `depth`: lists around this value inside the argument. The graph format
  // holds an argument's lists at JSON level 5 and deeper, within the
  // 64-level limit every reader keeps (text/json_limits.h).
  // A node reference, itself a JSON object, sits one level below its list.
  static constexpr int kMaxArgumentNesting = kMaxJsonDepth - 6;
  Value to_value(const FxExpr& e, int line, int depth = 0);
  // Numbers joined by + and -, one of them imaginary.
  static bool is_complex_literal(const FxExpr& e);
  // Python's text of such a number: (1+2j), -1.5j.
  static std::string complex_text(const FxExpr& e);
  Value name_value(const std::string& name, int line);
  // nodes (fx_importer.cpp)
  NodeId push(Node n, int line);
  // Returns whether the annotation is a SymInt's (`Sym(...)`): no tensor.
  bool set_val_from_annotation(Node& n, const std::string& ann, int line);
  void add_placeholder(const FxParam& p);
  void add_statement(const FxStatement& st);
  void add_output(const FxProgram& prog);
  // A multi-output node printed without an annotation takes its outputs'
  // metadata from the getitems that read them: what PyTorch printed for
  // them wins over what the rules inferred.
  void fill_multi_output_vals();
  void count_unknown();
  // process groups (fx_importer_groups.cpp)
  void assign_groups();
  // the graph's last checks (fx_importer.cpp)
  // What the graph readers reject and validation does not re-check: a
  // negative size or stride (printed, loaded, or computed from hints).
  void check_dims() const;
  void finish();

  const std::string& file_;
  const FxImportOptions& opts_;
  int line_offset_;
  int col_offset_;
  FxSymbolHints hints_;
  std::map<std::string, TensorMeta> loaded_;
  std::set<std::string> symint_inputs_; // placeholders load_args reads with reader.symint
  std::unordered_map<std::string, Value> names_;
  std::vector<int> lines_;
  FxScalars scalars_;                       // by node id
  std::map<std::string, int64_t> pg_sizes_; // get_pg_config()
  Graph g_;
  FxImportResult result_;
};

} // namespace osched::fx_importer
