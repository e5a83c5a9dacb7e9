#pragma once
// A JSON value that costs one pointer while null: for fields most objects
// leave out (a node's `meta`, the unknown fields of a node or a tensor),
// which as nlohmann::json would take 16 bytes each in every node of a
// million-node graph. The json interface the code uses; reading a null one
// gives a shared null value.

#include <memory>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

namespace osched {

class BoxedJson {
public:
  BoxedJson() = default;
  BoxedJson(nlohmann::json j) { *this = std::move(j); }
  BoxedJson(const BoxedJson& o)
      : box_(o.box_ ? std::make_unique<nlohmann::json>(*o.box_) : nullptr) {}
  BoxedJson(BoxedJson&&) noexcept = default;
  BoxedJson& operator=(const BoxedJson& o) {
    if (this != &o)
      box_ = o.box_ ? std::make_unique<nlohmann::json>(*o.box_) : nullptr;
    return *this;
  }
  BoxedJson& operator=(BoxedJson&&) noexcept = default;
  BoxedJson& operator=(nlohmann::json j) {
    if (j.is_null())
      box_.reset();
    else if (box_)
      *box_ = std::move(j);
    else
      box_ = std::make_unique<nlohmann::json>(std::move(j));
    return *this;
  }

  // A braced JSON literal, as nlohmann::json takes it.
  BoxedJson& operator=(nlohmann::json::initializer_list_t init) {
    return *this = nlohmann::json(init);
  }

  // The value (null when absent).
  const nlohmann::json& get() const { return box_ ? *box_ : null_value(); }
  operator const nlohmann::json&() const { return get(); }
  // The value to change in place, created null on first use.
  nlohmann::json& edit() {
    if (!box_)
      box_ = std::make_unique<nlohmann::json>();
    return *box_;
  }

  bool is_null() const { return !box_ || box_->is_null(); }
  bool is_object() const { return box_ && box_->is_object(); }
  bool contains(const std::string& key) const { return box_ && box_->contains(key); }
  std::string dump() const { return get().dump(); }
  nlohmann::json::const_iterator find(const std::string& key) const { return get().find(key); }
  nlohmann::json::const_iterator end() const { return get().end(); }
  nlohmann::json& operator[](const std::string& key) { return edit()[key]; }
  const nlohmann::json& operator[](const std::string& key) const { return get()[key]; }

private:
  static const nlohmann::json& null_value() {
    static const nlohmann::json kNull;
    return kNull;
  }
  std::unique_ptr<nlohmann::json> box_;
};

} // namespace osched
