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

// An nlohmann exception's message without its "[json.exception...] " prefix.
std::string json_error_text(const std::exception& e);

// What a JSON error says before its own words when the caller says nothing.
inline const std::string kMalformedJson = "malformed JSON";

// Checks one nlohmann parse: hand it every callback event in order.
class JsonLimitCheck {
public:
  // `max_depth`: containers that may be open at once in this text.
  // `reported_depth`: the limit its message names (the document's).
  // `context`: what each error says first (the file, what was read).
  explicit JsonLimitCheck(int max_depth = kMaxJsonDepth, int reported_depth = kMaxJsonDepth,
                          std::string context = kMalformedJson)
      : max_depth_(max_depth), reported_depth_(reported_depth), context_(std::move(context)) {}
  // Throws input_error("CONTEXT: what is wrong").
  void on_event(int depth, nlohmann::json::parse_event_t event, const nlohmann::json& parsed);
  // The same as separate events, for a SAX reader: a container opens with
  // `depth` others open, a key of the innermost object, a container closes.
  void open(int depth, bool object);
  void key(const std::string& key);
  void close(bool object);
  // input_error("CONTEXT: what").
  [[noreturn]] void fail(const std::string& what) const;
  // The error of `key` repeated in one object.
  [[noreturn]] void fail_repeated_key(const std::string& key) const;

private:
  int max_depth_, reported_depth_;
  std::string context_;
  std::vector<std::string> keys_;     // keys of every open small object, back to back
  std::vector<size_t> object_starts_; // where each open object's keys begin
  // Per open object: its keys as a set once it has many (then not in keys_).
  std::vector<std::unique_ptr<std::unordered_set<std::string>>> key_sets_;
};

// Parses `text` under the limits: at most `max_depth` containers open at
// once (the message names `reported_depth`), no repeated key. Throws
// input_error("CONTEXT: what is wrong"), CONTEXT naming the text
// ("PATH: malformed JSON").
nlohmann::json parse_json_limited(std::string_view text,
                                  const std::string& context = kMalformedJson,
                                  int max_depth = kMaxJsonDepth,
                                  int reported_depth = kMaxJsonDepth);

// The same through nlohmann's callback parser, for readers that take large
// arrays an element at a time (returning false drops each from the
// document: a kept array of objects costs nlohmann's callback parser
// quadratic time, so whole documents go through parse_json_limited).
// `keep(depth, event, parsed)` is nlohmann's callback, called after the
// limits' check of each event.
template <typename Keep>
nlohmann::json parse_json_events(std::string_view text, const std::string& context, Keep&& keep) {
  JsonLimitCheck limits(kMaxJsonDepth, kMaxJsonDepth, context);
  try {
    return nlohmann::json::parse(
        text, [&](int depth, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
          limits.on_event(depth, event, parsed);
          return keep(depth, event, parsed);
        });
  } catch (const nlohmann::json::exception& e) { // syntax, numbers out of range (1e999)
    limits.fail(json_error_text(e));
  }
}

} // namespace osched
