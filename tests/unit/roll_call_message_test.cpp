// timeout_message against whole lines written out by hand: what an operator reads.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "runner/roll_call.hpp"

namespace colltune {
namespace {

PeerAnswer answer_of(int rank) { return PeerAnswer{rank, 100, 7, true}; }

const char kStep[] = "allreduce float sum of 4096 B in-place";
const char kHead[] =
    "colltune: rank 0 on vm: allreduce float sum of 4096 B in-place did not finish within 2 s "
    "(--timeout)";

RollCallResult result(std::vector<int> silent, std::vector<PeerAnswer> answered) {
  return RollCallResult{true, std::move(silent), std::move(answered), false};
}

TEST(TimeoutMessage, WithoutARollCallNamesTheStepOnly) {
  EXPECT_EQ(timeout_message(kStep, 2, 0, {"vm", "vm"}, RollCallResult{}),
            std::string(kHead) + "; aborting the job");
  EXPECT_EQ(timeout_message("x", 0.5, 1, {"a", "b"}, RollCallResult{}),
            "colltune: rank 1 on b: x did not finish within 0.5 s (--timeout); aborting the job");
}

TEST(TimeoutMessage, NamesTheSilentRank) {
  const std::vector<std::string> hosts(4, "vm");
  EXPECT_EQ(timeout_message(kStep, 2, 0, hosts, result({3}, {answer_of(1), answer_of(2)})),
            std::string(kHead) +
                "; roll call: rank 3 on vm does not answer (stopped, frozen or its host down), 2 "
                "other ranks do; aborting the job");
  EXPECT_EQ(timeout_message(kStep, 2, 0, {"vm", "vm"}, result({1}, {})),
            std::string(kHead) +
                "; roll call: rank 1 on vm does not answer (stopped, frozen or its host down); "
                "aborting the job");
}

TEST(TimeoutMessage, CompressesRunsOfRanksOnOneHost) {
  const std::vector<std::string> hosts = {"a", "a", "a", "a", "b", "b", "b", "b"};
  EXPECT_EQ(timeout_message(kStep, 2, 4, hosts, result({1, 2, 3, 5}, {answer_of(0), answer_of(6)})),
            "colltune: rank 4 on b: allreduce float sum of 4096 B in-place did not finish within "
            "2 s (--timeout); roll call: ranks 1-3 on a, rank 5 on b do not answer (stopped, "
            "frozen or their host down), 2 other ranks do; aborting the job");
  // A run ends where the host changes.
  EXPECT_EQ(timeout_message(kStep, 2, 0, hosts, result({3, 4}, {answer_of(1)})),
            "colltune: rank 0 on a: allreduce float sum of 4096 B in-place did not finish within "
            "2 s (--timeout); roll call: rank 3 on a, rank 4 on b do not answer (stopped, frozen "
            "or their host down), 1 other rank does; aborting the job");
  std::vector<int> odd;
  for (int r = 1; r < 22; r += 2) odd.push_back(r);
  EXPECT_EQ(timeout_message(kStep, 2, 0, std::vector<std::string>(22, "vm"), result(odd, {})),
            std::string(kHead) +
                "; roll call: rank 1 on vm, rank 3 on vm, rank 5 on vm, rank 7 on vm, rank 9 on "
                "vm, rank 11 on vm, rank 13 on vm, rank 15 on vm and 3 more do not answer "
                "(stopped, frozen or their host down); aborting the job");
}

TEST(TimeoutMessage, EveryRankElsewhereSilentHintsAtTheNetwork) {
  EXPECT_EQ(timeout_message(kStep, 2, 0, {"vm", "vm", "n2", "n2"}, result({2, 3}, {answer_of(1)})),
            std::string(kHead) +
                "; roll call: ranks 2-3 on n2 do not answer (no rank on another host answers: a "
                "host down, or UDP between hosts blocked), 1 other rank does; aborting the job");
}

TEST(TimeoutMessage, NoneSilent) {
  PeerAnswer waiting = answer_of(1), went_on = answer_of(2);
  waiting.idle_ms = 2500;
  went_on.idle_ms = 40;
  EXPECT_EQ(timeout_message(kStep, 2, 0, {"vm", "vm", "vm"}, result({}, {waiting, waiting})),
            std::string(kHead) +
                "; roll call: every rank answers and none progressed, so they wait on each other; "
                "aborting the job");
  EXPECT_EQ(timeout_message(kStep, 2, 0, {"vm", "vm", "vm"}, result({}, {waiting, went_on})),
            std::string(kHead) +
                "; roll call: every rank answers, and rank 2 on vm progressed in the last 2 s; "
                "aborting the job");
}

}  // namespace
}  // namespace colltune
