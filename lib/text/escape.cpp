#include "text/escape.h"

#include <cstdio>

namespace osched {
namespace {

// Length of the well-formed UTF-8 sequence starting at s[i] (RFC 3629: no
// overlong forms, no surrogates, nothing past U+10FFFF), or 0.
size_t utf8_length(std::string_view s, size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  if (c < 0x80)
    return 1;
  size_t n = 0;
  unsigned char lo = 0x80, hi = 0xBF; // bounds of the second byte
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    lo = c == 0xE0 ? 0xA0 : 0x80;
    hi = c == 0xED ? 0x9F : 0xBF;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    lo = c == 0xF0 ? 0x90 : 0x80;
    hi = c == 0xF4 ? 0x8F : 0xBF;
  } else {
    return 0;
  }
  if (i + n > s.size())
    return 0;
  const auto c1 = static_cast<unsigned char>(s[i + 1]);
  if (c1 < lo || c1 > hi)
    return 0;
  for (size_t k = 2; k < n; ++k)
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

size_t invalid_utf8_offset(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    const size_t n = utf8_length(s, i);
    if (n == 0)
      return i;
    i += n;
  }
  return std::string_view::npos;
}

std::string escape_excerpt(std::string_view s, size_t max) {
  if (s.size() <= max)
    return escape_quoted(s);
  return escape_quoted(s.substr(0, max)) + "...";
}

} // namespace osched
