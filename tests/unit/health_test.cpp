// colltune health's plan and verdict rule on synthetic pair matrices, with figures made outside
// the rule (a seeded noise model), and the per-rank samples the pairs are cut from.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>

#include "health/health_logs.hpp"
#include "health/health_run.hpp"
#include "health/health_verdict.hpp"
#include "health/ib_findings.hpp"
#include "report/straggler.hpp"
#include "store/record.hpp"

namespace colltune {
namespace {

TEST(HealthPlan, RoundRobinMeetsEveryPairOnceInDisjointRounds) {
  for (int n = 2; n <= 11; ++n) {
    std::set<NodePair> seen;
    const auto rounds = all_pair_rounds(n);
    EXPECT_EQ(rounds.size(), static_cast<std::size_t>(n % 2 == 0 ? n - 1 : n)) << n;
    for (const PairRound& round : rounds) {
      std::set<int> busy;
      for (const auto& [a, b] : round) {
        EXPECT_LT(a, b);
        EXPECT_TRUE(busy.insert(a).second && busy.insert(b).second) << "node twice in a round";
        EXPECT_TRUE(seen.insert({a, b}).second) << "pair twice";
      }
    }
    EXPECT_EQ(seen.size(), static_cast<std::size_t>(n * (n - 1) / 2)) << n;  // C(n, 2)
  }
}

TEST(HealthPlan, MatchingsPutEveryNodeInKPairsAndRepeatForASeed) {
  const auto rounds = matching_rounds(40, 3, 7);
  ASSERT_EQ(rounds.size(), 3u);
  std::vector<int> pairs_of(40, 0);
  for (const PairRound& round : rounds) {
    EXPECT_EQ(round.size(), 20u);
    std::set<int> busy;
    for (const auto& [a, b] : round) {
      EXPECT_TRUE(busy.insert(a).second && busy.insert(b).second);
      ++pairs_of[static_cast<std::size_t>(a)];
      ++pairs_of[static_cast<std::size_t>(b)];
    }
  }
  for (int k : pairs_of) EXPECT_EQ(k, 3);
  EXPECT_EQ(matching_rounds(40, 3, 7), rounds);
  EXPECT_NE(matching_rounds(40, 3, 8), rounds);
  EXPECT_EQ(pair_rounds(33, 3, 7).size(), 3u);  // beyond 32 nodes: matchings
  EXPECT_EQ(pair_rounds(32, 3, 7).size(), 31u);
}

// Every pair of `nodes` measured in `launches` launches of 5 samples: a pair's time is
// base x slowdown x a launch effect (sd `launch_sd` in log) x a sample jitter (1%).
HealthInput synthetic(int nodes, int launches, double launch_sd, std::uint64_t seed,
                      const std::map<int, double>& slow_nodes = {},
                      const std::map<NodePair, double>& slow_links = {}) {
  std::mt19937_64 random(seed);
  std::normal_distribution<double> normal(0, 1);
  HealthInput in;
  for (int i = 0; i < nodes; ++i) in.nodes.push_back("n" + std::to_string(i));
  for (int a = 0; a < nodes; ++a) {
    for (int b = a + 1; b < nodes; ++b) {
      PairFigures f{{a, b}, {}};
      double factor = 1;
      for (const int n : {a, b}) {
        if (slow_nodes.count(n)) factor = std::max(factor, slow_nodes.at(n));
      }
      if (slow_links.count({a, b})) factor = std::max(factor, slow_links.at({a, b}));
      for (const char* metric : {"latency", "bw"}) {
        const double base = std::string(metric) == "bw" ? 1e-3 * factor : 5e-6;
        for (int l = 0; l < launches; ++l) {
          const double launch = base * std::exp(launch_sd * normal(random));
          std::vector<double> samples;
          for (int s = 0; s < 5; ++s) samples.push_back(launch * std::exp(0.01 * normal(random)));
          f.launches[metric].push_back(samples);
        }
      }
      in.pairs.push_back(f);
    }
  }
  return in;
}

int named(const HealthJudgement& j) {
  int count = 0;
  for (const auto& n : j.nodes) count += n.verdict != HealthVerdict::kOk;
  for (const auto& p : j.pairs) count += p.verdict != HealthVerdict::kOk;
  return count;
}

TEST(HealthVerdictRule, AHealthyNoisyFleetNamesNothing) {
  // 200 checks of 6 healthy nodes, 3% launch-to-launch noise, 2 launches a pair: the rule aims
  // at alpha 0.001 per check with a 15% effect floor, so no check should name anything.
  int alarms = 0;
  for (std::uint64_t seed = 1; seed <= 200; ++seed)
    alarms += named(judge_health(synthetic(6, 2, 0.03, seed))) > 0;
  EXPECT_EQ(alarms, 0);
}

TEST(HealthVerdictRule, OneSlowNodeIsNamedWithItsEvidence) {
  const HealthJudgement j = judge_health(synthetic(6, 2, 0.03, 11, {{3, 2.0}}));
  for (const NodeVerdict& v : j.nodes) {
    if (v.node == 3) {
      EXPECT_EQ(v.verdict, HealthVerdict::kSlow);
      EXPECT_EQ(v.worst.metric, "bw");
      EXPECT_EQ(v.slow_pairs, 5);
      EXPECT_EQ(v.judged_pairs, 5);
      EXPECT_NEAR(v.worst.ratio, 0.5, 0.05);  // half the speed: time 2.0x
      EXPECT_LT(v.worst.p, 0.001);
      EXPECT_FALSE(v.link_only);
    } else {
      EXPECT_EQ(v.verdict, HealthVerdict::kOk) << v.node;
      EXPECT_EQ(v.slow_pairs, 1) << v.node;  // its pair with node 3
    }
  }
}

TEST(HealthVerdictRule, OneSlowLinkIsTheLinkNotItsNodes) {
  const HealthJudgement j = judge_health(synthetic(5, 2, 0.03, 5, {}, {{{1, 3}, 1.6}}));
  for (const NodeVerdict& v : j.nodes) {
    EXPECT_EQ(v.verdict, HealthVerdict::kOk) << v.node;
    EXPECT_EQ(v.link_only, v.node == 1 || v.node == 3) << v.node;
  }
  int slow = 0;
  for (const PairVerdict& p : j.pairs) {
    if (p.verdict != HealthVerdict::kSlow) continue;
    ++slow;
    EXPECT_EQ(p.pair, (NodePair{1, 3}));
    EXPECT_NEAR(p.worst.ratio, 1 / 1.6, 0.05);
  }
  EXPECT_EQ(slow, 1);
}

// 4 nodes, every pair's 4 launches at log offsets +-a (sample sd a x sqrt(4/3) = 6.6%, the
// launch noise a healthy namespace cluster had when it named ct-node2 slow); `factor` per pair.
HealthInput four_nodes(const std::map<NodePair, double>& factor) {
  const double a = 0.066 / std::sqrt(4.0 / 3.0);
  HealthInput in;
  for (int i = 0; i < 4; ++i) in.nodes.push_back("n" + std::to_string(i));
  for (int x = 0; x < 4; ++x) {
    for (int y = x + 1; y < 4; ++y) {
      PairFigures f{{x, y}, {}};
      const double base = 0.025 * (factor.count({x, y}) ? factor.at({x, y}) : 1.0);
      for (int l = 0; l < 4; ++l) f.launches["bibw"].push_back({base * std::exp(l % 2 ? a : -a)});
      in.pairs.push_back(f);
    }
  }
  return in;
}

TEST(HealthVerdictRule, NodesWhoseFiguresShareAPairDoNotHideTheLaunchNoise) {
  // Pairs 0-1 and 1-2 1.28x (log 0.247) in all 4 launches, t = 0.247 / (0.066 / 2) = 7.5: the
  // node figures (lower medians of their pairs) are 0, 0.247, 0, 0, so their MAD is 0, and with
  // no other spread node 1 was slow in 2 of 3 pairs. 5 launch sds (0.33) hold it.
  const HealthJudgement j = judge_health(four_nodes({{{0, 1}, 1.28}, {{1, 2}, 1.28}}));
  for (const NodeVerdict& v : j.nodes) EXPECT_EQ(v.verdict, HealthVerdict::kOk) << v.node;
  for (const PairVerdict& p : j.pairs) EXPECT_EQ(p.verdict, HealthVerdict::kOk);
  // A node at half the rate (log 0.69, beyond 0.33) is still named, in all 3 of its pairs.
  const HealthJudgement half = judge_health(four_nodes({{{0, 3}, 2}, {{1, 3}, 2}, {{2, 3}, 2}}));
  EXPECT_EQ(half.nodes[3].verdict, HealthVerdict::kSlow);
  EXPECT_EQ(half.nodes[3].slow_pairs, 3);
  for (int n : {0, 1, 2})
    EXPECT_EQ(half.nodes[static_cast<std::size_t>(n)].verdict, HealthVerdict::kOk);
}

TEST(HealthVerdictRule, ANodeMissingFromEveryPairIsFailedAndTheRestJudged) {
  HealthInput in = synthetic(5, 2, 0.03, 9);
  std::erase_if(in.pairs,
                [](const PairFigures& f) { return f.pair.first == 2 || f.pair.second == 2; });
  in.failed[2] = "hung: no end within 60 s";
  const HealthJudgement j = judge_health(in);
  EXPECT_EQ(j.nodes[2].verdict, HealthVerdict::kFailed);
  EXPECT_EQ(j.nodes[2].reason, "hung: no end within 60 s");
  for (int n : {0, 1, 3, 4})
    EXPECT_EQ(j.nodes[static_cast<std::size_t>(n)].verdict, HealthVerdict::kOk);
  in.failed.clear();  // missing and not known to have failed: nothing can be said of it
  EXPECT_EQ(judge_health(in).nodes[2].verdict, HealthVerdict::kNotJudged);
}

TEST(HealthVerdictRule, OneLaunchAPairDecidesNothing) {
  const HealthJudgement j = judge_health(synthetic(6, 1, 0.03, 3, {{0, 2.0}}));
  EXPECT_EQ(j.nodes[0].verdict, HealthVerdict::kOk);
  EXPECT_FALSE(j.notes.empty());
}

TEST(HealthFigures, PairsAreCutFromWhereTheRanksRan) {
  Record bw;
  bw.kind = CollKind::kUniBw;
  bw.bytes = 1 << 20;
  bw.algbw_bytes = 8.0 * (1 << 20);
  bw.samples_seconds = {4, 4};
  // Ranks 0-3 on nodes 3, 0, 1, 2: colltune run pairs rank 0 with 2 and 1 with 3, so the pairs
  // are nodes (1, 3) and (0, 2), each sample the slower rank's.
  bw.rank_samples_seconds = {{1, 4}, {2, 2}, {3, 1}, {2.5, 0.5}};
  Record latency = bw;
  latency.kind = CollKind::kPingpong;
  latency.bytes = 8;
  HealthInput in;
  in.nodes = {"a", "b", "c", "d"};
  EXPECT_EQ(add_launch_figures(in, {bw, latency}, {3, 0, 1, 2}, 8), 8.0 * (1 << 20));
  ASSERT_EQ(in.pairs.size(), 2u);
  std::map<NodePair, PairFigures> by_pair;
  for (const auto& f : in.pairs) by_pair[f.pair] = f;
  EXPECT_EQ(by_pair.at({1, 3}).launches.at("bw"), (LaunchSamples{{3, 4}}));
  EXPECT_EQ(by_pair.at({0, 2}).launches.at("bw"), (LaunchSamples{{2.5, 2}}));
  EXPECT_EQ(by_pair.at({0, 2}).launches.at("latency"), (LaunchSamples{{2.5, 2}}));
  // A rank on no known node, or both of a pair on one node, measures no pair.
  HealthInput none;
  add_launch_figures(none, {bw}, {0, 0, 0, -1}, 8);
  EXPECT_TRUE(none.pairs.empty());
}

TEST(HealthLog, RollCallNamesTheSilentHosts) {
  const std::vector<std::string> log = {
      "colltune: rank 0 on n1: bw float none of 1048576 B out-of-place did not finish within 20 "
      "s (--timeout); roll call: rank 3 on n4 does not answer (stopped, frozen or its host "
      "down), 3 other ranks do; aborting the job",
      "colltune: rank 1 on n2: ...; roll call: ranks 4-5 on n6, rank 7 on n8 do not answer (x)",
      "rank 9 on n9 does not answer, outside a roll call"};
  // The first report only: the second comes from a rank continued at teardown.
  EXPECT_EQ(silent_hosts_in_log(log), (std::vector<std::string>{"n4"}));
  EXPECT_EQ(silent_hosts_in_log({log[2], log[1], log[0]}), (std::vector<std::string>{"n6", "n8"}));
}

TEST(HealthLog, HostsMatchWholeOrByTheirShortName) {
  const std::vector<std::string> hosts = {"n1.cluster", "n2", "n10"};
  EXPECT_EQ(node_index(hosts, "n1.cluster"), 0);
  EXPECT_EQ(node_index(hosts, "n1"), 0);              // the launcher printed the short name
  EXPECT_EQ(node_index(hosts, "n2.cluster.org"), 1);  // or the long one
  EXPECT_EQ(node_index(hosts, "n1.other"), 0);
  EXPECT_EQ(node_index(hosts, "n"), -1);  // a prefix is not a match
  EXPECT_EQ(node_index(hosts, "n3"), -1);
}

// A fake /sys/class/infiniband: one port with a state, a rate and two counters.
std::string fake_port(const std::string& root, const std::string& state, const std::string& rate,
                      int symbol_errors, const char* rcv_errors = "0") {
  namespace fs = std::filesystem;
  const fs::path port = fs::path(root) / "mlx5_0" / "ports" / "1";
  fs::create_directories(port / "counters");
  std::ofstream(port / "state") << state << "\n";
  std::ofstream(port / "rate") << rate << "\n";
  std::ofstream(port / "link_layer") << "InfiniBand\n";
  std::ofstream(port / "counters" / "symbol_error") << symbol_errors << "\n";
  std::ofstream(port / "counters" / "port_rcv_errors") << rcv_errors << "\n";
  return root;
}

TEST(HealthPorts, DownSlowerAndCountingPortsAreNamedFromFakeTrees) {
  const std::string dir = testing::TempDir() + "/colltune-ib-" + std::to_string(::getpid());
  const std::string hdr = "200 Gb/sec (4X HDR)";
  std::map<int, std::vector<IbPort>> before, after;
  // Node 0 fine; 1 trained at 100 Gb/s; 2 counts 7 symbol errors during the check; 3 down.
  before[0] = read_ib_ports(fake_port(dir + "/b0", "4: ACTIVE", hdr, 5));
  before[1] = read_ib_ports(fake_port(dir + "/b1", "4: ACTIVE", "100 Gb/sec (2X HDR)", 0));
  before[2] = read_ib_ports(fake_port(dir + "/b2", "4: ACTIVE", hdr, 3));
  before[3] = read_ib_ports(fake_port(dir + "/b3", "1: DOWN", hdr, 0));
  before[4] = read_ib_ports(fake_port(dir + "/b4", "4: ACTIVE", hdr, 0, "N/A"));
  after[0] = read_ib_ports(fake_port(dir + "/a0", "4: ACTIVE", hdr, 5));
  after[1] = before[1];
  after[2] = read_ib_ports(fake_port(dir + "/a2", "4: ACTIVE", hdr, 10));
  after[3] = before[3];
  after[4] = read_ib_ports(fake_port(dir + "/a4", "4: ACTIVE", hdr, 0, "9"));
  ASSERT_EQ(before[0].size(), 1u);
  EXPECT_EQ(before[0][0].counters.at("symbol_error"), 5u);
  EXPECT_EQ(before[4][0].counters.count("port_rcv_errors"), 0u);  // "N/A" is no number
  const auto found = port_findings(before, after);
  EXPECT_EQ(found.count(0), 0u);
  ASSERT_EQ(found.count(1), 1u);
  EXPECT_EQ(found.at(1).front(),
            "mlx5_0/1 runs at 100 Gb/sec (2X HDR) while most ports run at 200 Gb/sec");
  ASSERT_EQ(found.count(2), 1u);
  EXPECT_EQ(found.at(2).front(), "mlx5_0/1 counted 7 symbol_error during the check");  // 10 - 3
  ASSERT_EQ(found.count(3), 1u);
  EXPECT_EQ(found.at(3).front(), "mlx5_0/1 is 1: DOWN");
  EXPECT_EQ(found.count(4), 0u);  // a counter unreadable before is no evidence
  EXPECT_EQ(ib_ports_from_json(to_json(before[2]))[0].counters, before[2][0].counters);
  std::filesystem::remove_all(dir);
}

TEST(StragglerWarnings, TheRankSlowestInMostSamplesIsNamedWithItsHost) {
  Dataset d;
  d.contexts["p"] = {
      {"placement",
       {{{"rank", 0}, {"host", "a"}}, {{"rank", 1}, {"host", "b"}}, {{"rank", 2}, {"host", "c"}}}}};
  Record r;
  r.point_id = "p";
  r.collective = "allreduce";
  r.bytes = 1024;
  r.samples_seconds = {1.5, 1.5, 1.5, 1.5};
  // Rank 2 at 1.5 in every sample, the others at 1.0: 1.5x the median rank's (1.0).
  r.rank_samples_seconds = {{1.0, 1.0, 1.0, 1.0}, {1.0, 1.1, 0.9, 1.0}, {1.5, 1.5, 1.5, 1.5}};
  d.records.push_back(r);
  auto w = straggler_warnings(d);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].first, "p");
  EXPECT_EQ(w[0].second.rfind("rank 2 on c lags: its median sample 1.50x the median rank's", 0), 0u)
      << w[0].second;
  // Slowest by as much, but in only half the samples: noise, not a straggler.
  d.records[0].rank_samples_seconds = {
      {1.0, 1.0, 1.0, 1.0}, {1.0, 1.6, 1.0, 1.6}, {1.6, 1.0, 1.6, 1.0}};
  EXPECT_TRUE(straggler_warnings(d).empty());
  // 5% above the others in every sample: under the 10% a lag needs.
  d.records[0].rank_samples_seconds = {{1.0, 1.0}, {1.0, 1.0}, {1.05, 1.05}};
  d.records[0].samples_seconds = {1.05, 1.05};
  EXPECT_TRUE(straggler_warnings(d).empty());
}

TEST(RecordCodec, RankSamplesRoundTripAndMustMatchTheSamples) {
  Measurement m;
  m.coll.kind = CollKind::kPingpong;
  m.coll.count = 2;
  m.nranks = 2;
  m.bytes = 8;
  m.samples_seconds = {2e-6, 3e-6};
  m.rank_samples_seconds = {{1e-6, 3e-6}, {2e-6, 2.5e-6}};
  nlohmann::json j = make_record(m, RunContext{});
  const Record r = record_from_json(j, "t");
  EXPECT_EQ(r.rank_samples_seconds, m.rank_samples_seconds);
  j["rank_samples_seconds"][1] = {2e-6};
  EXPECT_THROW(record_from_json(j, "t"), std::exception);
  j["rank_samples_seconds"] = {{1e-6, 3e-6}, {2e-6, 2.5e-6}, {1e-6, 1e-6}};  // 3 lists, 2 ranks
  EXPECT_THROW(record_from_json(j, "t"), std::exception);
  m.rank_samples_seconds.clear();
  EXPECT_TRUE(make_record(m, RunContext{}).at("rank_samples_seconds").is_null());
}

}  // namespace
}  // namespace colltune
