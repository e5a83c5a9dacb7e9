#pragma once
// A graph file's bytes, ready for the readers: big regular files are mapped
// instead of read, so no copy is made and no fresh memory is cleared for them
// (on the 1M-node graphs, reading 360 MB into a buffer cost a second and the
// buffer's pages stayed resident while the model was built).

#include <cstddef>
#include <string>
#include <string_view>

#include "errors/error.h"

namespace osched {

class InputBytes {
public:
  // The file's bytes ("-": standard input). Regular files of at least
  // kMapMinBytes are mapped; a file shortened while mapped ends the process
  // with "error: <path>: changed while it was read" and exit code 2 (a
  // SIGBUS handler; nothing is being written at that point). Throws an input error.
  static InputBytes read(const std::string& path);
  // Text held in a string (copied into a padded buffer by the readers that
  // need one, unless its capacity leaves room).
  static InputBytes borrow(const std::string& text);
  static InputBytes borrow(std::string_view text);

  InputBytes(InputBytes&& other) noexcept;
  InputBytes& operator=(InputBytes&& other) noexcept;
  InputBytes(const InputBytes&) = delete;
  InputBytes& operator=(const InputBytes&) = delete;
  ~InputBytes();

  const char* data() const { return data_; }
  size_t size() const { return size_; }
  std::string_view view() const { return {data_, size_}; }
  // Bytes readable from data(): the size plus any zeroed room after it.
  size_t readable() const { return readable_; }
  bool mapped() const { return map_ != nullptr; }
  // A hint that [begin, end) will not be read soon: a mapping's pages there
  // leave the resident set (reading them again is correct, only slower).
  void done_with(size_t begin, size_t end) const;

  static constexpr size_t kMapMinBytes = size_t{1} << 20;
  // Zeroed bytes readable past the end of a mapped or read file (at least
  // simdjson's SIMDJSON_PADDING).
  static constexpr size_t kPadding = 64;

private:
  InputBytes() = default;
  void reset();

  std::string owned_;
  bool owns_ = false; // data_ is owned_'s
  const char* data_ = nullptr;
  size_t size_ = 0;
  size_t readable_ = 0;
  void* map_ = nullptr;
  size_t map_len_ = 0;
  int slot_ = -1; // SIGBUS handler's record of the mapping
};

// The most read_file_bytes reads by default (a trace, a printed graph), and
// for the small inputs: a table, estimates, a config, a hardware file.
constexpr size_t kMaxFileBytes = size_t{2} << 30;
constexpr size_t kMaxSmallFileBytes = size_t{256} << 20;

// A whole file's bytes as a string ("-": standard input). Throws an input error
// naming the path: a directory, a file larger than `max_bytes`, or a device
// or stream that goes on past it (/dev/zero) is refused before it fills memory.
std::string read_file_bytes(const std::string& path, size_t max_bytes = kMaxFileBytes);

} // namespace osched
