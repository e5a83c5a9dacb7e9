#include <algorithm>
#include <iostream>

#include <spdlog/spdlog.h>

#include "commands.h"
#include "errors/error.h"
#include "exit_codes.h"
#include "text/escape.h"

namespace osched::cli {
namespace {

// One line, and a readable one: fields quote their input in excerpts, and
// this bound catches any message that still quotes too much.
void print_error(const char* prefix, const char* what) {
  constexpr size_t kMaxLine = 2048; // bytes, "error: " and the newline included
  constexpr size_t kNote = 40;      // room for "... (N more bytes)"
  const std::string head = std::string("error: ") + prefix;
  std::string line = escape_line(what);
  if (head.size() + line.size() + 1 > kMaxLine) {
    size_t keep = kMaxLine - 1 - kNote - std::min(head.size(), kMaxLine / 2);
    // Never half an escape (\xNN, \n, \\): cut before its backslash.
    const size_t backslash = line.rfind('\\', keep - 1);
    if (backslash != std::string::npos && keep - backslash < 4)
      keep = backslash;
    line = line.substr(0, keep) + "... (" + std::to_string(line.size() - keep) + " more bytes)";
  }
  std::cerr << head << line << "\n";
}

} // namespace

int run_guarded(const std::function<int()>& fn) {
  try {
    return fn();
  } catch (const Error& e) {
    print_error("", e.what());
    return exit_code_of(e.kind());
  } catch (const std::bad_alloc&) { // an input too large for this machine's memory
    print_error("", "not enough memory for this input");
    return kBadInput;
  } catch (const std::exception& e) {
    print_error("internal: ", e.what());
    return kBadInput;
  }
}

} // namespace osched::cli
