#pragma once
// What PyTorch's op schemas say about aliasing: the arguments each op
// writes in place (`Tensor(a!)`, schemas/torch_op_writes.tsv) and the ops
// whose output aliases an input (`-> Tensor(a)`, schemas/torch_op_views.tsv),
// dumped from the pinned PyTorch (scripts/torch/dump_op_writes.py) and
// embedded by the build.

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

// Is the op (overload packet, "aten.view") a view by its schema?
bool is_schema_view(std::string_view packet);

// The embedded files' text (op_writes_data.cpp, generated).
std::string_view op_writes_text();
std::string_view op_views_text();

} // namespace osched
