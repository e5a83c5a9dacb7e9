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
  // Huge pages for the heap; keep freed memory (64 MiB growth steps, no
  // trimming); mmap only for blocks of 32 MiB and more; no fastbins (with a
  // large top chunk, frees next to it consolidated every fastbin again and
  // again: a quarter of reading a 1M-node graph); per-thread caches of
  // freed blocks without the default limit of 7 per size (splitting and
  // unlinking binned chunks was a tenth of a 1M-node run; 0.5-0.7 s less);
  // two arenas: with one, the two threads that read a big graph's halves
  // allocate under one lock and spend their time in futex calls (1M-node
  // graphs 8.2-9.0 -> 4.4-5.6 s on all three bench families; reading alone
  // was slower on two cores than on one). More would only add memory that
  // one thread frees and another cannot reuse.
  if (::setenv("GLIBC_TUNABLES",
               "glibc.malloc.hugetlb=1:glibc.malloc.top_pad=67108864:"
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
