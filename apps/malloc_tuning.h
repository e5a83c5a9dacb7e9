#pragma once
// Allocator settings for large graphs. A million-node graph is millions of
// small allocations; on virtual machines each first touch of a 4 KiB page is
// a costly fault, and glibc returns freed memory only to fault it back in.
// glibc reads its tunables at start-up only, so the process re-executes
// itself once with them set (no trimming, two arenas). Skipped
// when GLIBC_TUNABLES is already set, OSCHED_MALLOC_TUNING=0, or no argument
// names a directory or a file of 16 MiB or more: for small graphs the second
// start-up would cost more than the tuning saves.

namespace osched::cli {

// Returns only when no re-execution happened (or it failed).
void reexec_with_malloc_tuning(char** argv);

} // namespace osched::cli
