// The schedule job's config-file reader on arbitrary text: loading, the
// option checks, the report's echo and the hardware it resolves. Only the
// library's input error (the hardware fields' too)
// may come out.

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "errors/error.h"
#include "pipeline/prepare_input.h"
#include "pipeline/schedule_options.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  osched::ScheduleConfigDraft draft;
  try {
    draft = osched::apply_schedule_config(
        text, "fuzz.json", std::move(draft), [](std::string_view flag) {
          return flag == "--max-coll-distance"; // one flag "given": its key must be kept
        });
    if (draft.values.scheduler.max_coll_distance != 200)
      __builtin_trap();
    const osched::ScheduleConfig cfg = osched::finish_schedule_config(draft);
    (void)osched::schedule_options_echo(cfg).dump();
    (void)osched::resolve_hardware(osched::Graph{}, cfg);
  } catch (const osched::Error&) {
  }
  return 0;
}
