#include <catch2/catch.hpp>

#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "graph/graph.h"
#include "graph/meta_ref.h"

using namespace osched;

namespace {
TensorMeta meta(int64_t rows, int64_t cols) {
  TensorMeta m;
  m.shape = {Dim::of(rows), Dim::of(cols)};
  m.stride = {Dim::of(cols), Dim::of(1)};
  m.dtype = DType::BFloat16;
  m.device = "cuda:0";
  return m;
}
} // namespace

TEST_CASE("meta ref: equal metas share one copy, any differing field makes another") {
  const TensorMeta base = meta(4096, 1024);
  MetaRef a = base, b = meta(4096, 1024);
  CHECK(a.get() == b.get());
  CHECK(a == b);
  CHECK(a->shape[0].value == 4096);

  std::vector<std::function<void(TensorMeta&)>> edits = {
      [](TensorMeta& m) { m.shape[1].value = 1025; },
      [](TensorMeta& m) { m.stride[0].value = 2048; },
      [](TensorMeta& m) { m.shape[0].sym_id = intern_symbol("s0"); },
      [](TensorMeta& m) {
        m.shape[0].sym_id = intern_symbol("u0");
        m.shape[0].has_hint = false;
      },
      [](TensorMeta& m) { m.dtype = DType::Float32; },
      [](TensorMeta& m) { m.device = "cuda:1"; },
      [](TensorMeta& m) { m.storage = "s"; },
      [](TensorMeta& m) { m.storage_offset = 0; },
      [](TensorMeta& m) { m.storage_bytes = 0; },
      [](TensorMeta& m) {
        m.extra = {{"requires_grad", true}};
      },
      [](TensorMeta& m) { m.shape.push_back(Dim::of(1)); },
  };
  std::vector<const TensorMeta*> seen = {a.get()};
  for (size_t i = 0; i < edits.size(); ++i) {
    INFO("edit " << i);
    TensorMeta changed = base;
    edits[i](changed);
    MetaRef r = changed;
    for (const TensorMeta* p : seen)
      CHECK(r.get() != p);
    seen.push_back(r.get());
    CHECK(MetaRef(changed).get() == r.get()); // and it is interned too
  }

  // Unknown fields compare as written: 1 and 1.0 are equal JSON numbers but
  // are written differently, so they must not share a copy.
  TensorMeta one = base, one_point_zero = base;
  one.extra = {{"k", 1}};
  one_point_zero.extra = {{"k", 1.0}};
  CHECK(MetaRef(one).get() != MetaRef(one_point_zero).get());
  CHECK(MetaRef(one)->extra.dump() == "{\"k\":1}");
  CHECK(MetaRef(one_point_zero)->extra.dump() == "{\"k\":1.0}");
}

TEST_CASE("meta ref: behaves as an optional meta and copies as a pointer") {
  MetaRef none;
  CHECK_FALSE(none.has_value());
  CHECK_FALSE(static_cast<bool>(none));
  CHECK(none.get() == nullptr);
  CHECK(none.as_optional() == std::nullopt);
  CHECK(MetaRef(std::optional<TensorMeta>()) == none);

  MetaRef some = std::optional<TensorMeta>(meta(2, 3));
  REQUIRE(some.has_value());
  CHECK(some.as_optional()->numel() == 6);
  some.reset();
  CHECK(some == none);

  Node n;
  n.val = {meta(2, 3), std::nullopt};
  REQUIRE(n.val.size() == 2);
  CHECK(n.output(0) == MetaRef(meta(2, 3)).get());
  CHECK(n.output(1) == nullptr);
  CHECK(n.output(2) == nullptr);
  Node copy = n;
  CHECK(copy.output(0) == n.output(0)); // shared, not copied
  static_assert(sizeof(MetaRef) == sizeof(void*));
  static_assert(std::is_trivially_copyable_v<MetaRef>);
}

TEST_CASE("meta ref: threads interning the same metas get the same copies") {
  constexpr int kThreads = 4, kShapes = 200;
  std::vector<std::vector<const TensorMeta*>> got(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([t, &got] {
      for (int i = 0; i < kShapes; ++i)
        got[t].push_back(MetaRef(meta(7000 + i, 3 + t % 2)).get());
    });
  for (auto& th : threads)
    th.join();
  for (int t = 2; t < kThreads; ++t)
    CHECK(got[t] == got[t % 2]);
  for (int i = 0; i < kShapes; ++i)
    CHECK(got[0][i] != got[1][i]);
}

TEST_CASE("interned strings and symbols: many distinct values from two threads, one entry each") {
  // Placeholders' targets are unique names: tens of thousands of misses,
  // which grow the interning tables while another thread reads them.
  constexpr int kNames = 20000;
  auto name = [](int i) { return "interning_test_placeholder_" + std::to_string(i); };
  std::vector<InternedString> a(kNames), b(kNames);
  std::vector<int32_t> sa(kNames), sb(kNames);
  std::thread other([&] {
    for (int i = kNames - 1; i >= 0; --i) {
      b[i] = name(i);
      sb[i] = intern_symbol("sym_" + name(i));
    }
  });
  for (int i = 0; i < kNames; ++i) {
    a[i] = name(i);
    sa[i] = intern_symbol("sym_" + name(i));
  }
  other.join();
  size_t mismatched = 0;
  for (int i = 0; i < kNames; ++i) {
    mismatched += !(a[i] == b[i]) || a[i].str() != name(i) || sa[i] != sb[i] ||
                  symbol_name(sa[i]) != "sym_" + name(i);
    mismatched += i > 0 && (a[i] == a[i - 1] || sa[i] == sa[i - 1]);
  }
  CHECK(mismatched == 0);
  // Asked again (now from each thread's cache, or the tables), the same.
  CHECK(InternedString(name(7)) == a[7]);
  CHECK(intern_symbol("sym_" + name(7)) == sa[7]);
  CHECK(symbol_name(-1).empty());
}
