// colltune health's confirmation pass on synthetic fleets: pair figures drawn from a seeded model
// (node and link slowdowns, launch-to-launch noise) made outside the rule, judged by the rule.
#include "health/health_confirm.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <random>

#include "health/health_alone.hpp"
#include "health/health_plan.hpp"
#include "health/health_verdict.hpp"

namespace colltune {
namespace {

struct Fleet {
  int nodes = 16;
  std::map<int, double> slow_nodes;       // node -> time factor (1.25: 20% slower)
  std::map<NodePair, double> slow_links;  // pair -> time factor
  double launch_sd = 0.03;                // log sd between launches
  int launches = 2;
};

// Adds `pairs`' figures to `in`, each pair a unit of its own: launches of 5 samples, latency
// and bw, a pair as slow as its slower node or its link.
void measure(HealthInput& in, const std::vector<NodePair>& pairs, const Fleet& f,
             std::mt19937_64& random) {
  std::normal_distribution<double> normal(0, 1);
  for (const NodePair& p : pairs) {
    PairFigures figures{p, {}};
    double factor = 1;
    for (const int n : {p.first, p.second}) {
      if (f.slow_nodes.count(n)) factor = std::max(factor, f.slow_nodes.at(n));
    }
    if (f.slow_links.count(p)) factor = std::max(factor, f.slow_links.at(p));
    for (const char* metric : {"latency", "bw"}) {
      const double base = std::string(metric) == "bw" ? 1e-3 * factor : 5e-6;
      for (int l = 0; l < f.launches; ++l) {
        const double launch = base * std::exp(f.launch_sd * normal(random));
        std::vector<double> samples;
        for (int s = 0; s < 5; ++s) samples.push_back(launch * std::exp(0.01 * normal(random)));
        figures.launches[metric].push_back(samples);
      }
    }
    in.pairs.push_back(figures);
  }
}

struct Check {
  HealthJudgement first, final;
  ConfirmationPlan plan;
};

// One whole check: 3 random matchings, judged; the suspects paired again; judged again.
Check check(const Fleet& f, std::uint64_t seed) {
  std::mt19937_64 random(seed);
  HealthInput in;
  for (int i = 0; i < f.nodes; ++i) in.nodes.push_back("n" + std::to_string(i));
  for (const PairRound& round : matching_rounds(f.nodes, 3, seed)) measure(in, round, f, random);
  Check c;
  c.first = judge_health(in);
  c.final = c.first;
  c.plan = plan_confirmation(in, c.first);
  HealthInput confirm;
  confirm.nodes = in.nodes;
  for (const PairRound& round : c.plan.rounds) measure(confirm, round, f, random);
  apply_confirmation(c.final, in, confirm, c.plan, HealthRule{});
  return c;
}

int named_nodes(const HealthJudgement& j) {
  int n = 0;
  for (const NodeVerdict& v : j.nodes) n += v.verdict == HealthVerdict::kSlow;
  return n;
}

TEST(HealthConfirm, AFleetOfEqualsWithNoiseNamesNothingOver1000Checks) {
  int alarms = 0, suspects = 0;
  for (std::uint64_t seed = 1; seed <= 1000; ++seed) {
    const Check c = check(Fleet{}, seed);
    alarms += named_nodes(c.final) > 0;
    suspects += !c.plan.nodes.empty();
    for (const PairVerdict& p : c.final.pairs) alarms += p.verdict == HealthVerdict::kSlow;
  }
  EXPECT_EQ(alarms, 0);
  EXPECT_EQ(suspects, 0);  // nothing to pay for: no confirmation launch in a healthy fleet
}

TEST(HealthConfirm, ANodeTwentyPercentSlowIsNamedAndConfirmed) {
  Fleet f;
  f.slow_nodes = {{5, 1.25}};
  int confirmed = 0;
  for (std::uint64_t seed = 1; seed <= 100; ++seed) {
    const Check c = check(f, seed);
    const NodeVerdict& v = c.final.nodes[5];
    if (v.verdict == HealthVerdict::kSlow && v.confirm_judged == kConfirmPartners &&
        named_nodes(c.final) == 1)
      ++confirmed;
    // Its partners were judged ok and were fresh: not the nodes of its first pairs.
    for (const PairRound& round : c.plan.rounds) {
      for (const NodePair& p : round) {
        if (p.first != 5 && p.second != 5) continue;
        const int partner = p.first == 5 ? p.second : p.first;
        EXPECT_EQ(c.first.nodes[static_cast<std::size_t>(partner)].verdict, HealthVerdict::kOk);
      }
    }
  }
  EXPECT_GE(confirmed, 95);  // 98 here: seed 18's first pass misses it, seed 92's fresh pairs
}

TEST(HealthConfirm, OneBadLinkWithNoiseIsNotTurnedIntoANode) {
  // Node 0's first pairs: a bad link to 1, a noisy slow launch pair with 2, fine with 3. Slow in
  // 2 of 3, the first pass names it; its fresh pairs (with 4..7) are fine, so it is cleared and
  // the link stays the link.
  Fleet f;
  f.nodes = 8;
  f.slow_links = {{{0, 1}, 1.6}};
  std::mt19937_64 random(3);
  HealthInput in;
  for (int i = 0; i < f.nodes; ++i) in.nodes.push_back("n" + std::to_string(i));
  measure(in,
          {{0, 1},
           {0, 3},
           {1, 2},
           {2, 3},
           {4, 5},
           {6, 7},
           {4, 6},
           {5, 7},
           {1, 4},
           {2, 5},
           {3, 6},
           {1, 7}},
          f, random);
  Fleet noisy = f;
  noisy.slow_links = {{{0, 2}, 1.3}};  // one pair's launches slow by chance, as noise can be
  measure(in, {{0, 2}}, noisy, random);
  const HealthJudgement first = judge_health(in);
  ASSERT_EQ(first.nodes[0].verdict, HealthVerdict::kSlow);
  const ConfirmationPlan plan = plan_confirmation(in, first);
  ASSERT_EQ(plan.nodes, std::vector<int>{0});
  HealthInput confirm;
  confirm.nodes = in.nodes;
  for (const PairRound& round : plan.rounds) measure(confirm, round, f, random);
  HealthJudgement j = first;
  apply_confirmation(j, in, confirm, plan, HealthRule{});
  EXPECT_EQ(j.nodes[0].verdict, HealthVerdict::kNotConfirmed);
  EXPECT_EQ(confirmed_suspects(plan, j), 0);
  EXPECT_EQ(j.nodes[0].confirm_slow, 0);
  EXPECT_EQ(j.nodes[0].confirm_judged, kConfirmPartners);
  EXPECT_EQ(named_nodes(j), 0);
  const auto link = std::find_if(j.pairs.begin(), j.pairs.end(), [](const PairVerdict& p) {
    return p.pair == NodePair{0, 1};
  });
  ASSERT_NE(link, j.pairs.end());
  EXPECT_EQ(link->verdict, HealthVerdict::kSlow);
}

TEST(HealthConfirm, ASuspectWithNoNodeJudgedOkCannotBeConfirmed) {
  HealthInput in;
  in.nodes = {"a", "b"};
  HealthJudgement j;
  j.nodes.resize(2);
  j.nodes[0].verdict = HealthVerdict::kSlow;
  j.nodes[1].node = 1;
  j.nodes[1].verdict = HealthVerdict::kFailed;
  const ConfirmationPlan plan = plan_confirmation(in, j);
  EXPECT_EQ(plan.impossible,
            "a is slow in its pairs, and no node was judged ok to pair it with again");
  EXPECT_TRUE(plan.rounds.empty());
}

TEST(HealthConfirm, ASuspectLinkIsMeasuredAgainAndClearedWhenFine) {
  Fleet f;
  f.nodes = 6;
  std::mt19937_64 random(9);
  HealthInput in;
  for (int i = 0; i < f.nodes; ++i) in.nodes.push_back("n" + std::to_string(i));
  Fleet once = f;
  once.slow_links = {{{2, 4}, 1.6}};  // slow in the first passes only
  for (const PairRound& round : all_pair_rounds(f.nodes)) measure(in, round, once, random);
  const HealthJudgement first = judge_health(in);
  const ConfirmationPlan plan = plan_confirmation(in, first);
  ASSERT_EQ(plan.links, (std::vector<NodePair>{{2, 4}}));
  ASSERT_TRUE(plan.nodes.empty());
  HealthInput confirm;
  confirm.nodes = in.nodes;
  for (const PairRound& round : plan.rounds) measure(confirm, round, f, random);
  HealthJudgement j = first;
  apply_confirmation(j, in, confirm, plan, HealthRule{});
  for (const PairVerdict& p : j.pairs) {
    if (p.pair != NodePair{2, 4}) continue;
    EXPECT_EQ(p.verdict, HealthVerdict::kNotConfirmed);
    EXPECT_EQ(p.confirm_verdict, HealthVerdict::kOk);
  }
  EXPECT_EQ(confirmed_suspects(plan, j), 0);
}

// Stage-1 figures of `nodes` nodes alone: `launches` launches of 5 samples of "allreduce bw",
// a node's time its factor x a launch effect; `first` the entries to start from.
std::vector<AloneFigures> alone_runs(int nodes, const std::map<int, double>& factor, int launches,
                                     std::mt19937_64& random) {
  std::normal_distribution<double> normal(0, 1);
  std::vector<AloneFigures> out;
  for (int n = 0; n < nodes; ++n) {
    AloneFigures a{n, {}};
    for (int l = 0; l < launches; ++l) {
      const double launch =
          1e-3 * (factor.count(n) ? factor.at(n) : 1.0) * std::exp(0.03 * normal(random));
      std::vector<double> samples;
      for (int s = 0; s < 5; ++s) samples.push_back(launch * std::exp(0.01 * normal(random)));
      a.launches["allreduce bw"].push_back(samples);
    }
    out.push_back(a);
  }
  return out;
}

TEST(HealthConfirm, ANodeSlowAloneIsRunAloneAgainAndNamedOnlyIfSlowAgain) {
  std::mt19937_64 random(4);
  HealthInput in;
  for (int i = 0; i < 8; ++i) in.nodes.push_back("n" + std::to_string(i));
  // Node 2 slow alone in the first passes (by chance, or for real), ok in its pairs.
  in.alone = alone_runs(8, {{2, 1.6}}, 2, random);
  for (const PairRound& round : all_pair_rounds(8)) measure(in, round, Fleet{}, random);
  HealthJudgement first = judge_health(in);
  first.alone = judge_alone(in.alone, HealthRule{}, first.notes);
  ASSERT_EQ(first.alone[2].verdict, HealthVerdict::kSlow);
  first.nodes[2].verdict = HealthVerdict::kSlow;  // as judge_all_stages joins them
  first.nodes[2].slow_alone = true;
  const ConfirmationPlan plan = plan_confirmation(in, first);
  ASSERT_EQ(plan.alone_nodes, std::vector<int>{2});
  ASSERT_TRUE(plan.nodes.empty() && plan.rounds.empty());
  for (const double again : {1.0, 1.6}) {
    HealthInput confirm;
    confirm.nodes = in.nodes;
    confirm.alone = {alone_runs(3, {{2, again}}, 2, random)[2]};
    HealthJudgement j = first;
    apply_confirmation(j, in, confirm, plan, HealthRule{});
    EXPECT_EQ(j.nodes[2].verdict, again > 1 ? HealthVerdict::kSlow : HealthVerdict::kNotConfirmed)
        << again;
    EXPECT_EQ(j.nodes[2].confirm_judged, 1);
    EXPECT_EQ(j.nodes[2].confirm_slow, again > 1 ? 1 : 0);
    EXPECT_EQ(confirmed_suspects(plan, j), again > 1 ? 1 : 0);
  }
}

// A node failed in the first passes (its ranks silent) is paired once with a node judged ok: it
// is named failed only if the fresh launch fails too; one that runs is "not confirmed", with
// both passes in its reason; one never launched again keeps its verdict, with a note.
TEST(HealthConfirm, AFailedNodeIsLaunchedAgainAndNamedOnlyIfItFailsAgain) {
  std::mt19937_64 random(5);
  HealthInput in;
  for (int i = 0; i < 6; ++i) in.nodes.push_back("n" + std::to_string(i));
  for (const PairRound& round : all_pair_rounds(5)) measure(in, round, Fleet{}, random);
  in.failed[5] = "n5 does not answer";
  const HealthJudgement first = judge_health(in);
  ASSERT_EQ(first.nodes[5].verdict, HealthVerdict::kFailed);
  const ConfirmationPlan plan = plan_confirmation(in, first);
  ASSERT_EQ(plan.failed_nodes, std::vector<int>{5});
  ASSERT_EQ(plan.rounds.size(), 1u);
  ASSERT_EQ(plan.rounds[0].size(), 1u);
  const NodePair fresh = plan.rounds[0][0];
  EXPECT_EQ(fresh.second, 5);
  EXPECT_EQ(first.nodes[static_cast<std::size_t>(fresh.first)].verdict, HealthVerdict::kOk);

  HealthInput ran;
  ran.nodes = in.nodes;
  measure(ran, {fresh}, Fleet{}, random);
  HealthJudgement j = first;
  apply_confirmation(j, in, ran, plan, HealthRule{});
  EXPECT_EQ(j.nodes[5].verdict, HealthVerdict::kNotConfirmed);
  EXPECT_TRUE(j.nodes[5].failed_first);
  EXPECT_EQ(j.nodes[5].reason, "failed in the first passes (" + first.nodes[5].reason +
                                   "); not confirmed: ran in 1 fresh pair(s)");
  EXPECT_EQ(confirmed_suspects(plan, j), 0);

  HealthInput hung;
  hung.nodes = in.nodes;
  hung.failed[5] = "n5 does not answer again";
  j = first;
  apply_confirmation(j, in, hung, plan, HealthRule{});
  EXPECT_EQ(j.nodes[5].verdict, HealthVerdict::kFailed);
  EXPECT_NE(j.nodes[5].reason.find("; failed again in a fresh pair: n5 does not answer again"),
            std::string::npos)
      << j.nodes[5].reason;
  EXPECT_EQ(confirmed_suspects(plan, j), 1);

  HealthInput none;
  none.nodes = in.nodes;
  j = first;
  apply_confirmation(j, in, none, plan, HealthRule{});
  EXPECT_EQ(j.nodes[5].verdict, HealthVerdict::kFailed);
  ASSERT_FALSE(j.notes.empty());
  EXPECT_EQ(j.notes.back(), "n5: not launched again; named failed on the first passes");
}

}  // namespace
}  // namespace colltune
