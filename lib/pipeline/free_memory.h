#pragma once
// Hands the allocator's free pages back to the system.

namespace osched {

// A no-op where the C library offers no way to do it. Worth a call after a
// large structure built partly on a helper thread is freed: glibc keeps
// that thread's blocks in the helper's own arena, where the main thread
// never reuses them, so they would only add to the peak.
void return_free_memory_to_system();

} // namespace osched
