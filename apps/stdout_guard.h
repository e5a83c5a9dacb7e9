#pragma once
// Standard output that cannot lose data silently: std::cout writes straight
// to fd 1 and remembers the first failure (a full disk, a closed pipe, an
// fd closed before start), which main turns into exit 4. Closed standard
// descriptors are held on /dev/null at start so no file the tool opens can
// take their number (and receive its output).

#include <string>

namespace osched::cli {

void guard_standard_streams();
// After the command: flushes std::cout; the error, or "" when all went out.
std::string stdout_error();

} // namespace osched::cli
