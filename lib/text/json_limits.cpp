#include "text/json_limits.h"

#include "text/escape.h"

namespace osched {
namespace {

// Objects up to this many keys are checked by a linear scan of a flat key
// stack (a graph has millions of small objects); a larger one gets a hash
// set, so an object of n keys costs O(n), not O(n^2).
constexpr size_t kScanKeys = 32;

// The DOM built from nlohmann's SAX events, with the limits checked on the
// way: linear in the text (nlohmann's callback parser looks through the
// parent container for a discarded value each time an object ends,
// quadratic in an array of objects). A repeated key is found by the
// object's own insert, so keys are neither copied nor hashed twice.
class LimitedDom {
public:
  using json = nlohmann::json;
  LimitedDom(json& root, JsonLimitCheck& check) : root_(root), check_(check) {}

  bool null() { return add(nullptr), true; }
  bool boolean(bool v) { return add(v), true; }
  bool number_integer(json::number_integer_t v) { return add(v), true; }
  bool number_unsigned(json::number_unsigned_t v) { return add(v), true; }
  bool number_float(json::number_float_t v, const json::string_t&) { return add(v), true; }
  bool string(json::string_t& v) { return add(std::move(v)), true; }
  bool binary(json::binary_t& v) { return add(json::binary(std::move(v))), true; }
  bool start_object(std::size_t) {
    check_.open(static_cast<int>(stack_.size()), false);
    stack_.push_back(add(json::object()));
    return true;
  }
  bool key(json::string_t& k) {
    auto [it, fresh] = stack_.back()->get_ref<json::object_t&>().emplace(k, nullptr);
    if (!fresh)
      check_.fail_repeated_key(k);
    element_ = &it->second;
    return true;
  }
  bool end_object() {
    stack_.pop_back();
    return true;
  }
  bool start_array(std::size_t) {
    check_.open(static_cast<int>(stack_.size()), false);
    stack_.push_back(add(json::array()));
    return true;
  }
  bool end_array() {
    stack_.pop_back();
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) {
    check_.fail(json_error_text(e));
  }

private:
  // Places a value: the document, the next element of the open array, or
  // the value of the key just read.
  template <typename V> json* add(V&& v) {
    if (stack_.empty()) {
      root_ = json(std::forward<V>(v));
      return &root_;
    }
    json* top = stack_.back();
    if (top->is_array()) {
      json::array_t& a = top->get_ref<json::array_t&>();
      a.emplace_back(std::forward<V>(v));
      return &a.back();
    }
    *element_ = json(std::forward<V>(v));
    return element_;
  }

  json& root_;
  JsonLimitCheck& check_; // the depth limit
  std::vector<json*> stack_;
  json* element_ = nullptr;
};

} // namespace

std::string json_error_text(const std::exception& e) {
  // nlohmann prefixes "[json.exception.parse_error.101] "; keep the rest.
  const std::string msg = e.what();
  const size_t pos = msg.find("] ");
  return pos == std::string::npos ? msg : msg.substr(pos + 2);
}

void JsonLimitCheck::open(int depth, bool object) {
  // `depth` counts the containers already open; this one opens one more.
  if (depth >= max_depth_)
    fail("nested deeper than " + std::to_string(reported_depth_) + " levels");
  if (object) {
    object_starts_.push_back(keys_.size());
    key_sets_.emplace_back();
  }
}

void JsonLimitCheck::close(bool object) {
  if (!object || object_starts_.empty())
    return;
  keys_.resize(object_starts_.back());
  object_starts_.pop_back();
  key_sets_.pop_back();
}

void JsonLimitCheck::key(const std::string& key) {
  if (object_starts_.empty())
    return;
  std::unique_ptr<std::unordered_set<std::string>>& set = key_sets_.back();
  if (set) {
    if (!set->insert(key).second)
      fail_repeated_key(key);
    return;
  }
  const size_t from = object_starts_.back();
  for (size_t i = from; i < keys_.size(); ++i)
    if (keys_[i] == key)
      fail_repeated_key(key);
  keys_.push_back(key);
  if (keys_.size() - from > kScanKeys) { // from now on, a set for this object
    set = std::make_unique<std::unordered_set<std::string>>(
        std::make_move_iterator(keys_.begin() + static_cast<std::ptrdiff_t>(from)),
        std::make_move_iterator(keys_.end()));
    keys_.resize(from);
  }
}

void JsonLimitCheck::on_event(int depth, nlohmann::json::parse_event_t event,
                              const nlohmann::json& parsed) {
  using Event = nlohmann::json::parse_event_t;
  if (event == Event::object_start || event == Event::array_start)
    open(depth, event == Event::object_start);
  else if (event == Event::object_end)
    close(true);
  else if (event == Event::key)
    key(parsed.get_ref<const std::string&>());
}

void JsonLimitCheck::fail(const std::string& what) const {
  throw input_error(context_ + ": " + what);
}

void JsonLimitCheck::fail_repeated_key(const std::string& key) const {
  fail("duplicate key '" + escape_quoted(key.substr(0, 64)) + (key.size() > 64 ? "..." : "") +
       "' in one object");
}

nlohmann::json parse_json_limited(std::string_view text, const std::string& context, int max_depth,
                                  int reported_depth) {
  JsonLimitCheck check(max_depth, reported_depth, context);
  nlohmann::json root;
  LimitedDom sax(root, check);
  // nlohmann reports syntax errors to the DOM (parse_error), which words
  // them; what else it throws is a limit of its own (1e999).
  try {
    nlohmann::json::sax_parse(text, &sax);
  } catch (const nlohmann::json::exception& e) {
    check.fail(json_error_text(e));
  }
  return root;
}

} // namespace osched
