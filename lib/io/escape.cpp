#include "io/escape.h"

#include <cstdio>

namespace osched {
namespace {

// Length of the valid UTF-8 sequence starting at s[i], or 0.
size_t utf8_length(std::string_view s, size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  size_t n = c >= 0xF0 && c <= 0xF4 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 && c <= 0xDF ? 2 : 0;
  if (n == 0 || i + n > s.size())
    return 0;
  for (size_t k = 1; k < n; ++k)
    if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80)
      return 0;
  return n;
}

std::string escape(std::string_view s, bool quote) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x80) {
      if (size_t n = utf8_length(s, i)) {
        out.append(s.substr(i, n));
        i += n;
        continue;
      }
    }
    char buf[8];
    switch (c) {
    case '\n':
      out += "\\n";
      break;
    case '\r':
      out += "\\r";
      break;
    case '\t':
      out += "\\t";
      break;
    case '\\':
      out += quote ? "\\\\" : "\\";
      break;
    case '\'':
      out += quote ? "\\'" : "'";
      break;
    default:
      if (c < 0x20 || c == 0x7F || c >= 0x80) {
        std::snprintf(buf, sizeof buf, "\\x%02X", c);
        out += buf;
      } else {
        out += static_cast<char>(c);
      }
    }
    ++i;
  }
  return out;
}

} // namespace

std::string escape_line(std::string_view s) {
  return escape(s, false);
}
std::string escape_quoted(std::string_view s) {
  return escape(s, true);
}

} // namespace osched
