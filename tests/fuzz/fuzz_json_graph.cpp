// The JSON graph reader and validator on arbitrary bytes: any input either
// yields a graph or a std::exception (a one-line error), never a crash. The
// fast path and the general reader must agree: the same graph, or the same
// error.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <string>

#include "format/json_io.h"
#include "validate/validate.h"

namespace {

// Canonical text of the graph, or "error: " + the message.
std::string outcome(const std::string& text, bool general) {
  try {
    osched::Graph g =
        general ? osched::graph_from_json_text_general(text) : osched::graph_from_json_text(text);
    osched::validate_graph(g);
    return osched::graph_to_json_text(g);
  } catch (const std::exception& e) {
    return std::string("error: ") + e.what();
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  if (outcome(text, false) != outcome(text, true))
    std::abort(); // the two readers disagree
  return 0;
}
