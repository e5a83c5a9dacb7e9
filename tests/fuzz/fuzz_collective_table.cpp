// The collective-table reader on arbitrary text: only an input error may come
// out; a table it reads writes back to the same rows, and every lookup is a
// finite time or an input error (never inf or NaN).

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>

#include "cost/collective_table.h"
#include "errors/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  osched::CollectiveTable t;
  try {
    t = osched::parse_collective_table(text, "fuzz.table");
  } catch (const osched::Error&) {
    return 0;
  }
  const std::string again =
      osched::write_collective_table(t, {}, std::vector<std::string>(t.rows.size(), std::string()));
  const osched::CollectiveTable back = osched::parse_collective_table(again, "back.table");
  if (back.rows.size() != t.rows.size())
    __builtin_trap();
  for (const osched::CollectiveTableRow& r : t.rows)
    for (int64_t bytes : {int64_t{0}, int64_t{1} << 10, int64_t{1} << 20, int64_t{1} << 40}) {
      osched::CollectiveInfo c;
      c.kind = osched::CollectiveKind::AllReduce;
      c.group = r.group;
      c.group_size = r.group_size;
      c.input_bytes = bytes;
      try {
        if (auto ms = t.time_ms(c); ms && !std::isfinite(*ms))
          __builtin_trap();
      } catch (const osched::Error&) {
      }
    }
  return 0;
}
