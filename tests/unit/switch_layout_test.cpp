// Slurm's topology.conf and host lists (expected hosts written out by hand from Slurm's
// documented expansion), and the rule that names a leaf switch's uplinks, on synthetic fleets
// drawn outside the rule (a seeded noise model, health's own pair planner).
#include "health/switch_layout.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "core/errors.hpp"
#include "health/health_alone.hpp"
#include "health/health_plan.hpp"

namespace colltune {
namespace {

TEST(SwitchLayout, HostListsExpandAsSlurmDoes) {
  EXPECT_EQ(expand_hostlist("gpu[001-003,010],login1", "f"),
            (std::vector<std::string>{"gpu001", "gpu002", "gpu003", "gpu010", "login1"}));
  EXPECT_EQ(expand_hostlist("n[8-11]-ib", "f"),
            (std::vector<std::string>{"n8-ib", "n9-ib", "n10-ib", "n11-ib"}));
  for (const char* bad : {"n[3-1]", "n[a-b]", "n[1-2", "n[1][2]", "a,,b"}) {
    EXPECT_THROW(expand_hostlist(bad, "f"), ConfigError) << bad;
  }
}

TEST(SwitchLayout, TopologyConfGivesEachHostItsLeaf) {
  const auto leaf = read_topology_conf(
      "# two leaves under one spine\n"
      "SwitchName=leaf1 Nodes=n[1-2]\n"
      "SwitchName=leaf2 Nodes=n[3-4] LinkSpeed=400\n"
      "SwitchName=spine Switches=leaf[1-2]\n",
      "topology.conf");
  EXPECT_EQ(leaf, (std::map<std::string, std::string>{
                      {"n1", "leaf1"}, {"n2", "leaf1"}, {"n3", "leaf2"}, {"n4", "leaf2"}}));
  try {
    read_topology_conf("SwitchName=a Nodes=n1\nSwitchName=b Nodes=n[1-2]\n", "t.conf");
    ADD_FAILURE() << "a host under two switches was taken";
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(),
                 "t.conf:2: n1 is under a and b; allowed: each host under one leaf switch");
  }
  EXPECT_THROW(read_topology_conf("Nodes=n1\n", "t.conf"), ConfigError);
}

// 64 nodes under 4 leaves of 16, health's 3 matchings, 2 launches a pair at 3% launch noise.
// `bad_leaf` >= 0: one of its 4 uplinks is at half rate, so a pair leaving that leaf is slow
// where ECMP hashes it onto that uplink (a fixed hash of the pair: a quarter of them); `bad_pair`
// set: only that pair is slow.
HealthInput fabric(std::uint64_t seed, int bad_leaf, NodePair bad_pair = {-1, -1},
                   int leaf_nodes = 16) {
  std::mt19937_64 random(seed);
  std::normal_distribution<double> normal(0, 1);
  HealthInput in;
  for (int n = 0; n < 64; ++n) {
    in.nodes.push_back("n" + std::to_string(n));
    in.switch_of.push_back("leaf" + std::to_string(n / leaf_nodes));
  }
  for (const PairRound& round : pair_rounds(64, 3, seed)) {
    for (const NodePair& p : round) {
      const bool leaves_bad = bad_leaf >= 0 && (p.first / leaf_nodes == bad_leaf) !=
                                                   (p.second / leaf_nodes == bad_leaf);
      const bool slow = (leaves_bad && (p.first * 31 + p.second) % 4 == 0) || p == bad_pair;
      PairFigures f{p, {}};
      for (int l = 0; l < 2; ++l) {
        const double launch = 1e-3 * (slow ? 2 : 1) * std::exp(0.03 * normal(random));
        f.launches["bw"].push_back({launch, launch * 1.01, launch * 0.99});
      }
      in.pairs.push_back(f);
    }
  }
  return in;
}

TEST(SwitchLayout, ABadUplinkNamesItsLeafAndNothingElse) {
  int named_right = 0, healthy_named = 0, one_pair_named = 0;
  HealthInput in;
  for (std::uint64_t seed = 1; seed <= 50; ++seed) {
    in = fabric(seed, 2);
    const auto uplinks = judge_uplinks(in, judge_all_stages(in, {}));
    named_right += uplinks.size() == 1 && uplinks[0].leaf == "leaf2" &&
                   uplinks[0].slow_within == 0 && uplinks[0].slow_crossing >= kUplinkMinSlowPairs;
    in = fabric(seed, -1);
    healthy_named += !judge_uplinks(in, judge_all_stages(in, {})).empty();
    // One slow pair is a cable or port of its own, not a switch's uplinks.
    in = fabric(seed, -1, in.pairs[5].pair);
    const HealthJudgement j = judge_all_stages(in, {});
    one_pair_named += !judge_uplinks(in, j).empty();
  }
  EXPECT_GE(named_right, 48);
  EXPECT_EQ(healthy_named, 0);
  EXPECT_EQ(one_pair_named, 0);
  // Two leaves of 32: every pair leaving one enters the other, so both are named, each saying
  // the other ties with it.
  in = fabric(3, 0, {-1, -1}, 32);
  const auto both = judge_uplinks(in, judge_all_stages(in, {}));
  ASSERT_EQ(both.size(), 2u);
  EXPECT_EQ(both[0].tied, std::vector<std::string>{both[1].leaf});
  EXPECT_EQ(both[1].tied, std::vector<std::string>{both[0].leaf});
  // Without a layout nothing is judged.
  in = fabric(1, 2);
  in.switch_of.clear();
  EXPECT_TRUE(judge_uplinks(in, judge_all_stages(in, {})).empty());
}

}  // namespace
}  // namespace colltune
