#include "text/chunked_render.h"

#include "errors/on_unwind.h"

#include <algorithm>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>

namespace osched {

void render_in_order(size_t count, size_t chunk, size_t parallel_min, const RenderRange& render,
                     const std::function<void(std::string_view)>& emit) {
  chunk = std::max<size_t>(chunk, 1);
  const size_t chunks = (count + chunk - 1) / chunk;
  std::string text;
  auto render_chunk = [&](size_t c, std::string& out) {
    render(c * chunk, std::min(count, (c + 1) * chunk), out);
  };
  if (count < parallel_min || chunks < 2 || std::thread::hardware_concurrency() < 2) {
    for (size_t c = 0; c < chunks; ++c) {
      render_chunk(c, text);
      emit(text);
      text.clear();
    }
    return;
  }
  // The helper renders the odd chunks: chunk 2k + 1 into slot k % 2.
  struct Slot {
    std::string text;
    bool ready = false;
  };
  Slot slots[2];
  std::mutex mu;
  std::condition_variable changed;
  bool stop = false;
  std::exception_ptr helper_error;
  std::thread helper([&] {
    try {
      for (size_t c = 1; c < chunks; c += 2) {
        Slot& slot = slots[(c / 2) % 2];
        {
          std::unique_lock<std::mutex> lock(mu);
          changed.wait(lock, [&] { return stop || !slot.ready; });
          if (stop)
            return;
        }
        render_chunk(c, slot.text);
        std::lock_guard<std::mutex> lock(mu);
        slot.ready = true;
        changed.notify_all();
      }
    } catch (...) {
      std::lock_guard<std::mutex> lock(mu);
      helper_error = std::current_exception();
      stop = true;
      changed.notify_all();
    }
  });
  auto finish = [&] {
    {
      std::lock_guard<std::mutex> lock(mu);
      stop = true;
      changed.notify_all();
    }
    helper.join();
  };
  {
    const OnUnwind stop_helper([&] { finish(); }); // the helper must not outlive the text
    for (size_t c = 0; c < chunks; ++c) {
      if (c % 2 == 0) {
        render_chunk(c, text);
        emit(text);
        text.clear();
        continue;
      }
      Slot& slot = slots[(c / 2) % 2];
      {
        std::unique_lock<std::mutex> lock(mu);
        changed.wait(lock, [&] { return slot.ready || helper_error; });
        if (helper_error)
          break;
      }
      emit(slot.text); // the helper does not touch a ready slot
      slot.text.clear();
      std::lock_guard<std::mutex> lock(mu);
      slot.ready = false;
      changed.notify_all();
    }
  }
  finish();
  if (helper_error)
    std::rethrow_exception(helper_error);
}

} // namespace osched
