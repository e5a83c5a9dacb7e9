#pragma once
// Reading and writing graph files: format chosen by extension or explicitly,
// "-" for stdin/stdout, and atomic writes (temp file + rename) so a failure
// never leaves a partial output.

#include <functional>
#include <string>
#include <string_view>

#include "graph/graph.h"
#include "io/input_bytes.h"
#include "io/json_io.h"
#include "io/output_batch.h"

namespace osched {

enum class GraphFormat { Auto, Json, Proto };

// "json", "pb"/"proto"/"protobuf", "auto"; throws std::invalid_argument otherwise.
GraphFormat parse_graph_format(const std::string& s);

// Resolves Auto from the file extension (.json / .pb). For "-" on input the
// content is sniffed; on output JSON is the default.
GraphFormat resolve_format(const std::string& path, GraphFormat requested);

// Throws GraphError with the file name prefixed, or IoError.
// Parses a file's bytes already read (`path` names it in errors and picks the
// format when Auto).
Graph parse_graph_bytes(const InputBytes& bytes, const std::string& path,
                        GraphFormat format = GraphFormat::Auto, const ReadOptions& opts = {});
Graph parse_graph_bytes(const std::string& bytes, const std::string& path,
                        GraphFormat format = GraphFormat::Auto, const ReadOptions& opts = {});
Graph read_graph_file(const std::string& path, GraphFormat format = GraphFormat::Auto,
                      const ReadOptions& opts = {});
void write_graph_file(const std::string& path, const Graph& g,
                      GraphFormat format = GraphFormat::Auto);
// The same as one output of a batch written together (io/output_batch.h);
// `g` must outlive the commit.
void add_graph_output(OutputBatch& batch, const std::string& path, const Graph& g,
                      GraphFormat format = GraphFormat::Auto);

std::string read_file_bytes(const std::string& path);
// Writes via a temporary file in the same directory and renames it into place.
void write_file_atomic(const std::string& path, const std::string& bytes);
// The same for output produced in pieces: `produce` calls its argument with
// each piece; nothing is left at `path` if it throws.
void write_file_atomic_pieces(
    const std::string& path,
    const std::function<void(const std::function<void(std::string_view)>&)>& produce);

struct IoError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

} // namespace osched
