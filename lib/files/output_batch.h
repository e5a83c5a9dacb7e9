#pragma once
// Writing a run's outputs so that a failure destroys nothing: every output
// goes to a temporary beside its target and all are renamed into place only
// once each is complete. Targets that are not regular files (a FIFO, a
// device such as /dev/null, a terminal) are written through, never
// replaced; a symbolic link is followed, so its target is updated and the
// link kept. "-" is standard output.

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "errors/error.h"

namespace osched {

using Emit = std::function<void(std::string_view)>;
using Producer = std::function<void(const Emit&)>;

class OutputBatch {
public:
  void add(std::string path, Producer produce);
  // Throws an output error naming the path; then no target has been replaced and no
  // temporary is left.
  void commit();

private:
  struct Output {
    std::string path;
    Producer produce;
  };
  std::vector<Output> outputs_;
};

// Do the two paths name the same file (the same inode where both exist,
// else the same normalized path)? "-" matches only "-".
bool same_output_file(const std::string& a, const std::string& b);

// A command's file argument: its flag (or name) and path.
struct NamedPath {
  std::string flag, path;
};

// The first clash among a command's files: an output that is an input or
// another output ("-o: 'x' is the input TRACE", "--estimates: 'x' is also
// -o"); empty paths and "-" are skipped. Outputs before `first` are only
// compared against (a command may allow those over its input). "" when
// there is none.
std::string output_clash(const std::vector<NamedPath>& inputs,
                         const std::vector<NamedPath>& outputs, size_t first = 0);

// One output written as a batch of one: via a temporary file in the same
// directory, renamed into place; nothing is left at `path` if it throws.
void write_file_atomic(const std::string& path, const std::string& bytes);
// The same for output produced in pieces: `produce` calls its argument with
// each piece.
void write_file_atomic_pieces(
    const std::string& path,
    const std::function<void(const std::function<void(std::string_view)>&)>& produce);

// Removes the temporaries of a batch being written when the process gets
// SIGINT, SIGTERM or SIGHUP, then dies of that signal. Call once.
void remove_temporaries_on_signals();
// Removes the temporaries being written now; async-signal-safe, for other
// fatal-signal handlers.
void remove_temporaries_now();

} // namespace osched
