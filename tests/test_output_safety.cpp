// Output safety: no lost output reported as success, no input destroyed by
// a failing run, no special file replaced, hostile numbers and names turned
// into one-line exit-2 errors. Each case is run through a shell, as a
// pipeline would run the tool.

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "files/input_bytes.h"
#include "test_support.h"
#include "text/json_limits.h"

using namespace osched::test;
namespace fs = std::filesystem;

namespace {

struct Shell {
  int exit_code = -1;
  std::string err;
};

// Runs `script` under bash with BIN set to the tool; stderr is captured.
Shell run_shell(const std::string& script, const TempDir& dir) {
  const std::string file = dir.file("script.sh"), err = dir.file("stderr.txt");
  {
    std::ofstream s(file);
    s << "set -o pipefail\nBIN='" << OSCHED_BINARY << "'\ncd '" << dir.path.string() << "'\n"
      << script << "\n";
  }
  int status = std::system(("bash '" + file + "' 2>'" + err + "'").c_str());
  Shell r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.err = read_text(err);
  fs::remove(file);
  fs::remove(err);
  return r;
}

size_t lines(const std::string& s) {
  return static_cast<size_t>(std::count(s.begin(), s.end(), '\n'));
}

std::vector<std::string> leftovers(const TempDir& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir.path))
    if (e.path().filename().string().find("osched-tmp") != std::string::npos)
      out.push_back(e.path().string());
  return out;
}

const std::string kTiny = source_path("testdata/fsdp_tiny.json");

} // namespace

TEST_CASE("lost standard output is exit 4, never success") {
  struct Case {
    const char* script;
    const char* error;
  };
  const Case cases[] = {
      {"\"$BIN\" convert '" OSCHED_SOURCE_DIR "/testdata/fsdp_tiny.json' - >/dev/full",
       "error: <stdout>: write failed"},
      {"\"$BIN\" stats '" OSCHED_SOURCE_DIR "/testdata/fsdp_tiny.json' >/dev/full",
       "error: <stdout>: write failed: No space left on device"},
      {"\"$BIN\" schedule '" OSCHED_SOURCE_DIR "/testdata/fsdp_tiny.json' -o - -q >&-",
       "error: <stdout>: write failed"},
      {"\"$BIN\" validate '" OSCHED_SOURCE_DIR "/testdata/fsdp_tiny.json' >&-",
       "error: <stdout>: write failed: standard output is closed"},
      // The pipe's reader is closed before the tool starts (deterministically:
      // its read end is never open), so writing is EPIPE; subprocess restores
      // SIGPIPE's default, so death by SIGPIPE would show.
      {"python3 -c 'import os, subprocess, sys; r, w = os.pipe(); os.close(r); "
       "sys.exit(subprocess.call(sys.argv[1:], stdout=w))' \"$BIN\" convert '" OSCHED_SOURCE_DIR
       "/testdata/fsdp_tiny.json' -",
       "error: <stdout>: write failed"},
  };
  for (const Case& c : cases) {
    INFO(c.script);
    TempDir dir;
    Shell r = run_shell(c.script, dir);
    CHECK(r.exit_code == 4);
    CHECK(r.err.rfind(c.error, 0) == 0);
    CHECK(lines(r.err) == 1);
  }
  // A closed stdout that nothing is written to is no error.
  TempDir dir;
  Shell ok = run_shell("\"$BIN\" schedule '" + kTiny + "' -o out.json -q >&-", dir);
  CHECK(ok.exit_code == 0);
  CHECK(fs::exists(dir.file("out.json")));
}

TEST_CASE("a failing run leaves the input and every output as they were") {
  const std::string original = read_text(kTiny);
  const char* runs[] = {
      "schedule g.json -o g.json --report /missing-dir/r.json -q", // exit 4 after the graph is
                                                                   // complete
      "schedule g.json -o g.json --report g.json -q",
      "schedule g.json -o out.json --report out.json -q",
      "schedule g.json -o - --report - -q",
      "schedule g.json -o g.json --max-in-flight-gb nan -q",
      "schedule g.json -o g.json --runtime-estimates missing.json -q",
      "schedule g.json -o g.json --gpu Z9000 -q",
      "schedule g.json -o g.json --benchmark-cache g.json --benchmark-compute -q",
      "convert g.json g.json --to yaml",
      "convert g.json dir",
      "schedule g.json -o dir --report r.json -q",
  };
  for (const char* run : runs) {
    INFO(run);
    TempDir dir;
    fs::copy_file(kTiny, dir.file("g.json"));
    fs::create_directory(dir.file("dir"));
    Shell r = run_shell(std::string("\"$BIN\" ") + run, dir);
    CHECK((r.exit_code == 2 || r.exit_code == 4));
    CHECK(lines(r.err) == 1);
    CHECK(read_text(dir.file("g.json")) == original);
    CHECK_FALSE(fs::exists(dir.file("out.json")));
    CHECK_FALSE(fs::exists(dir.file("r.json")));
    CHECK(leftovers(dir).empty());
  }
}

TEST_CASE("clashing output paths are refused up front") {
  TempDir dir;
  fs::copy_file(kTiny, dir.file("g.json"));
  fs::create_symlink("g.json", dir.file("alias.json"));
  struct Case {
    const char* args;
    const char* error;
  };
  const Case cases[] = {
      {"-o out.json --report out.json", "--report: 'out.json' is also the graph output (-o)"},
      {"-o out.json --report ./out.json", "--report: './out.json' is also the graph output (-o)"},
      {"-o out.json --report g.json", "--report: 'g.json' is the input graph"},
      {"-o out.json --report alias.json", "--report: 'alias.json' is the input graph"},
      {"-o - --report -", "--report: '-' is also the graph output (-o)"},
  };
  for (const Case& c : cases) {
    INFO(c.args);
    Shell r = run_shell(std::string("\"$BIN\" schedule g.json -q ") + c.args, dir);
    CHECK(r.exit_code == 2);
    CHECK(r.err == std::string("error: ") + c.error + "\n");
  }
  // -o naming the input is an in-place rewrite, which is allowed.
  Shell r = run_shell("\"$BIN\" schedule g.json -o g.json -q && \"$BIN\" validate g.json", dir);
  CHECK(r.exit_code == 0);
}

TEST_CASE("special files are written through, links followed, long names kept") {
  TempDir dir;
  // A FIFO stays a FIFO and its reader gets the whole graph.
  Shell r = run_shell("mkfifo fifo && (cat fifo > fifo.out &) && \"$BIN\" convert '" + kTiny +
                          "' fifo && sleep 0.2 && \"$BIN\" convert '" + kTiny + "' direct.json",
                      dir);
  CHECK(r.exit_code == 0);
  struct stat st;
  REQUIRE(::lstat(dir.file("fifo").c_str(), &st) == 0);
  CHECK(S_ISFIFO(st.st_mode));
  CHECK(read_text(dir.file("fifo.out")) == read_text(dir.file("direct.json")));

  // A device node (root can make one) is never replaced by a regular file.
  if (run_shell("mknod nul c 1 3", dir).exit_code == 0) {
    CHECK(run_shell("\"$BIN\" convert '" + kTiny + "' nul", dir).exit_code == 0);
    REQUIRE(::lstat(dir.file("nul").c_str(), &st) == 0);
    CHECK(S_ISCHR(st.st_mode));
  }
  // The system's /dev/null likewise.
  CHECK(run_shell("\"$BIN\" schedule '" + kTiny + "' -o /dev/null --report /dev/null -q", dir)
            .exit_code == 2);
  CHECK(run_shell("\"$BIN\" schedule '" + kTiny + "' -o /dev/null -q", dir).exit_code == 0);
  REQUIRE(::stat("/dev/null", &st) == 0);
  CHECK(S_ISCHR(st.st_mode));

  // A symlink is kept; its target gets the output.
  r = run_shell("echo old > target.json && ln -s target.json link.json && \"$BIN\" convert '" +
                    kTiny + "' link.json",
                dir);
  CHECK(r.exit_code == 0);
  REQUIRE(::lstat(dir.file("link.json").c_str(), &st) == 0);
  CHECK(S_ISLNK(st.st_mode));
  CHECK(read_text(dir.file("target.json")) == read_text(dir.file("direct.json")));

  // A name of 255 characters (the file-system limit) is fine: the
  // temporary's own name is shortened.
  const std::string longname = std::string(250, 'n') + ".json";
  r = run_shell("\"$BIN\" convert '" + kTiny + "' " + longname, dir);
  CHECK(r.exit_code == 0);
  CHECK(fs::exists(dir.file(longname)));
  CHECK(leftovers(dir).empty());
}

TEST_CASE("hostile numbers are one-line exit-2 errors") {
  TempDir dir;
  {
    std::ofstream(dir.file("big_int.json")) << R"({"max_coll_distance": 4294967296})";
    std::ofstream(dir.file("huge_estimate.json"))
        << R"({"version": 1, "ops": {"aten.mm.default": 1e308}})";
    std::ofstream(dir.file("inf_estimate.json"))
        << R"({"version": 1, "ops": {"aten.mm.default": 1e999}})";
    std::ofstream(dir.file("neg_hw.json")) << R"({"hardware": {"hbm_gbps": -5}})";
  }
  struct Case {
    const char* args;
    const char* error;
  };
  const Case cases[] = {
      {"--max-in-flight-gb nan", "--max-in-flight-gb: must be > 0 and <= 1e+09, got nan"},
      {"--max-in-flight-gb inf", "--max-in-flight-gb: must be > 0"},
      {"--max-memory-increase-gb -1", "--max-memory-increase-gb: must be >= 0"},
      {"--max-memory-increase-ratio nan", "--max-memory-increase-ratio: must be >= 0"},
      {"--compute-overlap-multiplier nan", "--compute-overlap-multiplier: must be >= 0"},
      {"--bucket-max-gb 1e300", "--bucket-max-gb: must be > 0 and <= 1e+09, got 1e+300"},
      {"--gpus-per-node -3", "--gpus-per-node: must be from 1 to 1024, got -3"},
      {"--gpu Z9000", "--gpu: unknown GPU 'Z9000'"},
      {"--config big_int.json",
       "big_int.json: max_coll_distance: must be an integer that fits in 32 bits"},
      {"--runtime-estimates huge_estimate.json",
       "huge_estimate.json: ops.aten.mm.default: must be a number of ms from 0 to 1e9"},
      {"--runtime-estimates inf_estimate.json", "inf_estimate.json: malformed JSON"},
      {"--config neg_hw.json", "hardware.hbm_gbps: must be a positive number"},
  };
  for (const Case& c : cases) {
    INFO(c.args);
    Shell r = run_shell("\"$BIN\" schedule '" + kTiny + "' -o out.json -q " + c.args, dir);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find(c.error) != std::string::npos);
    CHECK(r.err.rfind("error: ", 0) == 0);
    CHECK(lines(r.err) == 1);
    CHECK_FALSE(fs::exists(dir.file("out.json")));
  }
}

TEST_CASE("hostile graphs are one-line exit-2 errors naming file, node and field") {
  TempDir dir;
  const std::string tiny = read_text(kTiny);
  auto variant = [&](const std::string& name, const std::string& from, const std::string& to) {
    std::string text = tiny;
    auto at = text.find(from);
    REQUIRE(at != std::string::npos);
    text.replace(at, from.size(), to);
    std::ofstream(dir.file(name)) << text;
  };
  // x is the first placeholder: [32, 128] float32.
  const std::string x_shape =
      "\"shape\": [\n     32,\n     128\n    ],\n    \"stride\": [\n     128,\n     1\n    ]";
  // Strides left out: computing the contiguous ones overflows.
  variant("overflow.json", x_shape, "\"shape\": [9223372036854775807, 128]");
  variant("over_limit.json", x_shape, "\"shape\": [1125899906842624, 128], \"stride\": [128, 1]");
  variant("inf.json", "\"world_size\": 4", "\"world_size\": 1e999");
  variant("dup_nodes.json", "\"world_size\": 4", "\"world_size\": 4, \"nodes\": []");
  variant("world.json", "\"world_size\": 4", "\"world_size\": 1000000000000");
  variant("newline_name.json", "\"node\": \"x\"", "\"node\": \"x\\nerror: forged\\r\\u001b[31m\"");
  variant("quote_dtype.json", "\"dtype\": \"float32\"", "\"dtype\": \"f'32\\n\"");
  // 100k levels of nesting in args: once a stack overflow.
  variant("deep.json", "\"args\": []",
          "\"args\": [" + std::string(100000, '[') + std::string(100000, ']') + "]");
  fs::create_directory(dir.file("a_directory.json"));
  {
    // A node field of length 2^31 + 5: read as negative, it would mean "no limit".
    std::ofstream f(dir.file("big_len.pb"), std::ios::binary);
    f << std::string("\x42\x85\x80\x80\x80\x08\x0a\x01\x61", 9);
  }
  {
    // A node name that is not UTF-8: protobuf's own log line must not appear.
    REQUIRE(run_shell("\"$BIN\" convert '" + kTiny + "' t.pb", dir).exit_code == 0);
    std::string pb = read_text(dir.file("t.pb"));
    auto at = pb.find("fwd_relu0");
    REQUIRE(at != std::string::npos);
    pb.replace(at, 2, "\xff\xfe");
    std::ofstream(dir.file("bad_utf8.pb"), std::ios::binary) << pb;
    fs::remove(dir.file("t.pb"));
  }
  struct Case {
    const char* file;
    const char* error;
  };
  const Case cases[] = {
      {"bad_utf8.pb", "malformed protobuf"},
      {"overflow.json", "node 'x': val.shape: element count overflows int64"},
      {"over_limit.json",
       "node 'x': val.shape: tensor size overflows int64 or exceeds the 4 PiB limit"},
      {"inf.json", "malformed JSON: number overflow parsing '1e999'"},
      {"dup_nodes.json", "malformed JSON: duplicate key 'nodes' in one object"},
      {"world.json", "world_size: 1000000000000 is above the limit of 1048576 ranks"},
      {"newline_name.json", "x\\nerror: forged\\r\\x1B[31m"},
      {"quote_dtype.json", "val.dtype: unknown dtype 'f\\'32\\n'"},
      {"a_directory.json", "a_directory.json: is a directory"},
      {"deep.json", "malformed JSON: nested deeper than 64 levels"},
      {"big_len.pb", "malformed protobuf"},
  };
  for (const Case& c : cases) {
    INFO(c.file);
    for (const char* cmd : {"validate", "convert", "schedule"}) {
      INFO(cmd);
      std::string args = std::string("\"$BIN\" ") + cmd + " " + c.file;
      if (std::string(cmd) == "convert")
        args += " out.json";
      if (std::string(cmd) == "schedule")
        args += " -o out.json -q";
      Shell r = run_shell(args, dir);
      CHECK(r.exit_code == 2);
      CHECK(r.err.rfind(std::string("error: ") + c.file + ": ", 0) == 0);
      CHECK(r.err.find(c.error) != std::string::npos);
      CHECK(lines(r.err) == 1);
      CHECK_FALSE(fs::exists(dir.file("out.json")));
    }
  }
}

TEST_CASE("standard input is refused under mpirun, where only one rank gets it") {
  TempDir dir;
  Shell r =
      run_shell("OMPI_COMM_WORLD_SIZE=2 \"$BIN\" schedule - -o out.json -q < '" + kTiny + "'", dir);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("not supported under mpirun") != std::string::npos);
  CHECK(run_shell("\"$BIN\" schedule - -o out.json -q < '" + kTiny + "'", dir).exit_code == 0);
}

TEST_CASE("two runs writing the same output leave one complete file, never a mix") {
  TempDir tmp;
  const std::string a = source_path("testdata/example_llama_fsdp.json");
  const std::string b = source_path("testdata/tp_two_groups.json");
  // What each run alone writes.
  REQUIRE(run_cli("schedule " + a + " -o " + tmp.file("a.json") + " -q").exit_code == 0);
  REQUIRE(run_cli("schedule " + b + " -o " + tmp.file("b.json") + " -q").exit_code == 0);
  const std::string want_a = read_text(tmp.file("a.json")), want_b = read_text(tmp.file("b.json"));
  for (int round = 0; round < 3; ++round) {
    Shell s = run_shell("\"$BIN\" schedule '" + a + "' -o same.json -q & \"$BIN\" schedule '" + b +
                            "' -o same.json -q & wait %1 && wait %2",
                        tmp);
    CHECK(s.exit_code == 0);
    const std::string got = read_text(tmp.file("same.json"));
    CHECK((got == want_a || got == want_b));
  }
  // No temporaries are left beside it.
  for (const auto& e : fs::directory_iterator(tmp.path))
    CHECK(e.path().filename().string().find("osched-tmp") == std::string::npos);
}

TEST_CASE("Temporaries of dead writers are removed; a live writer's are kept") {
  TempDir tmp;
  // A pid no process has: a child that has already been reaped.
  pid_t dead = fork();
  if (dead == 0)
    _exit(0);
  REQUIRE(dead > 0);
  int status = 0;
  waitpid(dead, &status, 0);
  const std::string stale = tmp.file(".g.json.osched-tmp." + std::to_string(dead) + ".abc123");
  const std::string live = tmp.file(".g.json.osched-tmp." + std::to_string(getpid()) + ".def456");
  const std::string other = tmp.file(".h.json.osched-tmp." + std::to_string(dead) + ".ghi789");
  for (const auto& f : {stale, live, other})
    std::ofstream(f) << "partial";
  CliResult r =
      run_cli("convert " + source_path("testdata/fsdp_tiny.json") + " " + tmp.file("g.json"));
  REQUIRE(r.exit_code == 0);
  CHECK_FALSE(fs::exists(stale)); // its writer is gone
  CHECK(fs::exists(live));        // may still be writing
  CHECK(fs::exists(other));       // another target's: not this run's business
  CHECK(fs::exists(tmp.file("g.json")));
}

TEST_CASE("big inputs are mapped with zeroed room past the end; small ones read") {
  TempDir dir;
  const std::string big = dir.file("big.json"), small = dir.file("small.json");
  std::string text(osched::InputBytes::kMapMinBytes + 4097, 'x');
  text[0] = '{';
  {
    std::ofstream(big, std::ios::binary) << text;
    std::ofstream(small, std::ios::binary) << "{}";
  }
  osched::InputBytes mapped = osched::InputBytes::read(big);
  CHECK(mapped.mapped());
  CHECK(mapped.view() == text);
  REQUIRE(mapped.readable() >= mapped.size() + osched::InputBytes::kPadding);
  for (size_t i = mapped.size(); i < mapped.size() + osched::InputBytes::kPadding; ++i)
    REQUIRE(mapped.data()[i] == '\0');
  // Letting go of pages only drops them from memory: they read the same.
  mapped.done_with(0, mapped.size());
  CHECK(mapped.view() == text);
  osched::InputBytes moved = std::move(mapped);
  CHECK(moved.view() == text);

  osched::InputBytes read = osched::InputBytes::read(small);
  CHECK_FALSE(read.mapped());
  CHECK(read.view() == "{}");
  CHECK(read.readable() >= read.size() + osched::InputBytes::kPadding);
  osched::InputBytes moved_read = std::move(read);
  CHECK(moved_read.view() == "{}");
}

TEST_CASE("a mapped input shortened while read is a one-line exit-2 error, not a crash") {
  TempDir dir;
  const std::string big = dir.file("shrinking.json");
  std::ofstream(big, std::ios::binary) << std::string(osched::InputBytes::kMapMinBytes * 2, ' ');
  const std::string err = dir.file("err.txt");
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    // The child maps the file, loses its tail, then reads there.
    const int fd = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(fd, 2);
    osched::InputBytes bytes = osched::InputBytes::read(big);
    if (::truncate(big.c_str(), 0) != 0)
      ::_exit(90);
    volatile char c = bytes.data()[bytes.size() - 1];
    (void)c;
    ::_exit(91); // not reached: the read faults
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 2);
  CHECK(read_text(err) == "error: " + big + ": changed while it was read\n");
}

TEST_CASE("JSON limits: a repeated key is found in small and large objects, at any size") {
  // Objects past the scan size switch to a set: the key repeated on either
  // side of the switch, and no false alarm on many distinct keys.
  auto object = [](int keys, int repeat_at, int repeat_of) {
    std::string s = "{";
    for (int i = 0; i < keys; ++i)
      s += (i ? ",\"k" : "\"k") + std::to_string(i == repeat_at ? repeat_of : i) +
           "\":" + std::to_string(i);
    return s + "}";
  };
  for (int keys : {3, 32, 33, 34, 200}) {
    INFO(keys);
    CHECK_NOTHROW(osched::parse_json_limited(object(keys, -1, 0)));
    CHECK_THROWS_WITH(osched::parse_json_limited(object(keys, keys - 1, 0)),
                      Catch::Contains("duplicate key 'k0' in one object"));
    CHECK_THROWS_WITH(osched::parse_json_limited(object(keys, keys - 1, keys - 2)),
                      Catch::Contains("duplicate key"));
  }
  // Nested objects keep their own keys; a sibling may reuse a name.
  CHECK_NOTHROW(
      osched::parse_json_limited("[" + object(100, -1, 0) + "," + object(100, -1, 0) + "]"));
  CHECK_NOTHROW(osched::parse_json_limited("{\"a\":" + object(40, -1, 0) +
                                           ",\"k1\":" + object(2, -1, 0) + "}"));
  CHECK_THROWS_WITH(osched::parse_json_limited("{\"a\":1,\"b\":" + object(40, -1, 0) + ",\"a\":2}"),
                    Catch::Contains("duplicate key 'a'"));
  CHECK_THROWS_WITH(osched::parse_json_limited("{\"a\":[1,}"), Catch::Contains("syntax error"));
}
