#pragma once
// Helpers shared by the tests: paths into testdata, running the CLI binary,
// temporary directories.

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "format/json_io.h"

namespace osched::test {

inline std::string source_path(const std::string& rel) {
  return std::string(OSCHED_SOURCE_DIR) + "/" + rel;
}

inline std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Every valid graph of testdata/ and testdata/scenarios/ (estimates files
// excluded), sorted.
inline std::vector<std::string> valid_graphs() {
  std::vector<std::string> out;
  for (const char* dir : {"testdata", "testdata/scenarios"})
    for (const auto& e : std::filesystem::directory_iterator(source_path(dir)))
      if (e.path().extension() == ".json" &&
          e.path().filename().string().rfind("estimates", 0) != 0)
        out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

// A small graph written inline: `nodes` is the JSON of the nodes between two
// float32 placeholders x [4, 8] and s [u0, 8] (an unbacked dim) and the
// output node (returning `output`, a JSON list). Groups "tp" (ranks 0..3)
// and "dp" (ranks 0, 4) of an 8-rank world.
inline Graph inline_graph(const std::string& nodes, const std::string& output = "[]") {
  return graph_from_json_text(R"({"format": "overlap-sched.graph", "version": 1, "world_size": 8,
    "process_groups": {"tp": {"ranks": [0, 1, 2, 3]}, "dp": {"ranks": [0, 4]}},
    "nodes": [
      {"name": "x", "op": "placeholder", "target": "x",
       "val": {"dtype": "float32", "shape": [4, 8], "stride": [8, 1], "device": "cuda:0"}},
      {"name": "s", "op": "placeholder", "target": "s",
       "val": {"dtype": "float32", "shape": [{"sym": "u0"}, 8], "stride": [8, 1], "device": "cuda:0"}},
      )" + nodes + R"(,
      {"name": "output", "op": "output", "target": "output", "args": [)" +
                              output + R"(]}]})");
}

// A fresh directory under the system temp dir, removed on destruction.
struct TempDir {
  std::filesystem::path path;
  TempDir() {
    std::random_device rd;
    path = std::filesystem::temp_directory_path() /
           ("osched-test-" + std::to_string(rd()) + std::to_string(rd()));
    std::filesystem::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  std::string file(const std::string& name) const { return (path / name).string(); }
  // Files in the directory (used to assert that nothing partial was left).
  size_t entries() const {
    size_t n = 0;
    for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(path))
      ++n;
    return n;
  }
};

struct CliResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// Runs the overlap-sched binary with the given argument string (shell-quoted by the caller).
inline CliResult run_cli(const std::string& args) {
  TempDir tmp;
  std::string cmd = std::string("\"") + OSCHED_BINARY + "\" " + args + " >" + tmp.file("out") +
                    " 2>" + tmp.file("err");
  int status = std::system(cmd.c_str());
  CliResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = read_text(tmp.file("out"));
  r.err = read_text(tmp.file("err"));
  return r;
}

} // namespace osched::test
