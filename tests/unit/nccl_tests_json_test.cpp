// -J: the nccl-tests JSON document, against a golden file, and read back by colltune's importer.
#include "report/nccl_tests_json.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "core/bandwidth.hpp"
#include "store/results.hpp"

namespace colltune {
namespace {

const std::string kData = COLLTUNE_TEST_DATA_DIR;

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

RunContext context() {
  RunContext c;
  c.backend = "nccl";
  c.command_line = {"/opt/colltune/bin/colltune",
                    "run",
                    "--backend",
                    "nccl",
                    "-g",
                    "2",
                    "-b",
                    "8",
                    "-e",
                    "1K",
                    "-f",
                    "128",
                    "-J",
                    "out.json"};
  c.nranks = 4;
  c.gpus_per_process = 2;
  c.hosts = {"gpu01", "gpu02"};
  for (int r = 0; r < 4; ++r) {
    RankPlacement p;
    p.rank = r;
    p.host = r < 2 ? "gpu01" : "gpu02";
    p.gpu = fmt::format("0000:{:02x}:00.0", 0x18 + r % 2);
    p.gpu_model = "NVIDIA H200, 143771 MiB, sm_90";
    c.placement.push_back(p);
  }
  c.library_versions = {{"nccl", "2.28.3"}, {"cuda_runtime", "13000"}};
  c.backend_settings = {{"graph", "true"}, {"agg_iters", "1"}};
  c.min_bytes = 8;
  c.max_bytes = 1024;
  c.step_factor = 128;
  c.warmup_iters = 5;
  c.iters = 20;
  c.check_rounds = 1;
  c.environment = {{"NCCL_ALGO", "Ring"}, {"NCCL_IB_TOKEN", "<redacted>"}};
  return c;
}

// 8 B and 1 KiB allreduce of floats on 4 ranks; times chosen so the figures are easy to check
// by hand: 1024 B in 8 us is 0.128 GB/s algbw, x 2(n-1)/n = 1.5 -> 0.192 GB/s busbw.
Measurement measured(std::uint64_t bytes, bool in_place, double median_seconds,
                     std::uint64_t wrong) {
  Measurement m;
  m.coll.kind = CollKind::kAllreduce;
  m.coll.dtype = DType::kFloat;
  m.coll.op = ReduceOp::kSum;
  m.coll.count = bytes / 4;
  m.coll.in_place = in_place;
  m.coll.root = -1;
  m.nranks = 4;
  m.bytes = bytes;
  m.samples_seconds = {median_seconds * 0.9, median_seconds, median_seconds * 1.5};
  m.summary.median = median_seconds;
  m.at_median = bandwidth(m.coll, 4, median_seconds);
  m.wrong = wrong;
  m.ops_per_sample = 20;
  return m;
}

class NcclTestsJson : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("colltune-ntj-" + std::to_string(getpid()));
    std::filesystem::create_directories(dir_);
    path_ = (dir_ / "out.json").string();
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  void write_run() {
    NcclTestsJsonReporter reporter(path_);
    ASSERT_EQ(reporter.open_error(), "");
    reporter.begin(context());
    reporter.add(measured(8, false, 4e-6, 0));
    reporter.add(measured(8, true, 5e-6, 0));
    reporter.add(measured(1024, false, 8e-6, 0));
    reporter.add(measured(1024, true, 8e-6, 3));
    Measurement skipped = measured(1024, true, 8e-6, 0);
    skipped.coll.dtype = DType::kFp8E4M3;
    skipped.skipped = "fp8 needs NCCL 2.24 or newer at run time";
    reporter.add(skipped);
    reporter.end();
  }
  std::filesystem::path dir_;
  std::string path_;
};

TEST_F(NcclTestsJson, MatchesTheGoldenDocument) {
  write_run();
  // Only the wall-clock times differ from run to run.
  const std::regex clock(R"("(start|end)_time":"[0-9: -]{19}")");
  const std::string got = std::regex_replace(slurp(path_), clock, R"("$1_time":"TIME")");
  const std::string golden_path = kData + "/report/golden/nccl-tests-json.json";
  if (std::getenv("COLLTUNE_UPDATE_GOLDEN") != nullptr) std::ofstream(golden_path) << got;
  EXPECT_EQ(got, slurp(golden_path)) << "regenerate with COLLTUNE_UPDATE_GOLDEN=1, then review";
  EXPECT_FALSE(std::filesystem::exists(path_ + ".partial"));
}

TEST_F(NcclTestsJson, HasNcclTestsShapeAndHandCheckedFigures) {
  write_run();
  const auto j = nlohmann::json::parse(slurp(path_));
  EXPECT_EQ(j["version"], 3);
  EXPECT_EQ(j["nccl_version"], 22803);
  EXPECT_EQ(j["config"]["ngpus"], 2);
  EXPECT_EQ(j["config"]["devices"].size(), 2u);  // one per process, as nccl-tests
  EXPECT_EQ(j["config"]["graph"], 1);
  EXPECT_EQ(j["config"]["step_factor"], 128);
  EXPECT_FALSE(j["config"].contains("step_bytes"));
  ASSERT_EQ(j["results"].size(), 2u);  // out-of-place and in-place halves share a row
  const auto& row = j["results"][1];
  EXPECT_EQ(row["root"], "    -1");
  EXPECT_EQ(row["type"], "float");
  EXPECT_EQ(row["count"], 256);
  EXPECT_DOUBLE_EQ(row["out_of_place"]["time"].get<double>(), 8.0);
  EXPECT_DOUBLE_EQ(row["out_of_place"]["alg_bw"].get<double>(), 0.128);
  EXPECT_DOUBLE_EQ(row["out_of_place"]["bus_bw"].get<double>(), 0.192);
  EXPECT_EQ(row["in_place"]["nwrong"], 3.0);
  EXPECT_EQ(j["out_of_bounds"]["count"], 3);
  EXPECT_EQ(j["out_of_bounds"]["okay"], "false");  // nccl-tests' booleans are strings
  // The mean of the four halves' busbw: 8 B at 4 and 5 us, 1 KiB twice at 8 us.
  const double mean = (1.5 * 8 / 4e-6 + 1.5 * 8 / 5e-6 + 2 * 0.192e9) / 4 / 1e9;
  EXPECT_NEAR(j["average_bus_bandwidth"]["bandwidth"].get<double>(), mean, 1e-12);
  ASSERT_EQ(j["errors"].size(), 1u);
  EXPECT_NE(j["errors"][0].get<std::string>().find("skipped: allreduce f8e4m3"), std::string::npos);
  // Never a secret: the environment is the records' allow-listed, redacted one.
  EXPECT_EQ(j["env"], nlohmann::json({"NCCL_ALGO=Ring", "NCCL_IB_TOKEN=<redacted>"}));
}

TEST_F(NcclTestsJson, ReadsBackAsItWasWritten) {
  write_run();
  const Dataset d = load_dataset(path_);
  ASSERT_EQ(d.records.size(), 4u);
  EXPECT_EQ(d.records[2].collective, "allreduce");
  EXPECT_EQ(d.records[2].bytes, 1024u);
  EXPECT_EQ(d.records[2].nranks, 4);  // 2 processes x 2 GPUs
  EXPECT_FALSE(d.records[2].in_place);
  ASSERT_EQ(d.records[2].samples_seconds.size(), 1u);
  EXPECT_DOUBLE_EQ(d.records[2].samples_seconds[0], 8e-6);
  EXPECT_EQ(d.records[3].wrong, 3u);
  EXPECT_DOUBLE_EQ(d.records[1].samples_seconds[0], 5e-6);
}

// -I 1 -K 1: two processes' iteration times; nccl-tests' statistics worked by hand over the
// elementwise max after the first iteration: 11 12 11 13 15 9 15 30 16 20 (us), sorted
// 9 11 11 12 13 15 15 16 20 30: p50 = sorted[5] = 15, p95 = p99 = the 10th (nearest rank),
// mean 15.2, sum of squares 2642 - 10 x 15.2^2 = 331.6, population stdev sqrt(33.16).
TEST_F(NcclTestsJson, PerIterationObjectsFollowNcclTests2196) {
  const std::vector<double> a_us{50, 10, 12, 11, 13, 14, 9, 15, 30, 16, 20};
  const std::vector<double> b_us{40, 11, 11, 11, 12, 15, 8, 14, 29, 16, 19};
  Measurement m = measured(1024, false, 13e-6, 0);
  m.samples_seconds.clear();
  m.rank_samples_seconds.assign(2, {});
  for (std::size_t i = 0; i < a_us.size(); ++i) {
    m.rank_samples_seconds[0].push_back(a_us[i] * 1e-6);
    m.rank_samples_seconds[1].push_back(b_us[i] * 1e-6);
    m.samples_seconds.push_back(std::max(a_us[i], b_us[i]) * 1e-6);
  }
  Measurement in_place = m;
  in_place.coll.in_place = true;
  {
    NcclTestsJsonReporter reporter(path_, true, 1);
    reporter.begin(context());
    reporter.add(in_place);  // measured first, still written second, as nccl-tests orders them
    reporter.add(m);
    reporter.end();
  }
  const auto j = nlohmann::ordered_json::parse(slurp(path_));
  EXPECT_EQ(j["config"]["per_iter_timing"], "true");
  EXPECT_EQ(j["config"]["per_iter_skip"], 1);
  ASSERT_EQ(j["results"].size(), 1u);
  const auto& row = j["results"][0];
  std::vector<std::string> keys;
  for (const auto& item : row.items()) keys.push_back(item.key());
  EXPECT_EQ(keys,
            (std::vector<std::string>{"size", "count", "type", "redop", "root", "out_of_place",
                                      "out_of_place_per_iter", "in_place", "in_place_per_iter",
                                      "actual_iterations", "experiment_name"}));
  const auto& it = row["out_of_place_per_iter"];
  keys.clear();
  for (const auto& item : it.items()) keys.push_back(item.key());
  EXPECT_EQ(keys, (std::vector<std::string>{"skipped_iterations", "min_us", "max_us", "avg_us",
                                            "p50_us", "p95_us", "p99_us", "stdev_us", "cv_pct",
                                            "times_us", "per_process_max_times_us"}));
  EXPECT_EQ(it["skipped_iterations"], 1);
  EXPECT_NEAR(it["min_us"].get<double>(), 9, 1e-9);
  EXPECT_NEAR(it["max_us"].get<double>(), 30, 1e-9);
  EXPECT_NEAR(it["avg_us"].get<double>(), 15.2, 1e-9);
  EXPECT_NEAR(it["p50_us"].get<double>(), 15, 1e-9);
  EXPECT_NEAR(it["p95_us"].get<double>(), 30, 1e-9);
  EXPECT_NEAR(it["p99_us"].get<double>(), 30, 1e-9);
  EXPECT_NEAR(it["stdev_us"].get<double>(), std::sqrt(33.16), 1e-9);
  EXPECT_NEAR(it["cv_pct"].get<double>(), std::sqrt(33.16) / 15.2 * 100, 1e-9);
  ASSERT_EQ(it["times_us"].size(), 11u);  // every iteration, the skipped one too
  EXPECT_NEAR(it["times_us"][0].get<double>(), 50, 1e-9);
  EXPECT_NEAR(it["times_us"][1].get<double>(), 11, 1e-9);
  ASSERT_EQ(it["per_process_max_times_us"].size(), 2u);
  EXPECT_NEAR(it["per_process_max_times_us"][1][0].get<double>(), 40, 1e-9);
  EXPECT_NEAR(it["per_process_max_times_us"][0][6].get<double>(), 9, 1e-9);
}

TEST_F(NcclTestsJson, OneProcessHasNoPerProcessLists) {
  Measurement m = measured(8, false, 4e-6, 0);
  m.rank_samples_seconds = {m.samples_seconds};
  {
    NcclTestsJsonReporter reporter(path_, true, 0);
    reporter.begin(context());
    reporter.add(m);
    reporter.end();
  }
  const auto j = nlohmann::json::parse(slurp(path_));
  const auto& it = j["results"][0]["out_of_place_per_iter"];
  EXPECT_FALSE(it.contains("per_process_max_times_us"));
  EXPECT_EQ(it["times_us"].size(), 3u);
  EXPECT_EQ(it["skipped_iterations"], 0);
  EXPECT_FALSE(j["results"][0].contains("in_place_per_iter"));
}

TEST_F(NcclTestsJson, AnUnwritablePathIsReportedBeforeAnything) {
  NcclTestsJsonReporter reporter("/nonexistent-dir/out.json");
  EXPECT_EQ(reporter.open_error().rfind("-J/--output_file: '/nonexistent-dir/out.json' cannot be "
                                        "written",
                                        0),
            0u);
}

}  // namespace
}  // namespace colltune
