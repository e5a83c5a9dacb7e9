#pragma once
// TORCH_TRACE structured logs (what `TORCH_TRACE=DIR` writes and tlparse
// reads): one record a line, `[rankN]:`-optional glog-style prefix, then a
// JSON object naming the event and its compile id (`frame_id`,
// `frame_compile_id`, `attempt`), then the payload, each of its lines
// indented by one tab. Graph events carry print_readable() text.

#include <optional>
#include <string>
#include <vector>

namespace osched {

struct FxTraceGraph {
  std::string event;      // "inductor_post_grad_graph", "aot_forward_graph", ...
  std::string compile_id; // tlparse's notation: "0/1", "0/1_2" after a restart
  int line = 0;           // the record's line in the log
  std::string payload;    // print_readable() text, tabs removed
};

// Whether `text` is a TORCH_TRACE log: its first record line parses as one.
bool looks_like_torch_trace(const std::string& text);

// The graph records of a TORCH_TRACE log, in log order: the post-grad
// graphs when it has any, else the AOT graphs (forward, backward,
// inference, joint). Malformed record lines are skipped; a log with no
// graph record gives an empty list.
std::vector<FxTraceGraph> read_torch_trace_graphs(const std::string& text);

} // namespace osched
