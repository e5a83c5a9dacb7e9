// The JSON graph reader and validator on arbitrary bytes: any input either
// yields a graph or a std::exception (a one-line error), never a crash.

#include <cstddef>
#include <cstdint>
#include <exception>
#include <string>

#include "io/json_io.h"
#include "io/validate.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    osched::Graph g = osched::graph_from_json_text(text);
    osched::validate_graph(g);
    (void)osched::graph_to_json_text(g);
  } catch (const std::exception&) {
  }
  return 0;
}
