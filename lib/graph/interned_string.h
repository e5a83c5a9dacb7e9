#pragma once
// A string stored once per process and referenced by pointer, for fields
// that take a handful of distinct values across a graph (a tensor's device):
// 8 bytes per use instead of a 32-byte std::string, and equal strings
// compare by pointer. Interning locks; reading never does (entries never move
// or die), so graphs are read on several threads at once.

#include <string>
#include <string_view>

namespace osched {

class InternedString {
public:
  InternedString() : text_(&intern({})) {}
  InternedString(std::string_view s) : text_(&intern(s)) {}
  InternedString(const std::string& s) : text_(&intern(s)) {}
  InternedString(const char* s) : text_(&intern(s)) {}
  InternedString& operator=(std::string_view s) {
    text_ = &intern(s);
    return *this;
  }
  InternedString& operator=(const std::string& s) { return *this = std::string_view(s); }
  InternedString& operator=(const char* s) { return *this = std::string_view(s); }

  const std::string& str() const { return *text_; }
  operator const std::string&() const { return *text_; }
  bool empty() const { return text_->empty(); }
  size_t size() const { return text_->size(); }

  friend bool operator==(const InternedString& a, const InternedString& b) {
    return a.text_ == b.text_;
  }
  friend bool operator!=(const InternedString& a, const InternedString& b) { return !(a == b); }
  friend bool operator==(const InternedString& a, std::string_view b) { return *a.text_ == b; }
  friend bool operator!=(const InternedString& a, std::string_view b) { return *a.text_ != b; }
  friend bool operator==(const InternedString& a, const std::string& b) { return *a.text_ == b; }
  friend bool operator!=(const InternedString& a, const std::string& b) { return *a.text_ != b; }
  friend bool operator==(const InternedString& a, const char* b) { return *a.text_ == b; }
  friend bool operator!=(const InternedString& a, const char* b) { return *a.text_ != b; }

private:
  static const std::string& intern(std::string_view s);
  const std::string* text_;
};

} // namespace osched
