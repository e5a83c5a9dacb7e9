#pragma once
// Reading and writing graph files: format chosen by extension or explicitly,
// "-" for stdin/stdout, and atomic writes (temp file + rename) so a failure
// never leaves a partial output.

#include <functional>
#include <string>
#include <string_view>

#include "errors/error.h"
#include "files/input_bytes.h"
#include "files/output_batch.h"
#include "format/json_io.h"
#include "graph/graph.h"

namespace osched {

enum class GraphFormat { Auto, Json, Proto };

// "json", "pb"/"proto"/"protobuf", "auto"; throws an input error otherwise.
GraphFormat parse_graph_format(const std::string& s);

// Resolves Auto from the file extension (.json / .pb). For "-" on input the
// content is sniffed; on output JSON is the default.
GraphFormat resolve_format(const std::string& path, GraphFormat requested);

// Throws GraphError with the file name prefixed, or an input error.
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
// The same as one output of a batch written together (files/output_batch.h);
// `g` must outlive the commit.
void add_graph_output(OutputBatch& batch, const std::string& path, const Graph& g,
                      GraphFormat format = GraphFormat::Auto);

} // namespace osched
