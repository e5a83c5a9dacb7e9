#pragma once
// A string stored once per process and referenced by pointer, for fields
// that take a handful of distinct values across a graph (a node's target, a
// tensor's device): 8 bytes per use instead of a 32-byte std::string, and
// equal strings compare by pointer. Interning locks only for a string its
// thread has not seen; reading never does (entries never move or die), so
// graphs are read on several threads at once.
//
// Each distinct string also carries one memo word, for facts derived from
// the text alone (a target's operator class, see target_traits.h): computed
// once per string rather than once per node.

#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>

namespace osched {

class InternedString {
public:
  InternedString() : entry_(&intern({})) {}
  InternedString(std::string_view s) : entry_(&intern(s)) {}
  InternedString(const std::string& s) : entry_(&intern(s)) {}
  InternedString(const char* s) : entry_(&intern(s)) {}
  InternedString& operator=(std::string_view s) {
    entry_ = &intern(s);
    return *this;
  }
  InternedString& operator=(const std::string& s) { return *this = std::string_view(s); }
  InternedString& operator=(const char* s) { return *this = std::string_view(s); }

  const std::string& str() const { return entry_->text; }
  operator const std::string&() const { return entry_->text; }
  operator std::string_view() const { return entry_->text; }
  const char* c_str() const { return entry_->text.c_str(); }
  size_t find(std::string_view s, size_t pos = 0) const { return entry_->text.find(s, pos); }
  size_t find(char c, size_t pos = 0) const { return entry_->text.find(c, pos); }
  bool empty() const { return entry_->text.empty(); }
  size_t size() const { return entry_->text.size(); }

  // The memo word: 0 until set. Racing writers store the same value (a pure
  // function of the text), so relaxed order suffices.
  uint32_t memo() const { return entry_->memo.load(std::memory_order_relaxed); }
  void set_memo(uint32_t v) const { entry_->memo.store(v, std::memory_order_relaxed); }

  friend std::string operator+(const std::string& a, const InternedString& b) {
    return a + b.str();
  }
  friend std::string operator+(const InternedString& a, const std::string& b) {
    return a.str() + b;
  }
  friend std::string operator+(const char* a, const InternedString& b) { return a + b.str(); }

  friend bool operator==(const InternedString& a, const InternedString& b) {
    return a.entry_ == b.entry_;
  }
  friend bool operator!=(const InternedString& a, const InternedString& b) { return !(a == b); }
  friend bool operator==(const InternedString& a, std::string_view b) { return a.str() == b; }
  friend bool operator!=(const InternedString& a, std::string_view b) { return a.str() != b; }
  friend bool operator==(const InternedString& a, const std::string& b) { return a.str() == b; }
  friend bool operator!=(const InternedString& a, const std::string& b) { return a.str() != b; }
  friend bool operator==(const InternedString& a, const char* b) { return a.str() == b; }
  friend bool operator!=(const InternedString& a, const char* b) { return a.str() != b; }

  struct Entry {
    std::string text;
    mutable std::atomic<uint32_t> memo{0};
  };

private:
  static const Entry& intern(std::string_view s);
  const Entry* entry_;
};

} // namespace osched
