// The measured collective table: reading autoparallel's format and looking
// a collective up, with every expectation computed by hand from the rows.

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "cost/collective_table.h"
#include "errors/error.h"
#include "test_support.h"

using namespace osched;
using namespace osched::test;

namespace {

const char* kTable =
    "  Group    Group Size  Collective                    1MB (ms)    2MB (ms)    4MB (ms)\n"
    "-------  ------------  --------------------------  ----------  ----------  ----------\n"
    "      1             8  all_reduce                      0.028       0.041       0.0628\n"
    "      0             8  all_gather_into_tensor          0.2397      0.4059      0.7181\n"
    "      0             8  all_gather_into_tensor_out      9.0         9.0         9.0\n"
    "      0            64  reduce_scatter_tensor           1.0         3.0         7.0\n";

CollectiveInfo coll(CollectiveKind kind, const std::string& group, int size, double mib) {
  CollectiveInfo c;
  c.kind = kind;
  c.group = group;
  c.group_size = size;
  c.input_bytes = static_cast<int64_t>(mib * 1024 * 1024);
  return c;
}

} // namespace

TEST_CASE("collective table: rows, columns and upstream's lookup rule, by hand") {
  const CollectiveTable t = parse_collective_table(kTable, "t.table");
  REQUIRE(t.rows.size() == 4);
  CHECK(t.rows[1].points ==
        std::vector<std::pair<double, double>>{{1, 0.2397}, {2, 0.4059}, {4, 0.7181}});
  const auto ag = [&](double mib) {
    return t.time_ms(coll(CollectiveKind::AllGather, "0", 8, mib));
  };
  CHECK(*ag(2) == 0.4059);                                 // a column exactly
  CHECK(*ag(3) == Approx(0.4059 + (0.7181 - 0.4059) / 2)); // halfway between 2 and 4 MiB
  CHECK(*ag(0.25) == 0.2397);                              // below 1 MiB: the 1 MiB time
  CHECK(*ag(8) == Approx(0.7181 + (0.7181 - 0.4059) * 2)); // beyond: the last two's line
  // The _out row is not the all-gather's: kinds are looked up by base name.
  CHECK(*ag(1) == 0.2397);
  // Group size and group must both match.
  CHECK(t.time_ms(coll(CollectiveKind::ReduceScatter, "0", 64, 1.5)) == Approx(2.0));
  CHECK_FALSE(t.time_ms(coll(CollectiveKind::ReduceScatter, "0", 8, 1)));
  CHECK_FALSE(t.time_ms(coll(CollectiveKind::AllReduce, "0", 8, 1)));
  CHECK_FALSE(t.time_ms(coll(CollectiveKind::AllToAll, "1", 8, 1)));
  // Unknown input size: no lookup (the model costs it).
  CollectiveInfo unknown = coll(CollectiveKind::AllReduce, "1", 8, 1);
  unknown.input_bytes.reset();
  CHECK_FALSE(t.time_ms(unknown));
}

TEST_CASE("collective table: a group mapping sends the graph's groups to the table's") {
  CollectiveTable t = parse_collective_table(kTable, "t.table");
  t.group_mapping = {{"513", "1"}};
  CHECK(*t.time_ms(coll(CollectiveKind::AllReduce, "513", 8, 4)) == 0.0628);
  CHECK_FALSE(t.time_ms(coll(CollectiveKind::AllReduce, "521", 8, 4)));
}

TEST_CASE("collective table: the corpus tables read, and bad tables are one error with the line") {
  const std::string dir = source_path("../shared/corpus/autoparallel");
  if (std::filesystem::exists(dir + "/colls8_8.table")) {
    const CollectiveTable t = load_collective_table(dir + "/colls8_8.table");
    REQUIRE(t.rows.size() == 5);
    CHECK(t.rows[0].points.size() == 12);
    CHECK(t.rows[0].points.back() == std::pair<double, double>{2048, 10.4952});
  }
  auto error = [](const std::string& text) {
    try {
      parse_collective_table(text, "bad.table");
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(error("") == "bad.table:0: empty collective table");
  CHECK(error("hello\n").rfind("bad.table:1: not a collective table", 0) == 0);
  CHECK(error("Group  Group Size  Collective  1MB (ms)  2MB (ms)\n---\n0 8 all_reduce 1\n") ==
        "bad.table:3: expected group, group size, collective and 2 times, found 4 fields");
  CHECK(error("Group  Group Size  Collective  1MB (ms)\n---\n0 x all_reduce 1\n") ==
        "bad.table:3: group size 'x' is not an integer from 1");
  CHECK(error("Group  Group Size  Collective  1MB (ms)\n---\n0 8 all_reduce -1\n") ==
        "bad.table:3: time '-1' is not a number of ms from 0");
  CHECK(error("Group  Group Size  Collective  2MB (ms)  1MB (ms)\n") ==
        "bad.table:1: size columns must increase");
  CHECK(
      error("Group  Group Size  Collective  1MB (ms)\n---\n0 8 all_reduce 1\n0 8 all_reduce 2\n") ==
      "bad.table:4: a second row for group 0, size 8, all_reduce");
}

TEST_CASE("collective table: schedule costs collectives from it and names the misses") {
  TempDir dir;
  // fsdp_tiny's all-gathers run in group "0" of 4 ranks.
  std::ofstream(dir.file("t.table")) << kTable << "0  4  all_gather_into_tensor  0.5  0.6  0.7\n";
  CliResult r = run_cli("schedule '" + source_path("testdata/fsdp_tiny.json") +
                        "' --collective-table '" + dir.file("t.table") + "' -o '" +
                        dir.file("o.json") + "' --report '" + dir.file("r.json") + "'");
  REQUIRE(r.exit_code == 0);
  const nlohmann::json rep = nlohmann::json::parse(read_text(dir.file("r.json")));
  int from_table = 0;
  for (const auto& c : rep["collectives"])
    from_table += c["estimate_source"] == "table";
  CHECK(from_table > 0);
  // Its reduce-scatters have no row: counted in a warning, costed by the model.
  bool warned = false;
  for (const auto& w : rep["warnings"])
    warned |= w.get<std::string>().find("no row in") != std::string::npos;
  CHECK(warned == (from_table < static_cast<int>(rep["collectives"].size())));
  CHECK(run_cli("schedule '" + source_path("testdata/fsdp_tiny.json") + "' --collective-table '" +
                dir.file("missing.table") + "' -o '" + dir.file("o2.json") + "'")
            .exit_code == 2);
}

TEST_CASE("collective table: import-fx records a repro's table and mapping, schedule uses it "
          "when it sits beside the graph") {
  TempDir dir;
  std::string repro = read_text(source_path("testdata/fx/repro_load_args.py"));
  repro += "\ndef get_colls_estimations_file():\n    return \"t.table\"\n"
           "\ndef get_colls_group_mapping():\n    return {'0': 'fsdp', '9': '1'}\n";
  std::ofstream(dir.file("repro.py")) << repro;
  REQUIRE(run_cli("import-fx '" + dir.file("repro.py") + "' -o '" + dir.file("g.json") + "'")
              .exit_code == 0);
  const nlohmann::json g = nlohmann::json::parse(read_text(dir.file("g.json")));
  CHECK(g["collective_table"] ==
        nlohmann::json{{"file", "t.table"}, {"group_mapping", {{"0", "fsdp"}, {"9", "1"}}}});
  auto sources = [&](const std::string& extra) {
    CliResult r = run_cli("schedule '" + dir.file("g.json") + "' -q -o '" + dir.file("o.json") +
                          "' --report '" + dir.file("r.json") + "' " + extra);
    REQUIRE(r.exit_code == 0);
    const nlohmann::json rep = nlohmann::json::parse(read_text(dir.file("r.json")));
    std::string s;
    for (const auto& c : rep["collectives"])
      s += c["estimate_source"].get<std::string>() + " ";
    return s;
  };
  // No table beside the graph: the model.
  CHECK(sources("") == "analytical analytical ");
  // The repro's group '0' reads the table's 'fsdp' rows (4 ranks).
  std::ofstream(dir.file("t.table"))
      << "Group  Group Size  Collective  1MB (ms)  2MB (ms)\n---  ---  ---  ---  ---\n"
         "fsdp  4  all_gather_into_tensor  0.5  0.6\nfsdp  4  reduce_scatter_tensor  0.7  0.8\n";
  CHECK(sources("") == "table table ");
  // The report's config names the table that was used.
  CHECK(nlohmann::json::parse(read_text(dir.file("r.json")))["config"]["collective_table"] ==
        dir.file("t.table"));
  CHECK(sources("--collective-table none") == "analytical analytical ");
  // Naming that same file keeps the graph's mapping; the same rows in
  // another file come without it (group '0' has no row there).
  CHECK(sources("--collective-table '" + dir.file("t.table") + "'") == "table table ");
  std::ofstream(dir.file("copy.table")) << read_text(dir.file("t.table"));
  CHECK(sources("--collective-table '" + dir.file("copy.table") + "'") == "analytical analytical ");
  // batch prepares each input as schedule does: the same table.
  REQUIRE(run_cli("batch '" + dir.file("g.json") + "' -q -o '" + dir.file("out") + "'").exit_code ==
          0);
  const nlohmann::json batch_report =
      nlohmann::json::parse(read_text(dir.file("out/g.report.json")));
  std::string batch_sources;
  for (const auto& c : batch_report["collectives"])
    batch_sources += c["estimate_source"].get<std::string>() + " ";
  CHECK(batch_sources == "table table ");
  // A recorded file name that is a path is an error where the graph's own
  // table is read; a run that names its table does not read the record.
  nlohmann::json pathy = g;
  pathy["collective_table"]["file"] = "sub/t.table";
  std::ofstream(dir.file("pathy.json")) << pathy.dump();
  CliResult own =
      run_cli("schedule '" + dir.file("pathy.json") + "' -q -o '" + dir.file("o3.json") + "'");
  CHECK(own.exit_code == 2);
  CHECK(own.err.find("collective_table.file: must be a file name") != std::string::npos);
  CHECK(run_cli("schedule '" + dir.file("pathy.json") + "' -q -o '" + dir.file("o3.json") +
                "' --collective-table '" + dir.file("t.table") + "'")
            .exit_code == 0);
  // A malformed mapping in the repro is one error on its line.
  std::ofstream(dir.file("bad.py"))
      << repro.substr(0, repro.rfind("return {")) << "return {'0': 1}\n";
  CliResult bad = run_cli("import-fx '" + dir.file("bad.py") + "' -o '" + dir.file("b.json") + "'");
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("get_colls_group_mapping() must return a dict of group names") !=
        std::string::npos);
}

TEST_CASE("collective table: an extrapolation that leaves the finite range is an error") {
  // Columns 1e-300 MiB apart pass the reader, but the line through them
  // reaches 1e303 ms at 12 MiB: the lookup names the table, row and size.
  const CollectiveTable t =
      parse_collective_table("Group  Group Size  Collective  1e-300MB (ms)  2e-300MB (ms)\n"
                             "-----  ----------  ----------  -------------  -------------\n"
                             "    0           8  all_gather_into_tensor  0.05  100\n",
                             "tiny.table");
  CHECK_THROWS_WITH(t.time_ms(coll(CollectiveKind::AllGather, "0", 8, 12)),
                    Catch::StartsWith("tiny.table: row 0 8 all_gather_into_tensor: the time at "
                                      "12.000000 MiB extrapolates past 1e12 ms"));
  // A slope beyond double range is refused on its line.
  CHECK_THROWS_WITH(
      parse_collective_table("Group  Group Size  Collective  1e-300MB (ms)  2e-300MB (ms)\n"
                             "-----  ----------  ----------  -------------  -------------\n"
                             "    0           8  all_gather_into_tensor  0  1e9\n",
                             "steep.table"),
      Catch::StartsWith("steep.table:3: times change too fast"));
}
