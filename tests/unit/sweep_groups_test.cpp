#include <gtest/gtest.h>

#include "sweep/groups.hpp"

namespace colltune {
namespace {

const char* kSpec = R"(
launcher_args: [--oversubscribe]
env: {OMPI_MCA_coll_tuned_use_dynamic_rules: 1}
benchmark: {collectives: allreduce, max_bytes: 1M}
axes:
  backend: [mpi, nccl]
  np: [2, 4]
  OMPI_MCA_coll_tuned_allreduce_algorithm: [null, 3, 04]
interleave: OMPI_MCA_coll_tuned_allreduce_algorithm
)";

TEST(SweepGroups, MpiPointsDifferingOnlyInInterleavedKnobsShareALaunch) {
  const SweepSpec spec = parse_spec(kSpec, "s.yaml");
  const std::vector<Point> points = expand(spec);
  ASSERT_EQ(points.size(), 12u);
  const auto groups = launch_groups(spec, points);
  // mpi at np 2 and np 4: one launch of three points each; every nccl point alone.
  ASSERT_EQ(groups.size(), 2u + 6u);
  for (const auto& group : groups) {
    const Point& first = points[group.front()];
    EXPECT_EQ(group.size(), first.settings.at("backend") == "mpi" ? 3u : 1u) << first.label;
    for (std::size_t i : group) EXPECT_EQ(points[i].settings.at("np"), first.settings.at("np"));
  }
  SweepSpec plain = spec;
  plain.interleave.clear();
  EXPECT_EQ(launch_groups(plain, points).size(), points.size());
}

TEST(SweepGroups, TheLaunchPassesOneSettingPerMemberAndNoKnobInTheEnvironment) {
  const SweepSpec spec = parse_spec(kSpec, "s.yaml");
  const std::vector<Point> points = expand(spec);
  const auto groups = launch_groups(spec, points);
  std::vector<const Point*> members;
  for (std::size_t i : groups.front()) members.push_back(&points[i]);
  const Launch l = build_group_launch(spec, members, "/bin/colltune", "/r/x.jsonl");
  EXPECT_EQ(l.env,
            (std::map<std::string, std::string>{{"OMPI_MCA_coll_tuned_use_dynamic_rules", "1"}}));
  const std::vector<std::string> tail(l.argv.end() - 6, l.argv.end());
  EXPECT_EQ(tail, (std::vector<std::string>{
                      "--interleave-set", "OMPI_MCA_coll_tuned_allreduce_algorithm=default",
                      "--interleave-set", "OMPI_MCA_coll_tuned_allreduce_algorithm=3",
                      "--interleave-set", "OMPI_MCA_coll_tuned_allreduce_algorithm=4"}));
  // Records come back to the member with the same (canonical) value; others to none.
  EXPECT_EQ(member_of_record(spec, members, {{"OMPI_MCA_coll_tuned_allreduce_algorithm", "4"}}), 2);
  EXPECT_EQ(
      member_of_record(spec, members, {{"OMPI_MCA_coll_tuned_allreduce_algorithm", "default"}}), 0);
  EXPECT_EQ(member_of_record(spec, members, {{"OMPI_MCA_coll_tuned_allreduce_algorithm", "5"}}),
            -1);
  EXPECT_EQ(member_of_record(spec, members, {}), -1);
  // A group of one is an ordinary launch: the knob in the environment, no setting flag.
  const Launch alone = build_group_launch(spec, {members[1]}, "/bin/colltune", "/r/x.jsonl");
  EXPECT_EQ(alone.env.at("OMPI_MCA_coll_tuned_allreduce_algorithm"), "3");
  EXPECT_EQ(std::count(alone.argv.begin(), alone.argv.end(), "--interleave-set"), 0);
}

TEST(SweepGroups, NcclAlgoAxesGroupTheNcclPointsAndLeaveMpiOnesAlone) {
  const SweepSpec spec = parse_spec(R"(
env: {NCCL_PROTO: Simple}
benchmark: {collectives: allreduce, max_bytes: 1M}
axes:
  backend: [mpi, nccl]
  NCCL_ALGO: [null, Ring, '^Tree,Ring']
interleave: [NCCL_ALGO]
)",
                                    "s.yaml");
  const std::vector<Point> points = expand(spec);
  ASSERT_EQ(points.size(), 6u);
  const auto groups = launch_groups(spec, points);
  ASSERT_EQ(groups.size(), 3u + 1u);  // each mpi point alone, the three nccl ones together
  std::vector<const Point*> members;
  for (const auto& group : groups) {
    if (group.size() == 1) continue;
    for (std::size_t i : group) members.push_back(&points[i]);
  }
  ASSERT_EQ(members.size(), 3u);
  EXPECT_EQ(members.front()->settings.at("backend"), "nccl");
  const Launch l = build_group_launch(spec, members, "/bin/colltune", "/r/x.jsonl");
  EXPECT_EQ(l.env.count("NCCL_ALGO"), 0u);
  EXPECT_EQ(l.env.at("NCCL_PROTO"), "Simple");  // the spec's env: set at launch
  const std::vector<std::string> tail(l.argv.end() - 6, l.argv.end());
  EXPECT_EQ(tail, (std::vector<std::string>{"--interleave-set", "NCCL_ALGO=default",
                                            "--interleave-set", "NCCL_ALGO=Ring",
                                            "--interleave-set", "NCCL_ALGO=^Tree,Ring"}));
  EXPECT_EQ(member_of_record(spec, members, {{"NCCL_ALGO", "^Tree,Ring"}}), 2);
  EXPECT_EQ(member_of_record(spec, members, {{"NCCL_ALGO", "Tree"}}), -1);
}

}  // namespace
}  // namespace colltune
