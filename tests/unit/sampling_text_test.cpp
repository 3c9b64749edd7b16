#include "report/sampling_text.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace colltune {
namespace {

// The texts are written out by hand: what a reader of the header or report must be told.
TEST(SamplingText, AFixedBudgetIsCountsAndARacingLaunchSaysItsSamplesGrewAndStopped) {
  const auto older =
      nlohmann::json::parse(R"({"iters": 20, "repetitions": 12, "warmup_iters": 5})");
  EXPECT_EQ(sampling_text(sampling_plan(older)),
            "20 ops per sample, 12 samples per size, 5 warm-up ops");
  const auto racing = nlohmann::json::parse(
      R"({"iters": 20, "repetitions": 20, "warmup_iters": 5, "race": true,
          "min_sample_seconds": 0.00025})");
  EXPECT_EQ(sampling_text(sampling_plan(racing)),
            "ops per sample grown per size until a sample lasts 250 us (1 warm-up op, then "
            "batches of 1, 2, 4 ... ops), up to 20 turns per size, raced: a setting stops once "
            "decided");
  RunContext fixed_ops;  // racing with -n 7: the count holds, the turns are a budget
  fixed_ops.iters = 7;
  fixed_ops.repetitions = 8;
  fixed_ops.warmup_iters = 5;
  fixed_ops.race = true;
  EXPECT_EQ(sampling_text(sampling_plan(fixed_ops)),
            "7 ops per sample, up to 8 turns per size, raced: a setting stops once decided, 5 "
            "warm-up ops");
}

TEST(SamplingText, WhatAnImportDidNotRecordIsNotApplicableAndLaunchesThatDifferAreEachNamed) {
  EXPECT_EQ(sampling_texts({{"nccl-tests", nlohmann::json::object()}}),
            "n/a ops per sample, n/a samples per size, n/a warm-up ops");
  EXPECT_EQ(sampling_texts({}), "n/a ops per sample, n/a samples per size, n/a warm-up ops");
  const auto odd = nlohmann::json::parse(R"({"race": "yes", "min_sample_seconds": "fast"})");
  EXPECT_EQ(sampling_text(sampling_plan(odd)),
            "n/a ops per sample, n/a samples per size, n/a warm-up ops");
  const auto a = nlohmann::json::parse(R"({"iters": 20, "repetitions": 12, "warmup_iters": 5})");
  const auto b = nlohmann::json::parse(R"({"iters": 40, "repetitions": 12, "warmup_iters": 5})");
  EXPECT_EQ(sampling_texts({{"p1", a}, {"p2", b}, {"p3", a}}),
            "20 ops per sample, 12 samples per size, 5 warm-up ops; 40 ops per sample, 12 "
            "samples per size, 5 warm-up ops");
}

}  // namespace
}  // namespace colltune
