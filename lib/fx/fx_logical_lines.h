#pragma once
// FX text as logical lines: physical lines with their log prefixes and
// comments stripped, joined while brackets are open; and a line's
// `;`-separated statements. Internal to lib/fx.

#include <string>
#include <utility>
#include <vector>

namespace osched::fx_syntax {

struct LogicalLine {
  std::string text;    // code without the trailing comment
  std::string comment; // trailing comment, without '#', trimmed
  int indent = 0;
  int line = 0; // first physical line, 1-based
};

// Splits text into physical lines, strips log prefixes and comments, and
// joins lines while brackets are open. Throws FxSyntaxError for a
// statement past the length limit.
std::vector<LogicalLine> logical_lines(const std::string& text);

// The `;`-separated statements of a line (outside strings and brackets),
// each with its offset in the line.
std::vector<std::pair<std::string, size_t>> split_statements(const std::string& s);

} // namespace osched::fx_syntax
