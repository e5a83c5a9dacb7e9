#pragma once
// std::optional<int64_t>'s interface for a value that is never negative (a
// tensor's storage offset and storage size): the missing value is stored as
// -1, so the field takes 8 bytes instead of 16. Readers reject negative input
// before they assign it (a negative assigned here would read as absent).

#include <cstdint>
#include <optional>
#include <stdexcept>

namespace osched {

class CountOptional {
public:
  CountOptional() = default;
  CountOptional(std::nullopt_t) {}
  CountOptional(int64_t v) : v_(v < 0 ? kAbsent : v) {}
  CountOptional(const std::optional<int64_t>& v) : CountOptional(v ? *v : kAbsent) {}

  CountOptional& operator=(std::nullopt_t) {
    v_ = kAbsent;
    return *this;
  }
  CountOptional& operator=(int64_t v) {
    v_ = v < 0 ? kAbsent : v;
    return *this;
  }

  bool has_value() const { return v_ >= 0; }
  explicit operator bool() const { return v_ >= 0; }
  int64_t operator*() const { return v_; }
  int64_t value() const {
    if (v_ < 0)
      throw std::bad_optional_access();
    return v_;
  }
  int64_t value_or(int64_t other) const { return v_ >= 0 ? v_ : other; }
  void reset() { v_ = kAbsent; }
  operator std::optional<int64_t>() const {
    return v_ >= 0 ? std::optional<int64_t>(v_) : std::nullopt;
  }

  friend bool operator==(const CountOptional& a, const CountOptional& b) { return a.v_ == b.v_; }
  friend bool operator!=(const CountOptional& a, const CountOptional& b) { return a.v_ != b.v_; }
  friend bool operator==(const CountOptional& a, std::nullopt_t) { return !a; }

private:
  static constexpr int64_t kAbsent = -1;
  int64_t v_ = kAbsent;
};

} // namespace osched
