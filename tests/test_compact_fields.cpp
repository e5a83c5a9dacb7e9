#include <catch2/catch.hpp>

#include <optional>

#include "graph/boxed_json.h"
#include "graph/count_optional.h"
#include "graph/graph.h"

using namespace osched;

TEST_CASE("count optional: absent, zero and counts behave as std::optional<int64_t>") {
  CountOptional none;
  CHECK_FALSE(none.has_value());
  CHECK_FALSE(static_cast<bool>(none));
  CHECK(none.value_or(7) == 7);
  CHECK_THROWS_AS(none.value(), std::bad_optional_access);
  CHECK(std::optional<int64_t>(none) == std::nullopt);
  CHECK(none == std::nullopt);

  CountOptional zero = 0; // present: zero is a count
  CHECK(zero.has_value());
  CHECK(*zero == 0);
  CHECK(zero.value_or(7) == 0);
  CHECK(std::optional<int64_t>(zero) == int64_t{0});
  CHECK(zero != none);

  CountOptional big = int64_t{1} << 52;
  CHECK(big.value() == int64_t{1} << 52);
  big = std::nullopt;
  CHECK(big == none);
  big = 5;
  big.reset();
  CHECK_FALSE(big);

  // From std::optional, both ways.
  CountOptional from_opt = std::optional<int64_t>(12);
  CHECK(*from_opt == 12);
  CountOptional from_empty = std::optional<int64_t>();
  CHECK_FALSE(from_empty);
}

TEST_CASE("boxed json: null without a box, edited in place, copied deeply") {
  BoxedJson j;
  CHECK(j.is_null());
  CHECK_FALSE(j.is_object());
  CHECK_FALSE(j.contains("a"));
  CHECK(j.dump() == "null");
  CHECK(j.find("a") == j.end());

  j["a"]["b"] = 1; // creates the object
  CHECK(j.is_object());
  CHECK(j.contains("a"));
  CHECK(j.get()["a"]["b"] == 1);
  CHECK(j.dump() == R"({"a":{"b":1}})");

  BoxedJson copy = j;
  copy["a"]["b"] = 2;
  CHECK(j.get()["a"]["b"] == 1);
  CHECK(copy.get()["a"]["b"] == 2);

  j = nlohmann::json(); // null again
  CHECK(j.is_null());
  j = nlohmann::json{{"stack", "x"}};
  const nlohmann::json& view = j;
  CHECK(view["stack"] == "x");
  const BoxedJson& constant = j;
  CHECK(constant.find("stack") != constant.end());
}

TEST_CASE("a node's and a tensor's usually absent fields take one word each") {
  CHECK(sizeof(BoxedJson) == sizeof(void*));
  CHECK(sizeof(CountOptional) == sizeof(int64_t));
}
