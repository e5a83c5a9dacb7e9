#pragma once
// A graph-format flag's value (--format, --out-format) as a GraphFormat.

#include <string>

#include "errors/error.h"
#include "format/graph_file.h"

namespace osched::cli {

// Throws an input error naming `flag` for a value that is not a format.
inline GraphFormat format_flag(const char* flag, const std::string& value) {
  return with_context(flag, [&] { return parse_graph_format(value); });
}

} // namespace osched::cli
