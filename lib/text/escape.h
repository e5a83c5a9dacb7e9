#pragma once
// Text from an input (node names, dtypes, paths) printed in one-line
// messages: control characters and bytes that are not UTF-8 become escapes,
// so no input can break a line or forge an "error:" line of its own.

#include <string>
#include <string_view>

namespace osched {

// \n \r \t and \xNN for other control bytes and invalid UTF-8; applied
// to whole message lines.
std::string escape_line(std::string_view s);
// The same, and \\ and \' too: for a name printed between single quotes,
// so its end is unambiguous.
std::string escape_quoted(std::string_view s);
// escape_quoted of at most the first `max` bytes, "..." marking a cut: for
// input text quoted in an error (dtypes, GPU names) that may be huge.
std::string escape_excerpt(std::string_view s, size_t max = 64);
// Offset of the first byte that is not part of well-formed UTF-8 (RFC 3629:
// no overlong forms, no surrogates, nothing past U+10FFFF), or npos.
size_t invalid_utf8_offset(std::string_view s);

} // namespace osched
