// The FX text importer on arbitrary text: parsing, annotations, load_args,
// shape propagation and group assignment. Only the library's input error may come out,
// and what is imported must be a valid graph that round-trips through JSON.

#include <cstddef>
#include <cstdint>
#include <string>

#include "format/json_io.h"
#include "fx/fx_import.h"
#include "validate/validate.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  osched::FxImportOptions opts;
  opts.world_size = 8; // groups without a size still import
  opts.hints["s0"] = 64;
  try {
    osched::FxImportResult r = osched::import_fx_text(text, "fuzz.py", opts);
    osched::validate_graph(r.graph);
    std::string json = osched::graph_to_json_text(r.graph);
    if (osched::graph_to_json_text(osched::graph_from_json_text(json)) != json)
      __builtin_trap();
  } catch (const osched::Error&) {
  }
  return 0;
}
