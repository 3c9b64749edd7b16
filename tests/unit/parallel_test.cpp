#include "core/parallel.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <string>
#include <vector>

namespace colltune {
namespace {

TEST(ParallelFor, CallsEveryIndexExactlyOnce) {
  std::vector<std::atomic<int>> calls(1000);
  parallel_for(calls.size(), [&](std::size_t i) { ++calls[i]; });
  for (std::size_t i = 0; i < calls.size(); ++i) EXPECT_EQ(calls[i].load(), 1) << "index " << i;
}

// The error a plain loop would stop at: the lowest index's, even when a higher index throws
// first in time (index 900 throws at once; index 3 only after the others have run).
TEST(ParallelFor, RethrowsTheLowestIndexErrorAfterEveryCallFinished) {
  std::atomic<int> done{0};
  try {
    parallel_for(1000, [&](std::size_t i) {
      if (i == 900) throw std::runtime_error("late index");
      if (i == 3) {
        // The other threads run on meanwhile (bounded: one core runs the indices in order).
        const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
        while (done.load() < 990 && std::chrono::steady_clock::now() < until) {
        }
        throw std::runtime_error("early index");
      }
      ++done;
    });
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), "early index");
  }
  EXPECT_EQ(done.load(), 998);
}

TEST(ParallelFor, NothingToDoCallsNothing) {
  bool called = false;
  parallel_for(0, [&](std::size_t) { called = true; });
  EXPECT_FALSE(called);
}

}  // namespace
}  // namespace colltune
