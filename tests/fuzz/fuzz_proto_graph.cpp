// The protobuf graph reader and validator on arbitrary bytes, and the round
// trip of whatever it accepts. The direct path and the general one (through
// JSON values) must agree: the same graph or the same error, and the same
// bytes written.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <string>

#include "format/json_io.h"
#include "format/proto_io.h"
#include "validate/validate.h"

namespace {

std::string outcome(const std::string& bytes, bool general) {
  try {
    osched::Graph g = general ? osched::graph_from_proto_bytes_general(bytes)
                              : osched::graph_from_proto_bytes(bytes);
    osched::validate_graph(g);
    return osched::graph_to_json_text(g);
  } catch (const std::exception& e) {
    return std::string("error: ") + e.what();
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  if (outcome(bytes, false) != outcome(bytes, true))
    std::abort(); // the two readers disagree
  osched::Graph g;
  try {
    g = osched::graph_from_proto_bytes(bytes);
    osched::validate_graph(g);
  } catch (const std::exception&) {
    return 0;
  }
  // A valid graph written and read back is the same graph, and both
  // writers give the same bytes.
  const std::string again = osched::graph_to_proto_bytes(g);
  if (again != osched::graph_to_proto_bytes_general(g))
    std::abort();
  if (osched::graph_to_proto_bytes(osched::graph_from_proto_bytes(again)) != again)
    std::abort();
  return 0;
}
