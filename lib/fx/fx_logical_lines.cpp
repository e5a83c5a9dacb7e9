#include "fx/fx_logical_lines.h"

#include <cctype>
#include <string_view>

#include "fx/fx_text.h"
#include "text/escape.h"
#include "text/log_prefix.h"

namespace osched::fx_syntax {
namespace {

// FX prints one statement a line, and its longest are a few tens of KB; a
// statement costs about 60 bytes of memory per byte of text while parsed.
constexpr size_t kMaxLogicalLineBytes = size_t{4} << 20;

// Removes `[__post_grad_graphs] `-style markers and `[0/1] ` frame ids that
// TORCH_LOGS puts before each line's content.
std::string_view strip_log_markers(std::string_view s) {
  while (s.size() > 2 && s[0] == '[') {
    size_t close = s.find(']');
    if (close == std::string_view::npos || close + 1 >= s.size() || s[close + 1] != ' ')
      break;
    std::string_view inside = s.substr(1, close - 1);
    bool frame = !inside.empty() && std::isdigit(static_cast<unsigned char>(inside[0])) &&
                 inside.find('/') != std::string_view::npos;
    bool marker = inside.size() > 2 && inside.substr(0, 2) == "__";
    if (!frame && !marker)
      break;
    s.remove_prefix(close + 2);
  }
  return s;
}

// The part of a log line after its prefixes: `[rank0]:`, a glog header
// (`V1203 12:00:00.123456 4242 `), `path.py:910] ` and the markers above.
std::string_view strip_log_prefix(std::string_view s) {
  s = strip_rank_and_glog(s);
  // `some/file.py:910] `: a path without spaces, a line number, a bracket.
  size_t end = s.find("] ");
  if (end != std::string_view::npos && end < 512) {
    std::string_view head = s.substr(0, end);
    size_t colon = head.rfind(':');
    if (colon != std::string_view::npos && head.find(' ') == std::string_view::npos &&
        is_decimal(head.substr(colon + 1)) && colon >= 3 && head.substr(colon - 3, 3) == ".py")
      s = strip_log_markers(s.substr(end + 2));
  }
  return s;
}

} // namespace

std::vector<LogicalLine> logical_lines(const std::string& text) {
  std::vector<LogicalLine> out;
  LogicalLine cur;
  int depth = 0;
  size_t pos = 0;
  int line_no = 0;
  while (pos <= text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string::npos)
      nl = text.size();
    std::string_view raw(text.data() + pos, nl - pos);
    pos = nl + 1;
    ++line_no;
    if (!raw.empty() && raw.back() == '\r')
      raw.remove_suffix(1);
    std::string_view s = strip_log_prefix(raw);
    // Code and comment, tracking strings and brackets.
    std::string code;
    std::string comment;
    char quote = 0;
    for (size_t i = 0; i < s.size(); ++i) {
      char c = s[i];
      if (quote) {
        code += c;
        if (c == '\\' && i + 1 < s.size())
          code += s[++i];
        else if (c == quote)
          quote = 0;
        continue;
      }
      if (c == '#') {
        comment = fx_trim(s.substr(i + 1));
        break;
      }
      if (c == '"' || c == '\'')
        quote = c;
      else if (c == '(' || c == '[' || c == '{')
        ++depth;
      else if ((c == ')' || c == ']' || c == '}') && depth > 0)
        --depth;
      code += c;
    }
    if (cur.text.empty() && fx_trim(code).empty() && depth == 0) {
      if (pos > text.size())
        break;
      continue;
    }
    if (cur.text.empty()) {
      cur.line = line_no;
      int indent = 0;
      while (indent < static_cast<int>(code.size()) &&
             (code[indent] == ' ' || code[indent] == '\t'))
        ++indent;
      cur.indent = indent;
      cur.text = fx_trim(code);
    } else {
      cur.text += " " + fx_trim(code);
    }
    if (!comment.empty())
      cur.comment = comment;
    if (cur.text.size() > kMaxLogicalLineBytes)
      throw FxSyntaxError(cur.line, "statement longer than " +
                                        std::to_string(kMaxLogicalLineBytes >> 20) +
                                        " MiB (an unclosed bracket?)");
    if (depth == 0 || pos > text.size()) {
      out.push_back(std::move(cur));
      cur = LogicalLine{};
      depth = 0;
    }
    if (pos > text.size())
      break;
  }
  return out;
}

std::vector<std::pair<std::string, size_t>> split_statements(const std::string& s) {
  std::vector<std::pair<std::string, size_t>> out;
  char quote = 0;
  int depth = 0;
  size_t begin = 0;
  auto emit = [&](size_t end) {
    size_t b = begin;
    while (b < end && std::isspace(static_cast<unsigned char>(s[b])))
      ++b;
    std::string part = fx_trim(std::string_view(s).substr(b, end - b));
    if (!part.empty())
      out.emplace_back(std::move(part), b);
  };
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (quote) {
      if (c == '\\')
        ++i;
      else if (c == quote)
        quote = 0;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '(' || c == '[' || c == '{') {
      ++depth;
    } else if (c == ')' || c == ']' || c == '}') {
      --depth;
    } else if (c == ';' && depth == 0) {
      emit(i);
      begin = i + 1;
    }
  }
  emit(s.size());
  return out;
}

} // namespace osched::fx_syntax
