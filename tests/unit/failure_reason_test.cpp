// The cause of a failed launch, from its log's tail: the line that says what went wrong, not
// the launcher's last word.
#include "core/failure_reason.hpp"

#include <gtest/gtest.h>

#include "sweep/fail_fast.hpp"

namespace colltune {
namespace {

// Open MPI 4.1's refusal as root, as mpirun prints it (its last line is the advice, not the
// cause: the report once showed "We reiterate our advice against doing so" 46 times).
TEST(FailureReason, RootRefusalNamesTheCauseAndTheFix) {
  const std::vector<std::string> tail{
      "--------------------------------------------------------------------------",
      "mpirun has detected an attempt to run as root.",
      "",
      "Running as root is *strongly* discouraged as any mistake (e.g., in",
      "defining TMPDIR) or bug can result in catastrophic damage to the OS",
      "file system, leaving your system in an unusable state.",
      "",
      "We strongly suggest that you run mpirun as a non-root user.",
      "",
      "You can override this protection by adding the --allow-run-as-root option",
      "to the cmd line or by setting two environment variables in the following way:",
      "the variable OMPI_ALLOW_RUN_AS_ROOT=1 to indicate the desire to override this",
      "protection, and OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 to confirm the choice and",
      "add one more layer of certainty that you want to do so.",
      "We reiterate our advice against doing so - please proceed at your own risk.",
      "--------------------------------------------------------------------------"};
  const auto reason = failure_reason(tail);
  ASSERT_TRUE(reason);
  EXPECT_EQ(*reason, "mpirun has detected an attempt to run as root.");
  const auto fix = known_fix(*reason);
  ASSERT_TRUE(fix);
  EXPECT_NE(fix->find("OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1"),
            std::string::npos);
}

// colltune's own line wins over mpirun's follow-up; with no cause anywhere, the last line that
// is not decoration; nothing at all is nullopt.
TEST(FailureReason, ColltuneLineFirstThenTheLastWords) {
  EXPECT_EQ(failure_reason({"colltune: error: --json: 'x' is a directory",
                            "Primary job  "
                            "terminated normally, but 1 process returned",
                            "a non-zero exit code. Per user-direction, the job has been aborted."}),
            "colltune: error: --json: 'x' is a directory");
  EXPECT_EQ(failure_reason({"some output", "last words", "-----"}), "last words");
  EXPECT_EQ(failure_reason({}), std::nullopt);
  EXPECT_EQ(known_fix("a cause nobody knows"), std::nullopt);
}

// Three alike failures within 2 s each stop the work; a slow failure before them (Open MPI
// aborting health's launch of every node at once, about 5 s) only restarts the count, so the
// stop comes at the fourth launch, not the third, and never without three fast ones after it.
TEST(FailFast, ASlowFailureRestartsTheCountInsteadOfEndingTheWatch) {
  const std::vector<std::string> tail{"mpirun was unable to launch the specified application"};
  FailFast watch;
  EXPECT_FALSE(watch.observe(false, 5.0, tail).stop);
  EXPECT_FALSE(watch.observe(false, 0.1, tail).stop);
  EXPECT_FALSE(watch.observe(false, 0.1, tail).stop);
  EXPECT_TRUE(watch.observe(false, 0.1, tail).stop);
  EXPECT_EQ(watch.stop_message("stops").rfind("3 launches in a row", 0), 0U);
}

// A launch that succeeded proves the failures are not every launch's: no stop after it.
TEST(FailFast, ASuccessEndsTheWatch) {
  const std::vector<std::string> tail{"mpirun was unable to launch the specified application"};
  FailFast watch;
  EXPECT_FALSE(watch.observe(false, 0.1, tail).stop);
  EXPECT_FALSE(watch.observe(true, 0.1, {}).stop);
  for (int i = 0; i < 4; ++i) EXPECT_FALSE(watch.observe(false, 0.1, tail).stop);
  EXPECT_EQ(watch.shared_cause(), std::nullopt);  // one launch ran: the cause is not everyone's
}

// Every launch failed alike, each too slowly for fail-fast (a missing binary that Open MPI took
// 5 s to report each time): the cause is shared, and the message counts the launches and gives
// the known fix. One launch failing otherwise, or a single failure, shares nothing.
TEST(FailFast, EveryLaunchFailingAlikeIsOneCauseHoweverSlow) {
  const std::vector<std::string> root{"mpirun has detected an attempt to run as root."};
  FailFast watch;
  for (int i = 0; i < 5; ++i) EXPECT_FALSE(watch.observe(false, 5.0, root).stop);
  ASSERT_EQ(watch.shared_cause(), root[0]);
  const std::string said = watch.shared_cause_message("none named");
  EXPECT_EQ(said.rfind("all 5 launches failed, none succeeded, every one with: mpirun has", 0), 0U);
  EXPECT_NE(said.find("\nnone named: fix: Open MPI refuses root"), std::string::npos);

  FailFast mixed;
  mixed.observe(false, 5.0, root);
  mixed.observe(false, 5.0, {"colltune: error: some other cause"});
  mixed.observe(false, 5.0, root);
  EXPECT_EQ(mixed.shared_cause(), std::nullopt);

  FailFast single;
  single.observe(false, 5.0, root);
  EXPECT_EQ(single.shared_cause(), std::nullopt);
}

}  // namespace
}  // namespace colltune
