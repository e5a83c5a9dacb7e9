#include <catch2/catch.hpp>

#include <vector>

#include "graph/inline_vector.h"
#include "graph/tensor_meta.h"

using namespace osched;

namespace {

using Small = InlineVector<int, 2>;

std::vector<int> as_vector(const Small& v) {
  return std::vector<int>(v.begin(), v.end());
}

} // namespace

TEST_CASE("inline vector: in place up to its capacity, on the heap past it, same contents") {
  Small v;
  CHECK(v.empty());
  CHECK(v.capacity() == 2);
  std::vector<int> want;
  for (int i = 0; i < 9; ++i) {
    v.push_back(i * 10);
    want.push_back(i * 10);
    REQUIRE(as_vector(v) == want);
  }
  CHECK(v.capacity() >= 9);
  CHECK(v[0] == 0);
  CHECK(v.back() == 80);

  // Copies and moves, from the heap and from in place.
  Small copy = v;
  CHECK(copy == v);
  Small moved = std::move(copy);
  CHECK(moved == v);
  CHECK(copy.empty()); // NOLINT(bugprone-use-after-move): moved-from is empty
  Small few{1, 2};
  Small few_moved = std::move(few);
  CHECK(as_vector(few_moved) == std::vector<int>{1, 2});
  few_moved = v;
  CHECK(few_moved == v);
  few_moved = Small{7};
  CHECK(as_vector(few_moved) == std::vector<int>{7});
  few_moved = std::move(moved);
  CHECK(few_moved == v);
}

TEST_CASE("inline vector: insert, erase, resize and assign as std::vector does") {
  for (size_t start = 0; start < 6; ++start) {
    INFO("start size " << start);
    Small v;
    std::vector<int> want;
    for (size_t i = 0; i < start; ++i) {
      v.push_back(static_cast<int>(i));
      want.push_back(static_cast<int>(i));
    }
    for (size_t at = 0; at <= start; ++at) {
      Small a = v;
      std::vector<int> w = want;
      a.insert(a.begin() + at, 99);
      w.insert(w.begin() + static_cast<long>(at), 99);
      CHECK(as_vector(a) == w);
      a.erase(a.begin() + at);
      w.erase(w.begin() + static_cast<long>(at));
      CHECK(as_vector(a) == w);
    }
    if (start >= 2) {
      Small a = v;
      std::vector<int> w = want;
      // An element of the vector itself, inserted at the front.
      a.insert(a.begin(), a.back());
      w.insert(w.begin(), w.back());
      CHECK(as_vector(a) == w);
      a.erase(a.begin() + 1, a.end() - 1);
      w.erase(w.begin() + 1, w.end() - 1);
      CHECK(as_vector(a) == w);
    }
    Small r = v;
    std::vector<int> w = want;
    r.resize(start + 3, 5);
    w.resize(start + 3, 5);
    CHECK(as_vector(r) == w);
    r.resize(1);
    w.resize(1);
    CHECK(as_vector(r) == w);
    r.assign(4, 8);
    CHECK(as_vector(r) == std::vector<int>(4, 8));
    // Assigning a vector's own tail to it.
    Small self = v;
    self.assign(self.begin() + start / 2, self.end());
    CHECK(as_vector(self) ==
          std::vector<int>(want.begin() + static_cast<long>(start / 2), want.end()));
  }
}

TEST_CASE("inline vector: converts to and from std::vector, compares by contents") {
  const std::vector<int> five{1, 2, 3, 4, 5};
  Small v = five;
  CHECK(std::vector<int>(v) == five);
  Small w(five.begin(), five.begin() + 2);
  CHECK(as_vector(w) == std::vector<int>{1, 2});
  CHECK(w != v);
  w = five;
  CHECK(w == v);
  v.clear();
  CHECK(v.empty());
  CHECK(v != w);
  v.reserve(40);
  CHECK(v.empty());
  CHECK(v.capacity() >= 40);

  // A tensor's dims: rank 4 stays in place, rank 5 does not, same values.
  DimVector dims;
  for (int64_t d : {8, 16, 32, 64})
    dims.push_back(Dim::of(d));
  CHECK(dims.capacity() == 4);
  dims.emplace_back(Dim::of(128));
  CHECK(dims.capacity() > 4);
  CHECK(dims.size() == 5);
  CHECK(dims[4].value == 128);
  CHECK(dims[0].value == 8);
}
