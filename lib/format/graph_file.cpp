#include "format/graph_file.h"

#include "errors/error.h"
#include "files/output_batch.h"
#include "format/json_io.h"
#include "format/proto_io.h"
#include "validate/graph_error.h"

namespace osched {
namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

} // namespace

GraphFormat parse_graph_format(const std::string& s) {
  if (s == "auto")
    return GraphFormat::Auto;
  if (s == "json")
    return GraphFormat::Json;
  if (s == "pb" || s == "proto" || s == "protobuf")
    return GraphFormat::Proto;
  throw input_error("unknown format '" + s + "' (expected json, pb or auto)");
}

GraphFormat resolve_format(const std::string& path, GraphFormat requested) {
  if (requested != GraphFormat::Auto)
    return requested;
  if (ends_with(path, ".pb") || ends_with(path, ".binpb"))
    return GraphFormat::Proto;
  return GraphFormat::Json;
}

Graph read_graph_file(const std::string& path, GraphFormat format, const ReadOptions& opts) {
  return parse_graph_bytes(InputBytes::read(path), path, format, opts);
}

Graph parse_graph_bytes(const std::string& bytes, const std::string& path, GraphFormat format,
                        const ReadOptions& opts) {
  return parse_graph_bytes(InputBytes::borrow(bytes), path, format, opts);
}

Graph parse_graph_bytes(const InputBytes& input, const std::string& path, GraphFormat format,
                        const ReadOptions& opts) {
  const std::string_view bytes = input.view();
  GraphFormat f = format;
  if (f == GraphFormat::Auto) {
    if (path == "-") {
      // Sniff: JSON starts with '{' after whitespace; protobuf never does for our schema.
      size_t i = bytes.find_first_not_of(" \t\r\n");
      f = (i != std::string_view::npos && bytes[i] == '{') ? GraphFormat::Json : GraphFormat::Proto;
    } else {
      f = resolve_format(path, GraphFormat::Auto);
    }
  }
  const std::string label = path == "-" ? "<stdin>" : path;
  return with_context(label, [&] {
    return f == GraphFormat::Proto ? graph_from_proto_input(input, opts)
                                   : graph_from_json_bytes(input, opts);
  });
}

void add_graph_output(OutputBatch& batch, const std::string& path, const Graph& g,
                      GraphFormat format) {
  const GraphFormat f = resolve_format(path, format);
  batch.add(path, [&g, f](const Emit& emit) {
    if (f == GraphFormat::Proto)
      write_graph_proto(g, emit);
    else
      write_graph_json(g, emit);
  });
}

void write_graph_file(const std::string& path, const Graph& g, GraphFormat format) {
  OutputBatch batch;
  add_graph_output(batch, path, g, format);
  batch.commit();
}

} // namespace osched
