#pragma once
// A string that costs one pointer while empty: for a field most objects
// leave empty (a Value's string payload, set only for string arguments and
// for references still waiting for their name), which would otherwise take
// 32 bytes in each of a big graph's millions of values.

#include <memory>
#include <string>
#include <string_view>

namespace osched {

class BoxedString {
public:
  BoxedString() = default;
  BoxedString(std::string s) { assign(std::move(s)); }
  BoxedString(const BoxedString& o) { assign(o.str()); }
  BoxedString(BoxedString&&) noexcept = default;
  BoxedString& operator=(const BoxedString& o) {
    if (this != &o)
      assign(o.str());
    return *this;
  }
  BoxedString& operator=(BoxedString&&) noexcept = default;
  BoxedString& operator=(std::string s) {
    assign(std::move(s));
    return *this;
  }
  BoxedString& operator=(std::string_view s) { return *this = std::string(s); }
  BoxedString& operator=(const char* s) { return *this = std::string(s); }

  const std::string& str() const { return box_ ? *box_ : empty_string(); }
  operator const std::string&() const { return str(); }
  std::string_view view() const { return str(); }
  size_t size() const { return box_ ? box_->size() : 0; }
  bool empty() const { return size() == 0; }
  void clear() { box_.reset(); }

  friend bool operator==(const BoxedString& a, const BoxedString& b) { return a.str() == b.str(); }
  friend bool operator!=(const BoxedString& a, const BoxedString& b) { return !(a == b); }
  friend bool operator==(const BoxedString& a, std::string_view b) { return a.view() == b; }
  friend bool operator!=(const BoxedString& a, std::string_view b) { return a.view() != b; }
  friend bool operator==(const BoxedString& a, const char* b) { return a.view() == b; }
  friend bool operator!=(const BoxedString& a, const char* b) { return a.view() != b; }

private:
  std::unique_ptr<std::string> box_; // null: empty

  void assign(std::string s) {
    if (s.empty())
      box_.reset();
    else if (box_)
      *box_ = std::move(s);
    else
      box_ = std::make_unique<std::string>(std::move(s));
  }
  static const std::string& empty_string() {
    static const std::string empty;
    return empty;
  }
};

} // namespace osched
