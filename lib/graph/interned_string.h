#pragma once
// A string stored once per process and referenced by pointer, for fields
// that take a handful of distinct values across a graph (a node's target, a
// tensor's device):
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
  operator std::string_view() const { return *text_; }
  const char* c_str() const { return text_->c_str(); }
  size_t find(std::string_view s, size_t pos = 0) const { return text_->find(s, pos); }
  size_t find(char c, size_t pos = 0) const { return text_->find(c, pos); }
  // Identity of the string: equal strings share it, for per-string caches.
  const void* key() const { return text_; }
  bool empty() const { return text_->empty(); }
  size_t size() const { return text_->size(); }

  friend std::string operator+(const std::string& a, const InternedString& b) {
    return a + *b.text_;
  }
  friend std::string operator+(const InternedString& a, const std::string& b) {
    return *a.text_ + b;
  }
  friend std::string operator+(const char* a, const InternedString& b) { return a + *b.text_; }

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
