#include "format/sized_nodes.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <system_error>
#include <thread>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 // Linux 5.14; older kernels refuse it (harmless)
#endif

namespace osched {

namespace {
// Below this the fault-in is not worth a thread.
constexpr size_t kParallelMinBytes = size_t{16} << 20;
} // namespace

void size_nodes(std::vector<Node>& nodes, size_t n, bool parallel) {
  nodes.reserve(n);
  const size_t bytes = n * sizeof(Node);
  struct Joined { // joined on every way out, also when a constructor throws
    std::thread t;
    ~Joined() {
      if (t.joinable())
        t.join();
    }
  } helper;
  if (parallel && bytes >= kParallelMinBytes) {
    const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
    const uintptr_t begin = reinterpret_cast<uintptr_t>(nodes.data());
    const uintptr_t lo = (begin + bytes / 2 + page - 1) & ~(page - 1);
    const uintptr_t hi = (begin + bytes) & ~(page - 1);
    // Only asks the kernel for pages of memory the vector owns; the bytes
    // stay as they are (zero, or the constructors' writes).
    if (lo < hi) {
      try {
        helper.t = std::thread(
            [lo, hi] { madvise(reinterpret_cast<void*>(lo), hi - lo, MADV_POPULATE_WRITE); });
      } catch (const std::system_error&) {
        // No thread to spare: the constructors fault the pages in alone.
      }
    }
  }
  nodes.resize(n);
}

} // namespace osched
