// The record codec reads what it writes, and refuses what no measurement can produce.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "core/bandwidth.hpp"
#include "core/errors.hpp"
#include "store/record.hpp"
#include "store/results.hpp"

namespace colltune {
namespace {

nlohmann::json good_record() {
  Measurement m;
  m.coll.kind = CollKind::kAlltoall;
  m.coll.count = 256;
  m.nranks = 4;
  m.bytes = 4096;
  m.samples_seconds = {1e-5, 2e-5, 3e-5};
  m.summary = summarize(m.samples_seconds);
  RunContext ctx;
  ctx.backend = "mpi";
  ctx.nranks = 4;
  return make_record(m, ctx);
}

std::string error_of(const nlohmann::json& j) {
  try {
    record_from_json(j, "f.jsonl:3");
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST(RecordCodec, ReadsBackWhatItWrites) {
  const Record r = record_from_json(good_record(), "f.jsonl:1");
  EXPECT_EQ(r.kind, CollKind::kAlltoall);
  EXPECT_EQ(r.nranks, 4);
  EXPECT_EQ(r.samples_seconds.size(), 3u);
  EXPECT_DOUBLE_EQ(r.bus_factor, 0.75);            // (n - 1) / n, by hand
  EXPECT_DOUBLE_EQ(r.algbw_bytes, 256.0 * 4 * 4);  // count x float size x ranks
}

TEST(RecordCodec, RefusesImpossibleValuesNamingLineAndField) {
  auto j = good_record();
  j["samples_seconds"] = {1e-5, -1e-6};
  EXPECT_NE(error_of(j).find("f.jsonl:3: samples_seconds[1]: -1e-06 is not allowed"),
            std::string::npos)
      << error_of(j);
  j = good_record();
  j["samples_seconds"] = {1e-5, std::numeric_limits<double>::infinity()};
  EXPECT_NE(error_of(j).find("samples_seconds[1]"), std::string::npos);
  j = good_record();
  j["samples_seconds"] = nlohmann::json::array();
  EXPECT_NE(error_of(j).find("samples_seconds: [] is not allowed"), std::string::npos);
  j["skipped"] = "not on this backend";  // a skip has no samples, and that is fine
  EXPECT_EQ(error_of(j), "");
  j = good_record();
  j["bytes"] = -1e308;
  EXPECT_NE(error_of(j).find("bytes: -1e+308"), std::string::npos) << error_of(j);
  j = good_record();
  j["bytes"] = std::uint64_t{1} << 63;
  EXPECT_NE(error_of(j).find("bytes:"), std::string::npos);
  j = good_record();
  j["nranks"] = 0;
  EXPECT_NE(error_of(j).find("nranks: 0"), std::string::npos);
  j = good_record();
  j["bus_factor"] = 1.0;  // alltoall written with a factor of 1: busbw a third too high on 4 ranks
  EXPECT_NE(error_of(j).find("bus_factor: 1 is not allowed; allowed: 0.75"), std::string::npos)
      << error_of(j);
  j = good_record();
  j["bus_factor"] = 1e9;
  EXPECT_NE(error_of(j).find(
                "bus_factor: 1000000000 is not allowed; allowed: 0.75 for alltoall on 4 ranks"),
            std::string::npos)
      << error_of(j);
  j = good_record();
  j["collective"] = "allreduce_v";
  EXPECT_NE(error_of(j).find("collective: allreduce_v"), std::string::npos);
}

class RecordFiles : public ::testing::Test {
 protected:
  std::filesystem::path dir = std::filesystem::temp_directory_path() / "colltune_codec_test";
  void SetUp() override { std::filesystem::create_directories(dir); }
  void TearDown() override { std::filesystem::remove_all(dir); }
  std::string write(const std::string& name, const std::string& text) {
    const auto path = (dir / name).string();
    std::ofstream(path) << text;
    return path;
  }
};

TEST_F(RecordFiles, ADuplicatedRecordIsReportedOrLeftOutWhenAsked) {
  const std::string line = good_record().dump();
  const auto path = write("dup.jsonl", line + "\n" + line + "\n");
  try {
    load_dataset(path);
    ADD_FAILURE() << "a duplicated record was accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("dup.jsonl:2: duplicated record"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("already at line 1"), std::string::npos);
  }
  auto bad = good_record();
  bad["nranks"] = -3;
  const auto mixed = write("mixed.jsonl", line + "\n" + line + "\n" + bad.dump() + "\n");
  const Dataset d = load_dataset(mixed, LoadOptions{true});
  EXPECT_EQ(d.records.size(), 1u);
  ASSERT_EQ(d.left_out.size(), 2u);
  EXPECT_NE(d.left_out[1].find("mixed.jsonl:3: nranks: -3"), std::string::npos) << d.left_out[1];
}

TEST_F(RecordFiles, SeveralRunFilesAreSeveralLaunchesOfOnePoint) {
  std::vector<std::string> paths;
  for (const char* name : {"a.jsonl", "b.jsonl", "c.jsonl"}) {
    auto r = good_record();  // each launch its own samples, as real launches have
    r["samples_seconds"][0] =
        r["samples_seconds"][0].get<double>() * (1.01 + 0.01 * static_cast<double>(paths.size()));
    paths.push_back(write(name, r.dump() + "\n"));
  }
  // A copy of a launch, and a path given again, are that launch, not two more.
  std::filesystem::copy_file(paths[0], dir / "copy.jsonl");
  const Dataset once = load_datasets({paths[0], (dir / "copy.jsonl").string(), paths[0]});
  EXPECT_EQ(once.records.size(), 1u);
  ASSERT_EQ(once.left_out.size(), 2u);
  EXPECT_NE(once.left_out[0].find("given twice"), std::string::npos) << once.left_out[0];
  const Dataset d = load_datasets(paths);
  ASSERT_EQ(d.records.size(), 3u);
  EXPECT_EQ(d.points.size(), 1u);
  EXPECT_EQ(d.records[0].round, 1);
  EXPECT_EQ(d.records[1].round, 2);
  EXPECT_EQ(d.records[2].round, 3);
}

// compare and history take records as they are read (a sink) instead of holding them: what they
// see must be what Dataset::records would have held, rounds and interleaved points included.
TEST_F(RecordFiles, ASinkSeesWhatTheRecordsWouldHold) {
  std::vector<std::string> paths;
  for (const char* name : {"a.jsonl", "b.jsonl"}) {
    std::string lines;
    for (const char* algo : {"Ring", "default"}) {
      auto r = good_record();
      r["in_process_knobs"] = {{"NCCL_ALGO", algo}};
      r["samples_seconds"][0] = 1e-5 * static_cast<double>(paths.size() + 1);  // its own launch
      lines += r.dump() + "\n";
    }
    paths.push_back(write(name, lines));
  }
  const Dataset kept = load_datasets(paths);
  std::vector<Record> sunk;
  const Dataset d = load_datasets(paths, {}, [&](Record&& r) { sunk.push_back(std::move(r)); });
  EXPECT_TRUE(d.records.empty());
  EXPECT_EQ(d.record_count, 4u);
  ASSERT_EQ(sunk.size(), 4u);
  ASSERT_EQ(kept.records.size(), 4u);
  for (std::size_t i = 0; i < sunk.size(); ++i) {
    EXPECT_EQ(sunk[i].round, kept.records[i].round) << i;
    EXPECT_EQ(sunk[i].point_id, kept.records[i].point_id) << i;
  }
  // Hand-made: two launches (files), each setting a point of its own, the default the baseline.
  EXPECT_EQ(sunk[2].round, 2);
  EXPECT_EQ(sunk[0].point_id, "NCCL_ALGO=Ring");
  ASSERT_EQ(d.points.size(), 2u);
  EXPECT_FALSE(d.points[0].baseline);
  EXPECT_TRUE(d.points[1].baseline);
  // A repeat is still found without the records to compare it with.
  const std::string line = good_record().dump();
  const auto dup = write("dup.jsonl", line + "\n" + line + "\n");
  EXPECT_THROW(load_dataset(dup, {}, [](Record&&) {}), ConfigError);
}

// nccl-tests -J output (its util.cu: config.nthreads/ngpus, one device entry per process,
// `cpu_time` under -C, `<half>_per_iter.times_us` under -I).
TEST_F(RecordFiles, NcclTestsRanksHostsCpuTimeAndPerIterationSamples) {
  const nlohmann::json file = {
      {"version", 2},
      {"args", {"./build/all_reduce_perf", "-g", "8", "-I", "1", "-C", "1"}},
      {"env", {"NCCL_ALGO=Ring", "AWS_SECRET_ACCESS_KEY=x"}},
      {"nccl_version", 22800},
      {"config",
       {{"nthreads", 1},
        {"ngpus", 8},
        {"devices", {{{"rank", 0}, {"hostname", "gpu7"}, {"device", 0}}}}}},
      {"results",
       {{{"size", 1024},
         {"count", 256},
         {"type", "float"},
         {"redop", "sum"},
         {"root", "    -1"},
         {"out_of_place",
          {{"cpu_time", 20.0}, {"alg_bw", 0.0512}, {"bus_bw", 0.0896}, {"nwrong", 0}}},
         {"out_of_place_per_iter", {{"times_us", {19.0, 20.0, 21.0, 22.0}}}},
         {"in_place", nullptr}}}}};
  const auto path = write("nt.json", file.dump());
  const Dataset d = load_dataset(path);
  ASSERT_EQ(d.records.size(), 1u);
  const Record& r = d.records[0];
  EXPECT_EQ(r.nranks, 8);  // 1 process x 1 thread x 8 GPUs
  EXPECT_EQ(r.samples_seconds.size(), 4u);
  EXPECT_DOUBLE_EQ(r.samples_seconds[0], 19e-6);
  EXPECT_DOUBLE_EQ(r.bus_factor, 2.0 * 7 / 8);
  EXPECT_EQ(d.contexts.at("nccl-tests")["hosts"], nlohmann::json({"gpu7"}));
  EXPECT_EQ(d.contexts.at("nccl-tests")["environment"].count("AWS_SECRET_ACCESS_KEY"), 0u);
}

}  // namespace
}  // namespace colltune
