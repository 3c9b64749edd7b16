#include "health/health_confirm.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "health/health_alone.hpp"

namespace colltune {
namespace {

bool has(const NodePair& p, int node) { return p.first == node || p.second == node; }

NodePair ordered(int a, int b) { return {std::min(a, b), std::max(a, b)}; }

// Greedy rounds of disjoint pairs, in the given order.
std::vector<PairRound> pack_rounds(const std::vector<NodePair>& pairs) {
  std::vector<PairRound> rounds;
  std::vector<std::set<int>> busy;
  for (const NodePair& p : pairs) {
    std::size_t r = 0;
    while (r < rounds.size() && (busy[r].count(p.first) || busy[r].count(p.second))) ++r;
    if (r == rounds.size()) {
      rounds.emplace_back();
      busy.emplace_back();
    }
    rounds[r].push_back(p);
    busy[r].insert({p.first, p.second});
  }
  return rounds;
}

}  // namespace

ConfirmationPlan plan_confirmation(const HealthInput& in, const HealthJudgement& j, int partners) {
  ConfirmationPlan plan;
  std::vector<int> ok;
  for (const NodeVerdict& v : j.nodes) {
    if (v.verdict == HealthVerdict::kOk) ok.push_back(v.node);
    if (v.verdict == HealthVerdict::kSlow)
      (v.slow_alone ? plan.alone_nodes : plan.nodes).push_back(v.node);
  }
  for (const PairVerdict& p : j.pairs) {
    if (p.verdict != HealthVerdict::kSlow) continue;
    const auto& a = j.nodes[static_cast<std::size_t>(p.pair.first)];
    const auto& b = j.nodes[static_cast<std::size_t>(p.pair.second)];
    if (a.verdict == HealthVerdict::kOk && b.verdict == HealthVerdict::kOk)
      plan.links.push_back(p.pair);
  }
  std::set<NodePair> measured;
  for (const PairFigures& f : in.pairs) measured.insert(f.pair);
  std::vector<NodePair> pairs = plan.links;
  std::map<int, int> load;  // confirmation pairs each ok node already has
  for (const int suspect : plan.nodes) {
    if (ok.empty()) {
      plan.impossible =
          fmt::format("{} is slow in its pairs, and no node was judged ok to pair it with again",
                      in.nodes[static_cast<std::size_t>(suspect)]);
      return plan;
    }
    // Fresh partners first, then the least used: each confirmation spreads over the fleet.
    std::vector<int> order = ok;
    std::stable_sort(order.begin(), order.end(), [&](int x, int y) {
      const bool fx = measured.count(ordered(suspect, x)) == 0;
      const bool fy = measured.count(ordered(suspect, y)) == 0;
      return fx != fy ? fx : load[x] < load[y];
    });
    for (int k = 0; k < partners && k < static_cast<int>(order.size()); ++k) {
      pairs.push_back(ordered(suspect, order[static_cast<std::size_t>(k)]));
      ++load[order[static_cast<std::size_t>(k)]];
    }
  }
  for (const NodeVerdict& v : j.nodes) {
    if (v.verdict != HealthVerdict::kFailed || !in.failed.count(v.node) || ok.empty()) continue;
    plan.failed_nodes.push_back(v.node);
    // One partner, the least used: the question is whether it runs, not how fast.
    const int partner =
        *std::min_element(ok.begin(), ok.end(), [&](int x, int y) { return load[x] < load[y]; });
    pairs.push_back(ordered(v.node, partner));
    ++load[partner];
  }
  plan.rounds = pack_rounds(pairs);
  return plan;
}

void apply_confirmation(HealthJudgement& j, const HealthInput& first, const HealthInput& confirm,
                        const ConfirmationPlan& plan, const HealthRule& rule) {
  HealthInput all = first;
  all.failed_pairs.clear();  // judge_health lists them after the measured pairs
  const std::size_t base = all.pairs.size();
  all.pairs.insert(all.pairs.end(), confirm.pairs.begin(), confirm.pairs.end());
  const HealthJudgement again = judge_health(all, rule);
  std::vector<AloneFigures> alone = first.alone;
  const std::size_t alone_base = alone.size();
  alone.insert(alone.end(), confirm.alone.begin(), confirm.alone.end());
  std::vector<std::string> notes;
  const std::vector<AloneVerdict> alone_again = judge_alone(alone, rule, notes);
  for (const int node : plan.alone_nodes) {
    NodeVerdict& v = j.nodes[static_cast<std::size_t>(node)];
    v.confirm_slow = v.confirm_judged = 0;
    for (std::size_t k = alone_base; k < alone.size(); ++k) {
      if (alone[k].node != node || alone_again[k].verdict == HealthVerdict::kNotJudged) continue;
      ++v.confirm_judged;
      if (alone_again[k].verdict == HealthVerdict::kSlow) ++v.confirm_slow;
    }
    if (v.confirm_judged == 0) {
      j.notes.push_back(fmt::format("{}: not measured alone again; named on the first passes",
                                    first.nodes[static_cast<std::size_t>(node)]));
    } else if (v.confirm_slow == 0) {
      v.verdict = HealthVerdict::kNotConfirmed;
    }
  }
  for (const int node : plan.nodes) {
    NodeVerdict& v = j.nodes[static_cast<std::size_t>(node)];
    int slow = 0, judged = 0;
    for (std::size_t k = base; k < all.pairs.size(); ++k) {
      if (!has(all.pairs[k].pair, node) || again.pairs[k].verdict == HealthVerdict::kNotJudged)
        continue;
      ++judged;
      if (again.pairs[k].verdict == HealthVerdict::kSlow) ++slow;
    }
    v.confirm_slow = slow;
    v.confirm_judged = judged;
    if (judged == 0) {
      j.notes.push_back(
          fmt::format("{}: no confirmation pair was measured; named on the first "
                      "passes alone",
                      first.nodes[static_cast<std::size_t>(node)]));
    } else if (2 * slow <= judged) {
      v.verdict = HealthVerdict::kNotConfirmed;
    }
  }
  for (const int node : plan.failed_nodes) {
    NodeVerdict& v = j.nodes[static_cast<std::size_t>(node)];
    const auto ran = std::count_if(confirm.pairs.begin(), confirm.pairs.end(),
                                   [&](const PairFigures& f) { return has(f.pair, node); });
    std::string failed_again;
    if (const auto it = confirm.failed.find(node); it != confirm.failed.end())
      failed_again = it->second;
    for (const auto& [pair, why] : confirm.failed_pairs) {
      if (failed_again.empty() && has(pair, node)) failed_again = why;
    }
    if (ran > 0 && failed_again.empty()) {
      v.verdict = HealthVerdict::kNotConfirmed;
      v.failed_first = true;
      v.reason = fmt::format(
          "failed in the first passes ({}); not confirmed: ran in {} fresh "
          "pair(s)",
          v.reason, ran);
    } else if (!failed_again.empty()) {
      v.reason += "; failed again in a fresh pair: " + failed_again;
    } else {
      j.notes.push_back(fmt::format("{}: not launched again; named failed on the first passes",
                                    first.nodes[static_cast<std::size_t>(node)]));
    }
  }
  for (const NodePair& link : plan.links) {
    std::optional<HealthVerdict> seen;
    for (std::size_t k = base; k < all.pairs.size(); ++k) {
      if (all.pairs[k].pair == link) seen = again.pairs[k].verdict;
    }
    for (PairVerdict& p : j.pairs) {
      if (p.pair != link || p.verdict != HealthVerdict::kSlow) continue;
      p.confirm_verdict = seen;
      if (seen && *seen != HealthVerdict::kSlow && *seen != HealthVerdict::kNotJudged)
        p.verdict = HealthVerdict::kNotConfirmed;
    }
  }
}

int confirmed_suspects(const ConfirmationPlan& plan, const HealthJudgement& j) {
  int confirmed = 0;
  for (const auto* suspects : {&plan.nodes, &plan.alone_nodes}) {
    for (const int n : *suspects)
      confirmed += j.nodes[static_cast<std::size_t>(n)].verdict == HealthVerdict::kSlow;
  }
  for (const int n : plan.failed_nodes)
    confirmed += j.nodes[static_cast<std::size_t>(n)].verdict == HealthVerdict::kFailed;
  for (const NodePair& link : plan.links) {
    confirmed += std::any_of(j.pairs.begin(), j.pairs.end(), [&](const PairVerdict& p) {
      return p.pair == link && p.verdict == HealthVerdict::kSlow;
    });
  }
  return confirmed;
}

}  // namespace colltune
