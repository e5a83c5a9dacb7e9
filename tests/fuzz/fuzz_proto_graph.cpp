// The protobuf graph reader and validator on arbitrary bytes, and the round
// trip of whatever it accepts.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <string>

#include "io/proto_io.h"
#include "io/validate.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  osched::Graph g;
  try {
    g = osched::graph_from_proto_bytes(bytes);
    osched::validate_graph(g);
  } catch (const std::exception&) {
    return 0;
  }
  // A valid graph written and read back is the same graph.
  const std::string again = osched::graph_to_proto_bytes(g);
  if (osched::graph_to_proto_bytes(osched::graph_from_proto_bytes(again)) != again)
    std::abort();
  return 0;
}
