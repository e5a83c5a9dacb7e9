#include "files/input_bytes.h"

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <limits>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "files/output_batch.h"

namespace osched {
namespace {

// Mappings in use, for the SIGBUS handler: fixed slots, so the handler
// touches no allocator.
constexpr int kSlots = 8;
constexpr size_t kPathMax = 4096;
struct MapSlot {
  std::atomic<uintptr_t> begin{0}, end{0};
  char path[kPathMax];
};
MapSlot g_maps[kSlots];
std::atomic<bool> g_handler_installed{false};

void write_stderr(const char* s) {
  size_t left = std::strlen(s);
  while (left > 0) {
    ssize_t w = ::write(2, s, left);
    if (w <= 0)
      return;
    s += w;
    left -= static_cast<size_t>(w);
  }
}

extern "C" void on_sigbus(int sig, siginfo_t* info, void*) {
  const auto at = reinterpret_cast<uintptr_t>(info->si_addr);
  for (auto& slot : g_maps) {
    if (at >= slot.begin.load() && at < slot.end.load()) {
      write_stderr("error: ");
      write_stderr(slot.path);
      write_stderr(": changed while it was read\n");
      remove_temporaries_now();
      ::_exit(2); // the CLI's invalid-input code
    }
  }
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

int register_mapping(const void* begin, size_t len, const std::string& path) {
  if (!g_handler_installed.exchange(true)) {
    struct sigaction sa {};
    sa.sa_sigaction = on_sigbus;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGBUS, &sa, nullptr);
  }
  for (int i = 0; i < kSlots; ++i) {
    uintptr_t expected = 0;
    if (g_maps[i].begin.load() != 0)
      continue;
    // Claim with a placeholder, then fill in the path and the real range.
    if (!g_maps[i].begin.compare_exchange_strong(expected, 1))
      continue;
    const size_t n = std::min(path.size(), kPathMax - 1);
    std::memcpy(g_maps[i].path, path.data(), n);
    g_maps[i].path[n] = '\0';
    g_maps[i].end.store(reinterpret_cast<uintptr_t>(begin) + len);
    g_maps[i].begin.store(reinterpret_cast<uintptr_t>(begin));
    return i;
  }
  return -1; // more mappings than slots: the mapping is still read, a SIGBUS stays a crash
}

void unregister_mapping(int slot) {
  if (slot < 0)
    return;
  g_maps[slot].end.store(0);
  g_maps[slot].begin.store(0);
}

Error too_large(const std::string& path, size_t max_bytes) {
  return input_error(path + ": larger than " + std::to_string(max_bytes >> 20) +
                     " MiB (a device or a stream that does not end?)");
}

// A stream's bytes, in pieces, refused past `max_bytes` (a device or pipe
// that does not end would otherwise fill memory).
std::string read_stream(std::istream& in, const std::string& path,
                        size_t max_bytes = std::numeric_limits<size_t>::max()) {
  std::string out;
  char buf[1 << 16];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) {
    const size_t got = static_cast<size_t>(in.gcount());
    if (out.size() + got > max_bytes)
      throw too_large(path, max_bytes);
    out.append(buf, got);
  }
  if (in.bad())
    throw input_error(path + ": cannot read: " + std::strerror(errno));
  return out;
}

} // namespace

InputBytes InputBytes::borrow(const std::string& text) {
  InputBytes b;
  b.data_ = text.data();
  b.size_ = text.size();
  b.readable_ = text.capacity();
  return b;
}

InputBytes InputBytes::borrow(std::string_view text) {
  InputBytes b;
  b.data_ = text.data();
  b.size_ = text.size();
  b.readable_ = text.size();
  return b;
}

InputBytes InputBytes::read(const std::string& path) {
  InputBytes b;
  auto own = [&b](std::string text) {
    b.owned_ = std::move(text);
    b.owns_ = true;
    b.owned_.reserve(b.owned_.size() + kPadding);
    b.data_ = b.owned_.data();
    b.size_ = b.owned_.size();
    b.readable_ = b.owned_.capacity();
  };
  if (path == "-") {
    own(read_stream(std::cin, path));
    return b;
  }
  struct stat st;
  const bool known = ::stat(path.c_str(), &st) == 0;
  if (known && S_ISDIR(st.st_mode))
    throw input_error(path + ": is a directory");
  if (known && S_ISREG(st.st_mode) && static_cast<size_t>(st.st_size) >= kMapMinBytes) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
      throw input_error(path + ": cannot open: " + std::strerror(errno));
    struct stat fst;
    if (::fstat(fd, &fst) == 0 && S_ISREG(fst.st_mode) && fst.st_size == st.st_size) {
      // The file over the start of a zeroed region one page longer, so the
      // padding past its end is readable whatever its size.
      const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
      const size_t size = static_cast<size_t>(fst.st_size);
      const size_t len = (size + page - 1) / page * page + page;
      void* region = ::mmap(nullptr, len, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (region != MAP_FAILED) {
        void* file = ::mmap(region, size, PROT_READ, MAP_PRIVATE | MAP_FIXED, fd, 0);
        if (file != MAP_FAILED) {
          ::close(fd);
          b.map_ = region;
          b.map_len_ = len;
          b.data_ = static_cast<const char*>(region);
          b.size_ = size;
          b.readable_ = len;
          b.slot_ = register_mapping(region, len, path);
          return b;
        }
        ::munmap(region, len);
      }
    }
    ::close(fd); // not mappable: read below
  }
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw input_error(path + ": cannot open: " + std::strerror(errno));
  if (known && S_ISREG(st.st_mode)) {
    // One read of the known size, into a buffer with room past the end.
    std::string bytes;
    bytes.reserve(static_cast<size_t>(st.st_size) + kPadding);
    bytes.resize(static_cast<size_t>(st.st_size));
    in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (in.gcount() == static_cast<std::streamsize>(bytes.size()) &&
        in.peek() == std::char_traits<char>::eof()) {
      own(std::move(bytes));
      return b;
    }
    in.clear();
    in.seekg(0); // changed while read: read it as a stream
  }
  std::string text;
  char buf[1 << 16];
  while (in.read(buf, sizeof buf) || in.gcount() > 0)
    text.append(buf, static_cast<size_t>(in.gcount()));
  if (in.bad())
    throw input_error(path + ": cannot read: " + std::strerror(errno));
  own(std::move(text));
  return b;
}

void InputBytes::done_with(size_t begin, size_t end) const {
  if (!map_ || end > size_)
    return;
  const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  const size_t from = (begin + page - 1) / page * page;
  const size_t to = end / page * page;
  if (from < to)
    ::madvise(static_cast<char*>(map_) + from, to - from, MADV_DONTNEED);
}

void InputBytes::reset() {
  if (map_) {
    unregister_mapping(slot_);
    ::munmap(map_, map_len_);
  }
  map_ = nullptr;
  map_len_ = 0;
  slot_ = -1;
  owned_.clear();
  owns_ = false;
  data_ = nullptr;
  size_ = readable_ = 0;
}

InputBytes::InputBytes(InputBytes&& o) noexcept {
  *this = std::move(o);
}

InputBytes& InputBytes::operator=(InputBytes&& o) noexcept {
  if (this == &o)
    return *this;
  reset();
  const bool owned = o.owns_;
  owns_ = o.owns_;
  owned_ = std::move(o.owned_);
  data_ = owned ? owned_.data() : o.data_;
  size_ = o.size_;
  readable_ = owned ? owned_.capacity() : o.readable_;
  map_ = o.map_;
  map_len_ = o.map_len_;
  slot_ = o.slot_;
  o.map_ = nullptr;
  o.owns_ = false;
  o.slot_ = -1;
  o.data_ = nullptr;
  o.size_ = o.readable_ = 0;
  o.owned_.clear();
  return *this;
}

InputBytes::~InputBytes() {
  reset();
}

std::string read_file_bytes(const std::string& path, size_t max_bytes) {
  struct stat st;
  if (path != "-" && ::stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode))
      throw input_error(path + ": is a directory");
    if (S_ISREG(st.st_mode)) {
      if (static_cast<size_t>(st.st_size) > max_bytes)
        throw too_large(path, max_bytes);
      return std::string(InputBytes::read(path).view());
    }
  }
  // A device, a pipe or standard input: read in pieces, counted.
  if (path == "-")
    return read_stream(std::cin, path, max_bytes);
  std::ifstream file(path, std::ios::binary);
  if (!file)
    throw input_error(path + ": cannot open: " + std::strerror(errno));
  return read_stream(file, path, max_bytes);
}

} // namespace osched
