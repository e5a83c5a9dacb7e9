#pragma once
// One error in an input graph: where it is (node, field) and what is wrong.
// what() gives the one-line form "FILE: node 'NAME': field: message".

#include <stdexcept>
#include <string>

#include "text/escape.h"

#include "errors/error.h"

namespace osched {

class GraphError : public Error {
public:
  GraphError(std::string node, std::string field, std::string message)
      : Error(ErrorKind::BadInput, format("", node, field, message)), node_(std::move(node)),
        field_(std::move(field)), message_(std::move(message)) {}

  // Same error, prefixed with the file it came from.
  GraphError with_file(const std::string& file) const {
    GraphError e(node_, field_, message_);
    e.file_ = file;
    e.text_ = format(file, node_, field_, message_);
    return e;
  }

  const char* what() const noexcept override {
    return text_.empty() ? Error::what() : text_.c_str();
  }
  const std::string& node() const { return node_; }
  const std::string& field() const { return field_; }
  const std::string& message() const { return message_; }

private:
  static std::string format(const std::string& file, const std::string& node,
                            const std::string& field, const std::string& message) {
    std::string s;
    if (!file.empty())
      s += file + ": ";
    if (!node.empty())
      s += "node '" + escape_quoted(node) + "': ";
    if (!field.empty())
      s += field + ": ";
    return s + message;
  }

  std::string node_, field_, message_, file_, text_;
};

} // namespace osched
