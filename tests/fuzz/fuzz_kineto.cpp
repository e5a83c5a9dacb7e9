// The profiler-trace reader and calibration on arbitrary bytes (JSON or
// gzip): only an input error may come out, and a table it writes must read
// back with the same rows.

#include <cstddef>
#include <cstdint>
#include <string>

#include "calibrate/collective_fit.h"
#include "calibrate/kineto_trace.h"
#include "cost/collective_table.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  try {
    std::vector<osched::KinetoTrace> traces = {osched::parse_kineto_trace(bytes, "fuzz.json")};
    traces.push_back(traces[0]);
    traces[1].rank = traces[0].rank + 1; // a second rank: the matching path too
    osched::CollectiveCalibration c = osched::calibrate_collectives(traces);
    const std::string text = osched::write_collective_table(c.table, {}, {});
    osched::CollectiveTable back = osched::parse_collective_table(text, "t.table");
    if (back.rows.size() != c.table.rows.size())
      __builtin_trap();
  } catch (const osched::Error&) {
  }
  return 0;
}
