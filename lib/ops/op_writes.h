#pragma once
// The arguments each PyTorch op writes in place, as its schema marks them
// (`Tensor(a!)`): schemas/torch_op_writes.tsv, dumped from the pinned
// PyTorch (scripts/torch/dump_op_writes.py) and embedded by the build.

#include <string_view>
#include <vector>

namespace osched {

struct SchemaWrite {
  int32_t index = 0;     // the argument's position in the schema
  std::string_view name; // its name
  bool keyword_only = false;
};

// The writes of an overload ("aten.add_.Tensor"), or nullptr for an op
// whose schema writes nothing or which is not in the file.
const std::vector<SchemaWrite>* schema_writes(std::string_view target);

// The embedded file's text (op_writes_data.cpp, generated).
std::string_view op_writes_text();

} // namespace osched
