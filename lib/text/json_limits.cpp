#include "text/json_limits.h"

#include "text/escape.h"

namespace osched {

void JsonLimitCheck::on_event(int depth, nlohmann::json::parse_event_t event,
                              const nlohmann::json& parsed) {
  using Event = nlohmann::json::parse_event_t;
  // `depth` counts the containers already open; a start opens one more.
  if ((event == Event::object_start || event == Event::array_start) && depth >= max_depth_)
    throw JsonTextError("nested deeper than " + std::to_string(reported_depth_) + " levels");
  if (event == Event::object_start) {
    object_starts_.push_back(keys_.size());
  } else if (event == Event::object_end) {
    if (!object_starts_.empty()) {
      keys_.resize(object_starts_.back());
      object_starts_.pop_back();
    }
  } else if (event == Event::key && !object_starts_.empty()) {
    // Objects have few keys: a flat stack and a linear scan beat a set per
    // object (a graph has millions of small objects).
    const auto& key = parsed.get_ref<const std::string&>();
    for (size_t i = object_starts_.back(); i < keys_.size(); ++i)
      if (keys_[i] == key)
        throw JsonTextError("duplicate key '" + escape_quoted(key.substr(0, 64)) +
                            (key.size() > 64 ? "..." : "") + "' in one object");
    keys_.push_back(key);
  }
}

nlohmann::json parse_json_limited(std::string_view text, int max_depth, int reported_depth) {
  JsonLimitCheck check(max_depth, reported_depth);
  try {
    return nlohmann::json::parse(
        text, [&](int depth, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
          check.on_event(depth, event, parsed);
          return true;
        });
  } catch (const nlohmann::json::exception& e) {
    // nlohmann prefixes "[json.exception.parse_error.101] "; keep the rest.
    std::string msg = e.what();
    auto pos = msg.find("] ");
    throw JsonTextError(pos == std::string::npos ? msg : msg.substr(pos + 2));
  }
}

} // namespace osched
