#pragma once
// Cleanup that runs only when the scope is left by an exception: the
// exception goes on unchanged, with no catch block to throw it again.

#include <exception>
#include <utility>

namespace osched {

template <typename Fn> class OnUnwind {
public:
  explicit OnUnwind(Fn fn) : fn_(std::move(fn)), exceptions_(std::uncaught_exceptions()) {}
  ~OnUnwind() {
    if (std::uncaught_exceptions() > exceptions_)
      fn_();
  }
  OnUnwind(const OnUnwind&) = delete;
  OnUnwind& operator=(const OnUnwind&) = delete;

private:
  Fn fn_;
  int exceptions_;
};

} // namespace osched
