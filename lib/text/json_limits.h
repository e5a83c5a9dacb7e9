#pragma once
// The limits every JSON text the tool reads is held to, whatever carries it
// (a graph file, JSON embedded in a protobuf graph, a config, estimates or
// hardware file): nesting bounded, so no later recursive walk can overflow
// the stack, and no key repeated within one object.

#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include <nlohmann/json.hpp>

#include "errors/error.h"

namespace osched {

// Most arrays and objects open at once in a graph document, counting the
// document itself. Embedded JSON counts from where it lands in the JSON form.
constexpr int kMaxJsonDepth = 64;

// Broken syntax or a limit crossed; what() is the message without a file.
struct JsonTextError : Error {
  explicit JsonTextError(const std::string& what) : Error(ErrorKind::BadInput, what) {}
};

// An nlohmann exception's message without its "[json.exception...] " prefix.
std::string json_error_text(const std::exception& e);

// Checks one nlohmann parse: hand it every callback event in order.
class JsonLimitCheck {
public:
  // `max_depth`: containers that may be open at once in this text.
  // `reported_depth`: the limit its message names (the document's).
  explicit JsonLimitCheck(int max_depth = kMaxJsonDepth, int reported_depth = kMaxJsonDepth)
      : max_depth_(max_depth), reported_depth_(reported_depth) {}
  // Throws JsonTextError.
  void on_event(int depth, nlohmann::json::parse_event_t event, const nlohmann::json& parsed);
  // The same as separate events, for a SAX reader: a container opens with
  // `depth` others open, a key of the innermost object, a container closes.
  void open(int depth, bool object);
  void key(const std::string& key);
  void close(bool object);

private:
  int max_depth_, reported_depth_;
  std::vector<std::string> keys_;     // keys of every open small object, back to back
  std::vector<size_t> object_starts_; // where each open object's keys begin
  // Per open object: its keys as a set once it has many (then not in keys_).
  std::vector<std::unique_ptr<std::unordered_set<std::string>>> key_sets_;
};

// Parses `text` under the limits: at most `max_depth` containers open at
// once (the message names `reported_depth`), no repeated key. Throws
// JsonTextError.
nlohmann::json parse_json_limited(std::string_view text, int max_depth = kMaxJsonDepth,
                                  int reported_depth = kMaxJsonDepth);

} // namespace osched
