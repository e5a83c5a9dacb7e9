#include "pipeline/free_memory.h"

#include <cstdlib> // defines __GLIBC__ where it applies

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace osched {

void return_free_memory_to_system() {
#if defined(__GLIBC__)
  malloc_trim(0);
#endif
}

} // namespace osched
