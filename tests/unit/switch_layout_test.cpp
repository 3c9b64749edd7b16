// Slurm's topology.conf and host lists (expected hosts written out by hand from Slurm's
// documented expansion), and the rule that names a leaf switch's uplinks, on synthetic fleets
// drawn outside the rule (a seeded noise model, health's own pair planner).
#include "health/switch_layout.hpp"

#include <gtest/gtest.h>

#include <algorithm>
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
  for (const char* bad : {"n[3-1]", "n[a-b]", "n[1-2", "n[1][2]", "a,,b", "n[1-999999999]"}) {
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
// set: only that pair is slow. `uplinks` 1: every pair leaving the bad leaf is slow. Every node
// is fine alone (a memcpy a launch, 3% noise).
HealthInput fabric(std::uint64_t seed, int bad_leaf, NodePair bad_pair = {-1, -1},
                   int leaf_nodes = 16, int uplinks = 4) {
  std::mt19937_64 random(seed);
  std::normal_distribution<double> normal(0, 1);
  HealthInput in;
  for (int n = 0; n < 64; ++n) {
    in.nodes.push_back("n" + std::to_string(n));
    in.switch_of.push_back("leaf" + std::to_string(n / leaf_nodes));
    AloneFigures alone{n, {}};
    for (int l = 0; l < 2; ++l)
      alone.launches["memcpy"].push_back({0.1 * std::exp(0.03 * normal(random))});
    in.alone.push_back(alone);
  }
  for (const PairRound& round : pair_rounds(64, 3, seed)) {
    for (const NodePair& p : round) {
      const bool leaves_bad = bad_leaf >= 0 && (p.first / leaf_nodes == bad_leaf) !=
                                                   (p.second / leaf_nodes == bad_leaf);
      const bool slow = (leaves_bad && (p.first * 31 + p.second) % uplinks == 0) || p == bad_pair;
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
  // One uplink only: every pair leaving leaf 1 is slow, so its nodes are slow in their pairs and
  // ok alone. Rather than 16 cables at once: leaf 1's uplinks, and every node ok, not drained
  // (those elsewhere drawn twice with leaf 1's nodes too).
  in = fabric(4, 1, {-1, -1}, 16, 1);
  HealthJudgement j = judge_all_stages(in, {});
  int network_paths = 0;
  for (const NodeVerdict& v : j.nodes)
    network_paths += v.verdict == HealthVerdict::kSlow && v.network_path;
  EXPECT_GE(network_paths, kUplinkMinNodes);
  attribute_to_uplinks(in, j);
  int behind = 0;
  for (const NodeVerdict& v : j.nodes) {
    EXPECT_EQ(v.verdict, HealthVerdict::kOk) << v.node;
    EXPECT_TRUE(v.behind_uplink.empty() || v.behind_uplink == "leaf1") << v.node;
    behind += v.node / 16 == 1 && v.behind_uplink == "leaf1";
  }
  EXPECT_GE(behind, kUplinkMinNodes);
  const auto leaf1 = judge_uplinks(in, j);
  ASSERT_EQ(leaf1.size(), 1u);
  EXPECT_EQ(leaf1[0].leaf, "leaf1");
  // Two such nodes under one leaf are two cables, not an uplink: they stay named.
  in = fabric(4, -1);
  for (PairFigures& f : in.pairs) {
    if (f.pair.first == 17 || f.pair.second == 17 || f.pair.first == 18 || f.pair.second == 18) {
      for (auto& samples : f.launches["bw"]) {
        for (double& x : samples) x *= 2;
      }
    }
  }
  j = judge_all_stages(in, {});
  attribute_to_uplinks(in, j);
  EXPECT_EQ(j.nodes[17].verdict, HealthVerdict::kSlow);
  EXPECT_TRUE(j.nodes[17].network_path);
  EXPECT_TRUE(j.nodes[17].behind_uplink.empty());
  // Three such nodes under one leaf, two of them measured together and slow there too: cables
  // or the switch itself, not its uplinks. They stay named.
  in = fabric(5, -1);
  const auto within = std::find_if(in.pairs.begin(), in.pairs.end(), [](const PairFigures& f) {
    return f.pair.first / 16 == f.pair.second / 16;
  });
  ASSERT_NE(within, in.pairs.end());
  const int a = within->pair.first, b = within->pair.second;
  int c = (a / 16) * 16;
  while (c == a || c == b) ++c;
  for (PairFigures& f : in.pairs) {
    for (const int bad : {a, b, c}) {
      if (f.pair.first != bad && f.pair.second != bad) continue;
      for (auto& samples : f.launches["bw"]) {
        for (double& x : samples) x *= 2;
      }
      break;
    }
  }
  j = judge_all_stages(in, {});
  attribute_to_uplinks(in, j);
  for (const int bad : {a, b, c}) {
    EXPECT_EQ(j.nodes[static_cast<std::size_t>(bad)].verdict, HealthVerdict::kSlow) << bad;
    EXPECT_TRUE(j.nodes[static_cast<std::size_t>(bad)].behind_uplink.empty()) << bad;
  }
  // Without a layout nothing is judged.
  in = fabric(1, 2);
  in.switch_of.clear();
  EXPECT_TRUE(judge_uplinks(in, judge_all_stages(in, {})).empty());
}

}  // namespace
}  // namespace colltune
