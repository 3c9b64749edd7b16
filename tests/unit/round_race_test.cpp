#include "sweep/round_race.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "store/record.hpp"

namespace colltune {
namespace {

// A store with three points of one group (np 2): each round, each point's launch median at
// 8 B and 512 B is `scale` times the baseline's, times a per-round wobble of 1-3%.
class RoundRace : public ::testing::Test {
 protected:
  std::string store = (std::filesystem::temp_directory_path() /
                       ("colltune-round-race-" + std::to_string(::getpid())))
                          .string();
  std::vector<Point> points{
      {"base", "base", {{"np", "2"}}, true, {}},
      {"slow", "slow", {{"np", "2"}, {"OMPI_MCA_btl", "self,tcp"}}, false, {}},
      {"mixed", "mixed", {{"np", "2"}, {"OMPI_MCA_x", "1"}}, false, {}}};
  Manifest manifest;

  void write(const std::string& id, int round, double scale_8, double scale_512) {
    RunContext ctx;
    ctx.backend = "mpi";
    std::filesystem::create_directories(store + "/points/" + id);
    std::ofstream out(store + "/" + launch_records_path(id, round));
    for (const auto& [bytes, scale] : {std::pair{8u, scale_8}, std::pair{512u, scale_512}}) {
      Measurement m;
      m.coll.kind = CollKind::kAllreduce;
      m.coll.count = bytes / 4;
      m.nranks = 2;
      m.bytes = bytes;
      const double t = 1e-6 * scale * (1 + 0.01 * round);
      m.samples_seconds = {t, t, t};
      m.summary = summarize(m.samples_seconds);
      out << make_record(m, ctx).dump() << "\n";
    }
    LaunchEntry e;
    e.point_id = id;
    e.round = round;
    e.status = "done";
    manifest.launches.push_back(e);
  }
  void TearDown() override { std::filesystem::remove_all(store); }
};

TEST_F(RoundRace, APointBeatenAtEverySizeStopsAfterThreeRounds) {
  for (int round = 1; round <= 3; ++round) {
    write("base", round, 1, 1);
    write("slow", round, 8 + 0.1 * round, 7);  // TCP: several times slower at both sizes
    write("mixed", round, 8, 0.9);             // slower at 8 B, the fastest at 512 B
  }
  EXPECT_TRUE(race_after_round(points, manifest, store, 2, 0.05).empty())
      << "two rounds are too few to decide";
  const auto stops = race_after_round(points, manifest, store, 3, 0.05);
  ASSERT_EQ(stops.size(), 1u);
  EXPECT_EQ(stops[0].point_id, "slow");
  EXPECT_NE(stops[0].why.find("after round 3"), std::string::npos);
  // Later rounds of the stopped point become decided, once; the others stay pending.
  for (int round = 4; round <= 5; ++round) {
    for (const char* id : {"base", "slow", "mixed"}) {
      LaunchEntry e;
      e.point_id = id;
      e.round = round;
      manifest.launches.push_back(e);
    }
  }
  std::FILE* sink = std::fopen("/dev/null", "w");
  EXPECT_EQ(mark_race_stops(manifest, points, store, 3, 0.05, sink), 2u);
  EXPECT_EQ(mark_race_stops(manifest, points, store, 3, 0.05, sink), 0u);
  std::fclose(sink);
  for (const LaunchEntry& e : manifest.launches) {
    if (e.round <= 3) continue;
    EXPECT_EQ(e.status, e.point_id == "slow" ? "decided" : "pending") << e.point_id;
  }
}

TEST_F(RoundRace, ASlowBaselineKeepsRunningAndATieStopsNothing) {
  for (int round = 1; round <= 4; ++round) {
    write("base", round, 5, 5);  // the baseline is the reference: never stopped
    write("slow", round, 1, 1);
    write("mixed", round, 1.02, 1.02);  // within the 5% tie of the best
  }
  EXPECT_TRUE(race_after_round(points, manifest, store, 4, 0.05).empty());
}

}  // namespace
}  // namespace colltune
