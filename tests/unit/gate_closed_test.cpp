// The gates fail closed (issue 48): nothing compared, a slowdown the interval does not rule out,
// wrong results, rank counts that differ in any record. Expected figures are worked by hand from
// the Welch t interval on log launch medians.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <ctime>
#include <string>
#include <utility>
#include <vector>

#include "core/json_depth.hpp"
#include "core/regular_file.hpp"
#include "core/timestamp.hpp"
#include "report/analysis.hpp"
#include "report/compare.hpp"
#include "report/escape.hpp"
#include "report/tune.hpp"
#include "report/verify.hpp"
#include "store/record.hpp"
#include "tuner_plugin/tuned_rules.hpp"

namespace colltune {
namespace {

// One point "p" (the baseline) of allreduce float sum at 1 KiB on `nranks`, a launch per median
// (5 samples each, all equal to it), `wrong` elements found in each record.
Dataset side(const std::vector<double>& medians, int nranks = 2, std::uint64_t wrong = 0,
             const std::string& point = "p") {
  Dataset d;
  d.kind = "sweep";
  d.points.push_back({point, point, {{"backend", "mpi"}}, true});
  int round = 0;
  for (double m : medians) {
    Record r;
    r.point_id = point;
    r.round = ++round;
    r.collective = "allreduce";
    r.dtype = "float";
    r.op = "sum";
    r.bytes = 1024;
    r.nranks = nranks;
    r.wrong = wrong;
    r.samples_seconds.assign(5, m);
    d.records.push_back(r);
  }
  return d;
}

TEST(GateClosed, NothingComparedExitsThreeEvenWhenIncompleteIsAllowed) {
  Dataset skipped = side({1e-5, 1e-5});
  for (auto& r : skipped.records) {
    r.skipped = "not supported";
    r.samples_seconds.clear();
  }
  CompareOptions o;
  o.allow_incomplete = true;
  const auto rows = compare(skipped, skipped, o);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].verdict, Verdict::kMissing);
  EXPECT_EQ(rows[0].note, "skipped in the baseline: not supported");
  EXPECT_EQ(gate_exit_code(rows, o), 3);
  EXPECT_EQ(gate_exit_code({}, o), 3);  // two empty inputs
  const std::string junit = compare_junit(rows, o);
  EXPECT_NE(junit.find("tests=\"2\" failures=\"1\""), std::string::npos) << junit;
  EXPECT_NE(junit.find("name=\"anything compared\""), std::string::npos) << junit;
}

TEST(GateClosed, SameOnlyWhereTheIntervalStaysWithinTheTolerance) {
  // Launch medians 1, 1.1 (baseline) and 1.05, 1.05 (candidate): the log ratio's mean is
  // log(1.05) - (log 1 + log 1.1)/2 = 0.001136; its se sqrt(s_a^2/2) = 0.0476/sqrt 2 / ... by hand:
  // s_a = |log 1.1| / sqrt 2 = 0.06739, se = s_a / sqrt 2 = 0.04766 (the candidate's spread is
  // floored at 1e-3), df ~1, t(0.975, 1) = 12.706: the interval reaches exp(0.001136 + 0.6056)
  // = 1.83, far past 5%. Not "same": inconclusive, exit 3.
  const auto rows = compare(side({1e-5, 1.1e-5}), side({1.05e-5, 1.05e-5}), {});
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].verdict, Verdict::kInconclusive) << rows[0].note;
  EXPECT_NEAR(rows[0].ratio, std::exp(0.001136), 1e-4);
  EXPECT_GT(rows[0].ratio_high, 1.7);
  EXPECT_NE(rows[0].note.find("a slowdown beyond 5% is not ruled out"), std::string::npos);
  EXPECT_EQ(gate_exit_code(rows, {}), 3);
  // Tight launches (1.00, 1.001 against 1.0005, 1.0005): the interval stays within 5%: same.
  const auto tight = compare(side({1e-5, 1.001e-5}), side({1.0005e-5, 1.0005e-5}), {});
  EXPECT_EQ(tight[0].verdict, Verdict::kSame) << tight[0].ratio_high;
  EXPECT_EQ(gate_exit_code(tight, {}), 0);
}

TEST(GateClosed, ANoiseFloorTooWideToSeeTheToleranceSaysSo) {
  CompareOptions o;
  o.noise_floor_sd = std::log(1.99);  // --noise-floor 99%
  o.noise_floor_source = "--noise-floor 99%";
  // A 3x slowdown, one launch a side: z = log 3 / (0.688 sqrt 2) = 1.13, p = 0.13: not shown
  // slower, and the interval (1.96 x 0.973 = +/-1.9 in log) reaches far past 5%.
  const auto rows = compare(side({1e-5}), side({3e-5}), o);
  EXPECT_EQ(rows[0].verdict, Verdict::kInconclusive);
  EXPECT_NE(rows[0].note.find("is too wide to see a 5% slowdown"), std::string::npos)
      << rows[0].note;
  EXPECT_EQ(gate_exit_code(rows, o), 3);
}

TEST(GateClosed, WrongResultsFailWhateverTheTimes) {
  // The candidate is 10x faster, and wrong.
  const auto rows = compare(side({1e-5, 1e-5}), side({1e-6, 1e-6}, 2, 123456), {});
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].verdict, Verdict::kWrong);
  EXPECT_EQ(rows[0].note, "0 wrong elements in the baseline, 246912 in the candidate");
  EXPECT_EQ(gate_exit_code(rows, {}), 1);
  EXPECT_NE(compare_junit(rows, {}).find("<failure message=\"wrong results:"), std::string::npos);
}

TEST(GateClosed, RankCountsAreCheckedInEveryRecordWhateverTheOrder) {
  Dataset mixed = side({1e-5, 1e-5}, 2);
  mixed.records.back().nranks = 4;  // the last record agrees with the other side, the first not
  Dataset first_agrees = side({1e-5, 1e-5}, 4);
  first_agrees.records.back().nranks = 2;  // and the other way round
  const Dataset four = side({1e-5, 1e-5}, 4);
  for (const auto& rows : {compare(mixed, four, {}), compare(four, mixed, {}),
                           compare(first_agrees, four, {}), compare(four, first_agrees, {})}) {
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_EQ(rows[0].verdict, Verdict::kRankMismatch);
    EXPECT_EQ(gate_exit_code(rows, {}), 3);
  }
}

TEST(GateClosed, TuneNeverPicksASettingThatGaveWrongResults) {
  // Algorithm 4 is 2x faster in every launch, and wrong: the baseline stays.
  Dataset d = side({2e-5, 2.01e-5, 1.99e-5});
  Dataset fast = side({1e-5, 1.01e-5, 0.99e-5}, 2, 4096, "q");
  d.points.push_back(
      {"q", "q", {{"backend", "mpi"}, {"OMPI_MCA_coll_tuned_allreduce_algorithm", "4"}}, false});
  d.records.insert(d.records.end(), fast.records.begin(), fast.records.end());
  const std::string env = emit_env(d, {});
  EXPECT_EQ(env.find("\nOMPI_MCA_coll_tuned_allreduce_algorithm="), std::string::npos) << env;
  EXPECT_NE(env.find("no value beats leaving it unset"), std::string::npos) << env;
  // The report names no wrong setting fastest: the baseline leads, the wrong one ranks last.
  const auto sizes = winners(build_panels(d).at(0), d);
  ASSERT_EQ(sizes.size(), 1u);
  EXPECT_EQ(sizes[0].fastest, "p");
  EXPECT_TRUE(sizes[0].tied.empty());
}

TEST(VerifyClosed, AnIntervalReachingPastFivePercentCouldNotTell) {
  // Tuned launches 0.01x and 100x the defaults' (1x, 1.001x): a geometric mean of 1, an
  // interval of about [0.005, 200]: no evidence either way, never "nowhere shown slower".
  Dataset d = side({1e-5, 1.001e-5});
  Dataset tuned = side({1e-7, 1e-3}, 2, 0, "q");
  d.points.push_back(
      {"q", "q", {{"backend", "mpi"}, {"OMPI_MCA_coll_tuned_allreduce_algorithm", "4"}}, false});
  d.records.insert(d.records.end(), tuned.records.begin(), tuned.records.end());
  TunedFile f;
  f.rows.push_back({"allreduce", 0, 0, UINT64_MAX, "env file"});
  const VerifyOutcome out = verify_dataset(d, f, 2);
  EXPECT_EQ(out.exit_code, kVerifyCannotTell) << out.text;
  EXPECT_NE(out.text.find("could not tell (the interval reaches"), std::string::npos) << out.text;
  EXPECT_EQ(out.text.find("nowhere shown slower"), std::string::npos) << out.text;
  // The same with wrong results on the tuned side: do not deploy, exit 1.
  for (auto& r : d.records)
    if (r.point_id == "q") r.wrong = 7;
  const VerifyOutcome wrong = verify_dataset(d, f, 2);
  EXPECT_EQ(wrong.exit_code, kVerifySlower) << wrong.text;
  EXPECT_NE(wrong.text.find("WRONG RESULTS: do not deploy this row"), std::string::npos);
}

TEST(VerifyClosed, APluginFileNcclNeverAppliedCouldNotTell) {
  // The tuned side's records carry what the plugin saw at NCCL's init (the NCCL backend's
  // tuner_plugin setting); without rows applied, verify measured the defaults twice.
  Dataset d = side({1e-5, 1.001e-5});
  Dataset tuned = side({1e-5, 1.002e-5}, 2, 0, "q");
  d.points.push_back({"q", "q", {{"backend", "nccl"}}, false});
  d.records.insert(d.records.end(), tuned.records.begin(), tuned.records.end());
  TunedFile f;
  f.kind = TunedKind::kNcclPlugin;
  f.path = "tuned.json";
  f.nnodes = 2;
  f.rows.push_back({"allreduce", 2, 0, UINT64_MAX, "row 1"});
  const auto outcome = [&](const char* plugin) {
    d.contexts["q"] = {{"backend", "nccl"}};
    if (plugin) d.contexts["q"]["backend_settings"] = {{"tuner_plugin", plugin}};
    return verify_dataset(d, f, 2);
  };
  // Each record that shows no row applied, and the reason verify must give, exit 3.
  const std::pair<const char*, const char*> not_applied[] = {
      {nullptr, "do not say that NCCL loaded colltune's tuner plugin"},
      {"not loaded: NCCL_TUNER_PLUGIN=/x.so names no library in this process",
       "NCCL did not load colltune's tuner plugin: not loaded"},
      {R"({"file":"tuned.json","nnodes":1,"nranks":2,"note":"","rows":0,"rows_in_file":1})",
       "NCCL counts 2 ranks on 1 node(s), the file's rows are for 2"}};
  for (const auto& [plugin, reason] : not_applied) {
    const VerifyOutcome out = outcome(plugin);
    EXPECT_EQ(out.exit_code, kVerifyCannotTell) << out.text;
    EXPECT_NE(out.text.find(reason), std::string::npos) << out.text;
  }
  const VerifyOutcome applied =
      outcome(R"({"file":"tuned.json","nnodes":2,"nranks":2,"note":"","rows":1,"rows_in_file":1})");
  EXPECT_EQ(applied.text.rfind("NCCL loaded colltune's tuner plugin: 1 of its 1 rows", 0), 0u)
      << applied.text;
}

TEST(JsonDepth, CountsBracketsOutsideStringsOnly) {
  EXPECT_TRUE(json_depth_within("[[1]]", 2));
  EXPECT_FALSE(json_depth_within("[[[1]]]", 2));
  EXPECT_TRUE(json_depth_within(R"({"a": "[[[[[[", "b": "\"[[["})", 1));
  EXPECT_FALSE(json_depth_within(std::string(100000, '[') + std::string(100000, ']')));
}

TEST(RegularFile, AFifoAndADirectoryAreRefusedWithoutBlocking) {
  std::string text, problem;
  EXPECT_FALSE(read_regular_file("/", 1 << 20, text, problem));
  EXPECT_EQ(problem, "is a directory; allowed: a regular file");
  const std::string fifo = ::testing::TempDir() + "/colltune-fifo-test";
  ::unlink(fifo.c_str());
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_FALSE(read_regular_file(fifo, 1 << 20, text, problem));
  EXPECT_EQ(problem, "is a FIFO; allowed: a regular file");
  ::unlink(fifo.c_str());
  EXPECT_FALSE(read_regular_file("/proc/self/status", 1 << 20, text, problem) && text.empty());
}

TEST(Timestamp, MillisecondsAndImpossibleDates) {
  EXPECT_EQ(parse_utc_millis("2026-11-02T02:00:00.123Z"), 1793584800123LL);
  EXPECT_EQ(parse_utc_millis("2026-11-02T02:00:00Z"), 1793584800000LL);
  EXPECT_EQ(parse_utc_millis("2026-11-02T02:00:00.5Z"), 1793584800500LL);
  EXPECT_FALSE(parse_utc_millis("2026-02-29T00:00:00Z"));  // 2026 is no leap year
  EXPECT_TRUE(parse_utc_millis("2028-02-29T00:00:00Z"));
  EXPECT_FALSE(parse_utc_millis("2026-04-31T00:00:00Z"));
  const std::string now = utc_timestamp();
  EXPECT_EQ(now.size(), 24u) << now;  // 2026-12-06T19:00:00.123Z
  EXPECT_TRUE(parse_utc_millis(now));
}

TEST(Timestamp, NcclTestsLocalStartTimeReadInThisZone) {
  // POSIX zones need no tz database: EST5 is UTC-5 all year, UTC0 is UTC.
  const char* before = std::getenv("TZ");
  const std::string saved = before ? before : "";
  setenv("TZ", "EST5", 1);
  tzset();
  EXPECT_EQ(local_time_as_utc("2026-01-01 00:00:00"), "2026-01-01T05:00:00.000Z");
  EXPECT_EQ(local_time_as_utc("2026-02-29 00:00:00"), std::nullopt);
  EXPECT_EQ(local_time_as_utc("2026-01-01T00:00:00Z"), std::nullopt);
  setenv("TZ", "UTC0", 1);
  tzset();
  EXPECT_EQ(local_time_as_utc("2026-12-31 23:59:59"), "2026-12-31T23:59:59.000Z");
  if (before) {
    setenv("TZ", saved.c_str(), 1);
  } else {
    unsetenv("TZ");
  }
  tzset();
}

TEST(RedactedContext, SecretNamedVariablesAtAnyDepthAndInWords) {
  const auto c =
      redacted_context({{"environment", {{"NCCL_IB_TOKEN", "hunter2"}, {"NCCL_ALGO", "Ring"}}},
                        {"launcher", {{"argv", {"mpirun", "-x", "MY_API_KEY=hunter2"}}}},
                        {"knobs", {{"UCX_AUTH", "<redacted 2>"}}},
                        {"cache_key", "kept: not a variable's name"}});
  EXPECT_EQ(c["environment"]["NCCL_IB_TOKEN"], "<redacted>");
  EXPECT_EQ(c["environment"]["NCCL_ALGO"], "Ring");
  EXPECT_EQ(c["launcher"]["argv"][2], "MY_API_KEY=<redacted>");
  EXPECT_EQ(c["knobs"]["UCX_AUTH"], "<redacted 2>");
  EXPECT_EQ(c["cache_key"], "kept: not a variable's name");
}

TEST(TunedRules, DuplicateKeysAndDeepNestingAreRefused) {
  EXPECT_THROW(parse_tuned_file(R"({"format": "colltune-nccl-tuned", "version": 1, "rows": [],
                                     "rows": []})"),
               std::runtime_error);
  EXPECT_THROW(parse_tuned_file(std::string(100000, '[') + std::string(100000, ']')),
               std::runtime_error);
}

TEST(HtmlEscape, ControlCharactersBecomeVisibleText) {
  EXPECT_EQ(html_escape("a\x01<b>\x1b[31m\tc"), "a\\x01&lt;b&gt;\\x1b[31m\tc");
}

}  // namespace
}  // namespace colltune

namespace colltune {
namespace {

// compare merges each side as its records are read, in whatever round order they come: the
// launches stay apart and in round order, a repeated round's samples join it.
TEST(CompareSide, LaunchesKeptApartAndByRoundWhateverTheOrderRead) {
  CompareSide side;
  for (const auto& [round, sample] :
       std::vector<std::pair<int, double>>{{3, 3.0}, {1, 1.0}, {2, 2.0}, {1, 1.5}}) {
    Record r;
    r.point_id = "p", r.collective = "allreduce", r.dtype = "float", r.op = "sum";
    r.nranks = 2, r.bytes = 1024, r.round = round;
    r.samples_seconds = {sample};
    side.add(r);
  }
  ASSERT_EQ(side.series().size(), 1u);
  const CompareSide::Series& s = side.series().begin()->second;
  EXPECT_EQ(s.launch_count(), 3u);
  EXPECT_EQ(s.launches(), (LaunchSamples{{1.0, 1.5}, {2.0}, {3.0}}));
}

}  // namespace
}  // namespace colltune
