#pragma once
// A vector whose first kInline elements sit in place and only longer
// contents go to the heap: for small, trivially copyable elements held
// millions of times (a tensor's shape and stride), where std::vector's heap
// block per instance costs more than the elements. The std::vector
// interface the code uses, and conversions to and from std::vector.

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <iterator>
#include <new>
#include <type_traits>
#include <vector>

namespace osched {

template <class T, uint32_t kInline> class InlineVector {
  static_assert(std::is_trivially_copyable_v<T>, "elements are copied as bytes");

public:
  using value_type = T;
  using iterator = T*;
  using const_iterator = const T*;

  InlineVector() = default;
  InlineVector(std::initializer_list<T> items) { assign(items.begin(), items.end()); }
  template <class It, class = std::enable_if_t<!std::is_integral_v<It>>>
  InlineVector(It first, It last) {
    assign(first, last);
  }
  InlineVector(const std::vector<T>& v) { assign(v.begin(), v.end()); }
  InlineVector(const InlineVector& o) { assign(o.begin(), o.end()); }
  InlineVector(InlineVector&& o) noexcept { take(o); }
  ~InlineVector() { release(); }

  InlineVector& operator=(const InlineVector& o) {
    if (this != &o)
      assign(o.begin(), o.end());
    return *this;
  }
  InlineVector& operator=(InlineVector&& o) noexcept {
    if (this != &o) {
      release();
      take(o);
    }
    return *this;
  }
  InlineVector& operator=(const std::vector<T>& v) {
    assign(v.begin(), v.end());
    return *this;
  }
  InlineVector& operator=(std::initializer_list<T> items) {
    assign(items.begin(), items.end());
    return *this;
  }
  operator std::vector<T>() const { return std::vector<T>(begin(), end()); }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  size_t capacity() const { return cap_; }
  T* data() { return on_heap() ? heap_ : in_place(); }
  const T* data() const { return on_heap() ? heap_ : in_place(); }
  T* begin() { return data(); }
  T* end() { return data() + size_; }
  const T* begin() const { return data(); }
  const T* end() const { return data() + size_; }
  T& operator[](size_t i) { return data()[i]; }
  const T& operator[](size_t i) const { return data()[i]; }
  T& back() { return data()[size_ - 1]; }
  const T& back() const { return data()[size_ - 1]; }

  void reserve(size_t n) {
    if (n <= cap_)
      return;
    T* grown = new T[n];
    std::copy(begin(), end(), grown);
    const uint32_t count = size_;
    release();
    heap_ = grown;
    cap_ = static_cast<uint32_t>(n);
    size_ = count;
  }
  void push_back(const T& v) {
    if (size_ == cap_)
      reserve(size_t{2} * cap_);
    data()[size_++] = v;
  }
  template <class... A> T& emplace_back(A&&... args) {
    push_back(T{std::forward<A>(args)...});
    return back();
  }
  void resize(size_t n, const T& v = T{}) {
    reserve(n);
    std::fill(data() + std::min<size_t>(size_, n), data() + n, v);
    size_ = static_cast<uint32_t>(n);
  }
  void clear() { size_ = 0; }
  void assign(size_t n, const T& v) {
    clear();
    resize(n, v);
  }
  template <class It, class = std::enable_if_t<!std::is_integral_v<It>>>
  void assign(It first, It last) {
    const size_t n = static_cast<size_t>(std::distance(first, last));
    if (n > cap_) {
      // `first` may point into this vector: copy before letting go.
      T* fresh = new T[n];
      std::copy(first, last, fresh);
      release();
      heap_ = fresh;
      cap_ = static_cast<uint32_t>(n);
    } else {
      std::copy(first, last, data());
    }
    size_ = static_cast<uint32_t>(n);
  }
  T* insert(const T* pos, const T& v) {
    const size_t at = static_cast<size_t>(pos - data());
    const T copy = v; // `v` may live in this vector
    if (size_ == cap_)
      reserve(size_t{2} * cap_);
    std::copy_backward(data() + at, end(), end() + 1);
    data()[at] = copy;
    ++size_;
    return data() + at;
  }
  T* erase(const T* pos) { return erase(pos, pos + 1); }
  T* erase(const T* first, const T* last) {
    const size_t at = static_cast<size_t>(first - data());
    const size_t count = static_cast<size_t>(last - first);
    std::copy(data() + at + count, end(), data() + at);
    size_ -= static_cast<uint32_t>(count);
    return data() + at;
  }

  friend bool operator==(const InlineVector& a, const InlineVector& b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end());
  }
  friend bool operator!=(const InlineVector& a, const InlineVector& b) { return !(a == b); }

private:
  bool on_heap() const { return cap_ > kInline; }
  T* in_place() { return std::launder(reinterpret_cast<T*>(raw_)); }
  const T* in_place() const { return std::launder(reinterpret_cast<const T*>(raw_)); }
  void release() {
    if (on_heap())
      delete[] heap_;
    cap_ = kInline;
    size_ = 0;
  }
  // Moves o's elements here (this holds none), leaving o empty.
  void take(InlineVector& o) {
    size_ = o.size_;
    cap_ = o.cap_;
    if (o.on_heap())
      heap_ = o.heap_;
    else
      std::memcpy(raw_, o.raw_, sizeof(T) * o.size_);
    o.cap_ = kInline;
    o.size_ = 0;
  }

  uint32_t size_ = 0;
  uint32_t cap_ = kInline;
  // Raw bytes rather than T[kInline]: T's default member initializers would
  // make a union member of type T non-trivial.
  union {
    alignas(T) unsigned char raw_[sizeof(T) * kInline];
    T* heap_;
  };
};

} // namespace osched
