#pragma once
// A vector kept behind one pointer, empty when null, for members that are
// usually empty (a Value's list items): 8 bytes in place of std::vector's
// 24, which a graph holds a few million times. The vector interface the
// code uses, no more.

#include <algorithm>
#include <cstddef>
#include <initializer_list>
#include <memory>
#include <utility>
#include <vector>

namespace osched {

template <class T> class BoxedVector {
public:
  BoxedVector() = default;
  BoxedVector(std::vector<T> v) { *this = std::move(v); }
  BoxedVector(std::initializer_list<T> items) { *this = std::vector<T>(items); }
  BoxedVector(const BoxedVector& o) : box_(o.empty() ? nullptr : new std::vector<T>(*o.box_)) {}
  BoxedVector(BoxedVector&&) noexcept = default;
  BoxedVector& operator=(const BoxedVector& o) {
    if (this != &o)
      box_.reset(o.empty() ? nullptr : new std::vector<T>(*o.box_));
    return *this;
  }
  BoxedVector& operator=(BoxedVector&&) noexcept = default;
  BoxedVector& operator=(std::vector<T> v) {
    if (v.empty())
      box_.reset();
    else
      box_ = std::make_unique<std::vector<T>>(std::move(v));
    return *this;
  }
  BoxedVector& operator=(std::initializer_list<T> items) { return *this = std::vector<T>(items); }

  // The vector itself, created empty on first use.
  std::vector<T>& vec() {
    if (!box_)
      box_ = std::make_unique<std::vector<T>>();
    return *box_;
  }

  bool empty() const { return !box_ || box_->empty(); }
  size_t size() const { return box_ ? box_->size() : 0; }
  T& operator[](size_t i) { return (*box_)[i]; }
  const T& operator[](size_t i) const { return (*box_)[i]; }
  T* begin() { return box_ ? box_->data() : nullptr; }
  T* end() { return box_ ? box_->data() + box_->size() : nullptr; }
  const T* begin() const { return box_ ? box_->data() : nullptr; }
  const T* end() const { return box_ ? box_->data() + box_->size() : nullptr; }
  void push_back(const T& v) { vec().push_back(v); }
  void push_back(T&& v) { vec().push_back(std::move(v)); }
  template <class... A> T& emplace_back(A&&... args) {
    return vec().emplace_back(std::forward<A>(args)...);
  }
  void resize(size_t n) {
    if (n == 0)
      box_.reset();
    else
      vec().resize(n);
  }
  void reserve(size_t n) {
    if (n > 0)
      vec().reserve(n);
  }
  void clear() { box_.reset(); }
  template <class It> void assign(It first, It last) {
    if (first == last)
      box_.reset();
    else
      vec().assign(first, last);
  }
  T* insert(T* pos, const T& v) {
    size_t at = box_ ? static_cast<size_t>(pos - box_->data()) : 0;
    return &*vec().insert(vec().begin() + static_cast<std::ptrdiff_t>(at), v);
  }
  void erase(T* first, T* last) {
    if (first == last)
      return;
    auto base = box_->begin();
    box_->erase(base + (first - box_->data()), base + (last - box_->data()));
  }
  friend bool operator==(const BoxedVector& a, const BoxedVector& b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin());
  }

private:
  std::unique_ptr<std::vector<T>> box_;
};

} // namespace osched
