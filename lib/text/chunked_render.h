#pragma once
// Rendering a long sequence of items (a graph's nodes) to text on two
// threads while keeping the output byte-identical to rendering it on one:
// items are cut into chunks, a second thread renders every other chunk ahead
// into one of two buffers, and the calling thread renders the rest and hands
// every chunk to `emit` in order. Memory stays a few chunks.

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace osched {

// A graph's nodes per chunk (about a megabyte of JSON or protobuf), and the
// node count from which a graph is written on two threads.
constexpr size_t kNodesPerChunk = 4096;
constexpr size_t kParallelWriteMinNodes = 20000;

// Appends the text of items [begin, end) to `out`. Called from two threads at
// once for different ranges, so it may only read shared state.
using RenderRange = std::function<void(size_t begin, size_t end, std::string& out)>;

// Renders items [0, count) chunk by chunk and emits the text in order. Below
// `parallel_min` items (or with one core) everything runs on the calling
// thread. An exception from `emit` or `render` stops both threads and is
// rethrown here.
void render_in_order(size_t count, size_t chunk, size_t parallel_min, const RenderRange& render,
                     const std::function<void(std::string_view)>& emit);

} // namespace osched
