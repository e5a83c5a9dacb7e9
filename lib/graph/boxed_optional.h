#pragma once
// std::optional's interface over a heap box, for fields that are usually
// absent (a node's tags and mutates, a tensor's storage name): 8 bytes in
// place of the value's full size (32-40 bytes), which a million-node graph
// would otherwise carry for every node.

#include <memory>
#include <optional>
#include <type_traits>
#include <utility>

namespace osched {

template <class T> class BoxedOptional {
  template <class U>
  using if_value = std::enable_if_t<!std::is_same_v<std::decay_t<U>, BoxedOptional> &&
                                    !std::is_same_v<std::decay_t<U>, std::optional<T>> &&
                                    !std::is_same_v<std::decay_t<U>, std::nullopt_t> &&
                                    std::is_constructible_v<T, U&&>>;

public:
  BoxedOptional() = default;
  BoxedOptional(std::nullopt_t) {}
  template <class U, class = if_value<U>> BoxedOptional(U&& v) : box_(box(std::forward<U>(v))) {}
  BoxedOptional(const std::optional<T>& v) : box_(v ? box(*v) : nullptr) {}
  BoxedOptional(const BoxedOptional& o) : box_(o.box_ ? box(*o.box_) : nullptr) {}
  BoxedOptional(BoxedOptional&&) noexcept = default;

  BoxedOptional& operator=(const BoxedOptional& o) {
    if (this != &o)
      box_ = o.box_ ? box(*o.box_) : nullptr;
    return *this;
  }
  BoxedOptional& operator=(BoxedOptional&&) noexcept = default;
  BoxedOptional& operator=(std::nullopt_t) {
    box_.reset();
    return *this;
  }
  BoxedOptional& operator=(const std::optional<T>& v) {
    box_ = v ? box(*v) : nullptr;
    return *this;
  }
  BoxedOptional& operator=(std::optional<T>&& v) {
    box_ = v ? box(std::move(*v)) : nullptr;
    return *this;
  }
  template <class U, class = if_value<U>> BoxedOptional& operator=(U&& v) {
    if (box_)
      *box_ = std::forward<U>(v);
    else
      box_ = box(std::forward<U>(v));
    return *this;
  }

  template <class... A> T& emplace(A&&... args) {
    box_ = std::make_unique<T>(std::forward<A>(args)...);
    return *box_;
  }
  void reset() { box_.reset(); }

  bool has_value() const { return box_ != nullptr; }
  explicit operator bool() const { return box_ != nullptr; }
  T& operator*() { return *box_; }
  const T& operator*() const { return *box_; }
  T* operator->() { return box_.get(); }
  const T* operator->() const { return box_.get(); }
  const T& value() const {
    if (!box_)
      throw std::bad_optional_access();
    return *box_;
  }
  std::optional<T> as_optional() const { return box_ ? std::optional<T>(*box_) : std::nullopt; }

  friend bool operator==(const BoxedOptional& a, const BoxedOptional& b) {
    return a.has_value() == b.has_value() && (!a || *a == *b);
  }
  friend bool operator!=(const BoxedOptional& a, const BoxedOptional& b) { return !(a == b); }
  friend bool operator==(const BoxedOptional& a, const std::optional<T>& b) {
    return a.has_value() == b.has_value() && (!a || *a == *b);
  }
  friend bool operator==(const BoxedOptional& a, std::nullopt_t) { return !a; }

private:
  template <class U> static std::unique_ptr<T> box(U&& v) {
    return std::make_unique<T>(std::forward<U>(v));
  }
  std::unique_ptr<T> box_;
};

} // namespace osched
