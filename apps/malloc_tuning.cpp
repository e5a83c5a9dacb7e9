#include "malloc_tuning.h"

#include <cstdlib>
#include <cstring>

#include <sys/stat.h>
#include <unistd.h>

namespace osched::cli {
namespace {

bool has_large_input(char** argv) {
  constexpr off_t kLarge = 16 << 20;
  for (char** a = argv + 1; *a; ++a) {
    struct stat st;
    if (::stat(*a, &st) == 0 && (S_ISDIR(st.st_mode) || st.st_size >= kLarge))
      return true;
  }
  return false;
}

} // namespace

void reexec_with_malloc_tuning(char** argv) {
#if defined(__GLIBC__) && !defined(__SANITIZE_ADDRESS__)
  const char* off = std::getenv("OSCHED_MALLOC_TUNING");
  if ((off && std::strcmp(off, "0") == 0) || std::getenv("GLIBC_TUNABLES") ||
      !has_large_input(argv))
    return;
  // Keep freed memory (64 MiB growth steps, no trimming); mmap only for
  // blocks of 32 MiB and more; no fastbins (with a large top chunk, frees
  // next to it consolidated every fastbin again and again); per-thread
  // caches of freed blocks without the default limit of 7 per size; two
  // arenas, so the two threads that read a big graph's halves do not
  // allocate under one lock. No huge pages: where transparent huge pages
  // are on madvise with synchronous defrag, each huge-page fault compacts
  // memory first, which made a 1M-node run twice as slow.
  if (::setenv("GLIBC_TUNABLES",
               "glibc.malloc.top_pad=67108864:"
               "glibc.malloc.trim_threshold=4294967296:glibc.malloc.mmap_threshold=33554432:"
               "glibc.malloc.mxfast=0:glibc.malloc.tcache_count=65535:glibc.malloc.arena_max=2",
               1) != 0)
    return;
  ::execv("/proc/self/exe", argv);
  ::unsetenv("GLIBC_TUNABLES"); // no /proc: run untuned
#else
  (void)argv;
#endif
}

} // namespace osched::cli
