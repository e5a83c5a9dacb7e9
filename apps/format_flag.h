#pragma once
// A graph-format flag's value (--format, --out-format) as a GraphFormat.

#include <string>

#include "format/graph_file.h"
#include "run_errors.h"

namespace osched::cli {

// Throws InputError naming `flag` for a value that is not a format.
inline GraphFormat format_flag(const char* flag, const std::string& value) {
  try {
    return parse_graph_format(value);
  } catch (const ValueError& e) {
    throw InputError(std::string(flag) + ": " + e.what());
  }
}

} // namespace osched::cli
