#include <iostream>

#include <spdlog/spdlog.h>

#include "commands.h"
#include "errors/error.h"
#include "exit_codes.h"
#include "run_errors.h"
#include "text/escape.h"

namespace osched::cli {
namespace {

// One line, and a readable one: fields quote their input in excerpts, and
// this bound catches any message that still quotes too much.
void print_error(const char* prefix, const char* what) {
  constexpr size_t kMaxLine = 2048;
  std::string line = escape_line(what);
  if (line.size() > kMaxLine)
    line = line.substr(0, kMaxLine) + "... (" + std::to_string(line.size() - kMaxLine) +
           " more bytes)";
  std::cerr << "error: " << prefix << line << "\n";
}

} // namespace

int run_guarded(const std::function<int()>& fn) {
  try {
    return fn();
  } catch (const Error& e) {
    print_error("", e.what());
    return exit_code_of(e.kind());
  } catch (const std::exception& e) {
    print_error("internal: ", e.what());
    return kBadInput;
  }
}

} // namespace osched::cli
