// What a --race-after launch measures again, from an earlier launch's records written by the
// record codec: rows and settings chosen by hand from the outcomes given.
#include "runner/race_after.hpp"

#include <gtest/gtest.h>

#include "core/errors.hpp"
#include "store/record.hpp"

namespace colltune {
namespace {

const std::vector<InProcessSettings> kSettings{{{"OMPI_MCA_coll_tuned_allreduce_algorithm", "1"}},
                                               {{"OMPI_MCA_coll_tuned_allreduce_algorithm", "2"}},
                                               {{"OMPI_MCA_coll_tuned_allreduce_algorithm", "3"}}};

Collective allreduce_of(std::uint64_t count) {
  Collective c;
  c.kind = CollKind::kAllreduce;
  c.count = count;
  return c;
}

// One JSONL line: setting `s` at `count` floats on 4 ranks, its race ended `outcome`.
std::string line(std::size_t s, std::uint64_t count, RaceOutcome outcome, int nranks = 4) {
  Measurement m;
  m.coll = allreduce_of(count);
  m.nranks = nranks;
  m.bytes = op_bytes(m.coll, nranks);
  m.samples_seconds = {1e-5, 2e-5, 3e-5};
  m.summary = summarize(m.samples_seconds);
  m.in_process_knobs = kSettings[s];
  m.race = outcome;
  m.race_turn = 3;
  RunContext ctx;
  ctx.backend = "mpi";
  ctx.nranks = nranks;
  return make_record(m, ctx).dump() + "\n";
}

std::string error_of(const std::string& text) {
  try {
    parse_race_after(text, "first.jsonl", kSettings, 4);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST(RaceAfter, TiedAndUndecidedAreRacedAgainAndWinnersAreNot) {
  using O = RaceOutcome;
  const std::string text =
      // 8 floats: 1 eliminated, 2 and 3 undecided: race 2 and 3 again.
      line(0, 8, O::kEliminated) + line(1, 8, O::kUndecided) + line(2, 8, O::kUndecided) +
      // 16: 3 won: decided, not measured.
      line(0, 16, O::kEliminated) + line(1, 16, O::kEliminated) + line(2, 16, O::kWon) +
      // 32: all tied: all again.
      line(0, 32, O::kTied) + line(1, 32, O::kTied) + line(2, 32, O::kTied) +
      // 64: one left open (the others eliminated before it was decided): as good as won.
      line(0, 64, O::kUndecided) + line(1, 64, O::kEliminated) + line(2, 64, O::kEliminated) +
      // 128: raced by nobody (a fixed budget): nothing known, everything again.
      line(0, 128, O::kNotRaced) + line(1, 128, O::kNotRaced) + line(2, 128, O::kNotRaced);
  const RaceAfter r = parse_race_after(text, "first.jsonl", kSettings, 4);
  using V = std::vector<bool>;
  EXPECT_EQ(r.settings_for(allreduce_of(8), 4, 3), (V{false, true, true}));
  EXPECT_EQ(r.settings_for(allreduce_of(16), 4, 3), (V{false, false, false}));
  EXPECT_EQ(r.settings_for(allreduce_of(32), 4, 3), (V{true, true, true}));
  EXPECT_EQ(r.settings_for(allreduce_of(64), 4, 3), (V{false, false, false}));
  EXPECT_EQ(r.settings_for(allreduce_of(128), 4, 3), (V{true, true, true}));
  EXPECT_EQ(r.settings_for(allreduce_of(256), 4, 3), (V{true, true, true}));  // not in the file
  EXPECT_TRUE(r.holds(allreduce_of(64), 4));
  EXPECT_FALSE(r.holds(allreduce_of(128), 4));  // not raced there
  // The same row in place is another row.
  Collective in_place = allreduce_of(8);
  in_place.in_place = true;
  EXPECT_EQ(r.settings_for(in_place, 4, 3), (V{true, true, true}));
}

TEST(RaceAfter, ForeignRecordsAreOneLineNamingFileAndLine) {
  using O = RaceOutcome;
  std::string foreign = line(0, 8, O::kTied);
  foreign.replace(foreign.find("\"1\""), 3, "\"6\"");
  EXPECT_EQ(error_of(line(0, 8, O::kTied) + foreign),
            "--race-after: first.jsonl line 2: setting "
            "'OMPI_MCA_coll_tuned_allreduce_algorithm=6' is not among this run's --interleave "
            "settings; allowed: the records of a launch that interleaved the same settings");
  EXPECT_NE(error_of(line(0, 8, O::kTied, 2)).find("line 1: nranks 2 but this run has 4"),
            std::string::npos);
  const std::string all_three = line(0, 8, O::kTied) + line(1, 8, O::kTied) + line(2, 8, O::kTied);
  EXPECT_NE(error_of(line(0, 8, O::kNotRaced) + line(1, 8, O::kNotRaced) + line(2, 8, O::kNotRaced))
                .find("no record was raced"),
            std::string::npos);
  EXPECT_EQ(error_of(all_three), "");
  // A setting of this run the file never measured (a run with one more, or a --race-after
  // launch's own file, which leaves out what the first eliminated).
  EXPECT_EQ(error_of(line(0, 8, O::kTied) + line(1, 8, O::kTied)),
            "--race-after: first.jsonl: setting 'OMPI_MCA_coll_tuned_allreduce_algorithm=3' of "
            "this run has no record there; allowed: the records of a first launch with the same "
            "settings (not a --race-after launch's own)");
  EXPECT_NE(error_of("{not json\n").find("first.jsonl line 1: not JSON"), std::string::npos);
}

}  // namespace
}  // namespace colltune
