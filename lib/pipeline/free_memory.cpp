#include "pipeline/free_memory.h"

#include <cstdlib> // defines __GLIBC__ where it applies

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define OSCHED_HAS_ASAN 1
#endif
#endif
#ifndef OSCHED_HAS_ASAN
#define OSCHED_HAS_ASAN 0
#endif

namespace osched {

void return_free_memory_to_system() {
  // Under AddressSanitizer glibc's heap is not the one in use: trimming it
  // does nothing and its first use can race another thread's.
#if defined(__GLIBC__) && !defined(__SANITIZE_ADDRESS__) && !OSCHED_HAS_ASAN
  malloc_trim(0);
#endif
}

} // namespace osched
