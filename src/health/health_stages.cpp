// colltune health's stages, as HealthRun's members: every node alone, the pairs in rounds, the
// confirmation of what they named, and all nodes together.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <numeric>
#include <set>

#include "health/health_alone.hpp"
#include "health/health_args.hpp"
#include "health/health_confirm.hpp"
#include "health/health_run_class.hpp"

namespace colltune {

void HealthRun::add_pair_figures(const LaunchResult& l, HealthInput& into) {
  std::vector<int> nodes;
  for (const std::string& host : l.rank_hosts) nodes.push_back(node_of(host));
  bw_bytes_ = std::max(bw_bytes_, add_launch_figures(into, l.records, nodes, o_.small_bytes));
}

void HealthRun::measure_pairs(const PairRound& pairs, int pass, const std::string& stage,
                              HealthInput* into) {
  HealthInput& figures = into ? *into : r_.input;
  std::vector<std::string> first, second;
  std::vector<std::string> labels;
  for (const auto& [a, b] : pairs) {
    first.push_back(o_.hosts[static_cast<std::size_t>(a)]);
    second.push_back(o_.hosts[static_cast<std::size_t>(b)]);
    labels.push_back(fmt::format("{}-{}", first.back(), second.back()));
  }
  std::vector<std::string> hosts = first;
  hosts.insert(hosts.end(), second.begin(), second.end());
  const LaunchResult l = launch(stage, hosts, pass, stage_run_args(o_, HealthStage::kPairs),
                                fmt::format("{}", fmt::join(labels, " ")), o_.ranks_per_node);
  if (l.ran == Ran::kDone) return add_pair_figures(l, figures);
  if (l.ran == Ran::kNotRun) return;
  std::set<int> culprits;
  for (const std::string& h : l.silent) {
    const int n = node_of(h);
    if (n >= 0 &&
        std::find(hosts.begin(), hosts.end(), o_.hosts[static_cast<std::size_t>(n)]) != hosts.end())
      culprits.insert(n);
  }
  if (!culprits.empty()) {
    for (const int n : culprits) {
      r_.input.failed.emplace(n, l.reason);
      if (into) into->failed.emplace(n, l.reason);
      event(fmt::format("{} failed: {}", o_.hosts[static_cast<std::size_t>(n)], l.reason));
    }
    PairRound rest;
    for (const NodePair& p : pairs) {
      if (!culprits.count(p.first) && !culprits.count(p.second)) rest.push_back(p);
    }
    if (!rest.empty()) measure_pairs(rest, pass, stage, into);
    return;
  }
  if (pairs.size() > 1) {
    event(fmt::format("a launch of {} pairs failed naming no rank ({}): each pair alone",
                      pairs.size(), l.reason));
    for (const NodePair& p : pairs) measure_pairs({p}, pass, stage, into);
    return;
  }
  const bool unreachable = never_started(l.reason);
  figures.failed_pairs[pairs.front()] = (unreachable ? "unreachable: " : "") + l.reason;
  event(fmt::format("pair {} failed: {}", labels.front(), l.reason));
}

bool HealthRun::excluded(const NodePair& p) const {
  return r_.input.failed.count(p.first) || r_.input.failed.count(p.second) ||
         r_.input.unreachable.count(p.first) || r_.input.unreachable.count(p.second);
}

void HealthRun::measure_alone(const std::vector<int>& nodes, int pass, const std::string& stage,
                              HealthInput* into) {
  HealthInput& figures = into ? *into : r_.input;
  std::vector<std::string> args = stage_run_args(o_, HealthStage::kAlone);
  if (o_.alone_launch != "one" || nodes.size() == 1) {
    for (const int n : nodes) {
      if (out_of_time()) return;
      const std::string& host = o_.hosts[static_cast<std::size_t>(n)];
      const LaunchResult l = launch(stage, {host}, pass, args, host, o_.node_ranks);
      if (l.ran == Ran::kDone) {
        add_alone_figures(figures.alone, n, l.records, l.ceilings, o_.small_bytes);
      } else if (l.ran == Ran::kFailed && !into) {
        auto& verdicts = never_started(l.reason) ? r_.input.unreachable : r_.input.failed;
        verdicts.emplace(n, "alone: " + l.reason);
        event(fmt::format("{} failed alone: {}", host, l.reason));
      }
    }
    return;
  }
  std::vector<std::string> hosts;
  for (const int n : nodes) hosts.push_back(o_.hosts[static_cast<std::size_t>(n)]);
  args.insert(args.end(), {"--split", "host"});
  const LaunchResult l = launch(stage, hosts, pass, args,
                                fmt::format("{} nodes alone at once", hosts.size()), o_.node_ranks);
  if (l.ran == Ran::kDone) {
    std::vector<int> rank_nodes;
    for (const std::string& host : l.rank_hosts) rank_nodes.push_back(node_of(host));
    return add_split_alone_figures(figures.alone, rank_nodes, l.rank_hosts, l.records, l.ceilings,
                                   o_.small_bytes);
  }
  if (l.ran == Ran::kNotRun) return;
  std::vector<int> rest;
  for (const int n : nodes) {
    const std::string& host = o_.hosts[static_cast<std::size_t>(n)];
    if (std::find(l.silent.begin(), l.silent.end(), host) == l.silent.end()) {
      rest.push_back(n);
    } else if (!into) {
      r_.input.failed.emplace(n, "alone: " + l.reason);
      event(fmt::format("{} failed alone: {}", host, l.reason));
    }
  }
  if (rest.size() == nodes.size()) {
    event(fmt::format("a launch of {} nodes alone failed naming no rank ({}): each node alone",
                      nodes.size(), l.reason));
    for (const int n : nodes) measure_alone({n}, pass, stage, into);
  } else if (!rest.empty()) {
    measure_alone(rest, pass, stage, into);
  }
}

void HealthRun::alone_stage() {
  if (o_.alone != "on") {
    r_.stages.push_back("stage 1 (each node alone): not run (" + o_.alone + ")");
    return;
  }
  const double begun = elapsed();
  const int launches_before = r_.launches;
  for (int pass = 1; pass <= o_.max_passes && !out_of_time(); ++pass) {
    std::set<int> undecided;
    for (const AloneVerdict& v : r_.judgement.alone) {
      if (v.undecided) undecided.insert(v.node);
    }
    if (pass > o_.passes && undecided.empty()) break;
    std::vector<int> nodes;
    for (int n = 0; n < static_cast<int>(o_.hosts.size()); ++n) {
      if (!r_.input.failed.count(n) && !r_.input.unreachable.count(n) &&
          (pass <= o_.passes || undecided.count(n)))
        nodes.push_back(n);
    }
    if (!nodes.empty()) measure_alone(nodes, pass, "alone");
    if (pass >= o_.passes) r_.judgement = judge();
  }
  r_.stages.push_back(fmt::format(
      "stage 1 (each node alone): {} ranks a node, allreduce and alltoall at {} and {} B, "
      "memcpy, {}; {} launches, {:.1f} s",
      o_.node_ranks, o_.small_bytes, stage_large_bytes(o_),
      o_.alone_launch == "one" ? "every node at once, a communicator each" : "a launch per node",
      r_.launches - launches_before, elapsed() - begun));
}

void HealthRun::pairs_stage() {
  const double begun = elapsed();
  const int launches_before = r_.launches;
  const int n = static_cast<int>(o_.hosts.size());
  const std::vector<PairRound> rounds = pair_rounds(n, o_.matchings, o_.seed);
  for (int pass = 1; pass <= o_.max_passes; ++pass) {
    const bool extra = pass > o_.passes;
    std::set<NodePair> undecided;
    for (const PairVerdict& v : r_.judgement.pairs) {
      if (v.undecided) undecided.insert(v.pair);
    }
    if (extra && undecided.empty()) break;
    for (const PairRound& round : rounds) {
      PairRound todo;
      for (const NodePair& p : round) {
        if (!excluded(p) && !r_.input.failed_pairs.count(p) && (!extra || undecided.count(p)))
          todo.push_back(p);
      }
      if (!todo.empty()) measure_pairs(todo, pass);
      if (out_of_time()) break;
    }
    if (pass >= o_.passes) r_.judgement = judge();
    if (out_of_time()) break;
  }
  if (r_.judgement.nodes.empty()) r_.judgement = judge();
  r_.stages.push_back(
      fmt::format("stage 2 (node pairs): {} rounds of disjoint pairs ({}), {} launches, {:.1f} s",
                  rounds.size(),
                  n <= kAllPairsMaxNodes ? "every pair"
                                         : fmt::format("{} random perfect matchings", o_.matchings),
                  r_.launches - launches_before, elapsed() - begun));
}

void HealthRun::confirm_stage() {
  if (o_.confirm != "on" || out_of_time()) {
    r_.stages.push_back(fmt::format("confirmation: not run ({})",
                                    o_.confirm != "on" ? "--confirm off" : "the budget is spent"));
    return;
  }
  const ConfirmationPlan plan = plan_confirmation(r_.input, r_.judgement);
  if (plan.nodes.empty() && plan.links.empty() && plan.alone_nodes.empty() &&
      plan.failed_nodes.empty()) {
    r_.stages.push_back("confirmation: nothing to confirm, 0 launches");
    return;
  }
  if (!plan.impossible.empty()) {
    r_.unconfirmable = plan.impossible;
    event("cannot confirm: " + plan.impossible);
    r_.stages.push_back("confirmation: not possible (" + plan.impossible + ")");
    return;
  }
  const double begun = elapsed();
  const int launches_before = r_.launches;
  HealthInput confirm;
  confirm.nodes = r_.input.nodes;
  for (int pass = 1; pass <= o_.passes && !out_of_time(); ++pass) {
    for (const PairRound& round : plan.rounds) {
      PairRound todo;
      for (const NodePair& p : round) {
        // A failed node's fresh pair runs until it fails again: one more hang, not one a pass.
        const auto failed_suspect = [&](int n) {
          return std::count(plan.failed_nodes.begin(), plan.failed_nodes.end(), n) > 0 &&
                 !confirm.failed.count(n) &&
                 std::none_of(confirm.failed_pairs.begin(), confirm.failed_pairs.end(),
                              [&](const auto& f) { return f.first == p; });
        };
        if (!excluded(p) || failed_suspect(p.first) || failed_suspect(p.second)) todo.push_back(p);
      }
      if (!todo.empty()) measure_pairs(todo, pass, "confirm", &confirm);
      if (out_of_time()) break;
    }
    if (!plan.alone_nodes.empty() && !out_of_time()) confirm_alone(plan.alone_nodes, pass, confirm);
  }
  r_.judgement = judge();
  apply_confirmation(r_.judgement, r_.input, confirm, plan, o_.rule);
  r_.stages.push_back(fmt::format(
      "confirmation: {} suspect node(s) and {} link(s) paired again in {} fresh pairs, {} "
      "node(s) slow alone run alone again, {} failed node(s) launched again, {} confirmed; {} "
      "launches, {:.1f} s",
      plan.nodes.size(), plan.links.size(),
      std::accumulate(plan.rounds.begin(), plan.rounds.end(), std::size_t{0},
                      [](std::size_t sum, const PairRound& r) { return sum + r.size(); }),
      plan.alone_nodes.size(), plan.failed_nodes.size(), confirmed_suspects(plan, r_.judgement),
      r_.launches - launches_before, elapsed() - begun));
}

void HealthRun::confirm_alone(const std::vector<int>& suspects, int pass, HealthInput& confirm) {
  if (o_.alone_launch != "one") return measure_alone(suspects, pass, "confirm alone", &confirm);
  std::vector<int> nodes;
  for (int n = 0; n < static_cast<int>(o_.hosts.size()); ++n) {
    if (!r_.input.failed.count(n) && !r_.input.unreachable.count(n)) nodes.push_back(n);
  }
  HealthInput all;
  measure_alone(nodes, pass, "confirm alone", &all);
  for (AloneFigures& f : all.alone) {
    if (std::find(suspects.begin(), suspects.end(), f.node) == suspects.end()) continue;
    auto mine = std::find_if(confirm.alone.begin(), confirm.alone.end(),
                             [&](const AloneFigures& a) { return a.node == f.node; });
    if (mine == confirm.alone.end()) {
      confirm.alone.push_back(std::move(f));
      continue;
    }
    for (auto& [metric, launches] : f.launches)
      mine->launches[metric].insert(mine->launches[metric].end(), launches.begin(), launches.end());
  }
}

void HealthRun::together_stage() {
  std::vector<std::string> hosts;
  for (const NodeVerdict& v : r_.judgement.nodes) {
    if (v.verdict == HealthVerdict::kOk || v.verdict == HealthVerdict::kNotConfirmed)
      hosts.push_back(o_.hosts[static_cast<std::size_t>(v.node)]);
  }
  const double predicted = slowest_ok_pair_gbps(r_.input, r_.judgement, bw_bytes_);
  if (hosts.size() < 2 || out_of_time()) {
    r_.stages.push_back(
        fmt::format("stage 3 (all nodes together): not run ({})",
                    hosts.size() < 2 ? "fewer than 2 nodes left" : "the budget is spent"));
    return;
  }
  const double begun = elapsed();
  const int launches_before = r_.launches;
  std::vector<std::vector<Record>> launches;
  for (int pass = 1; pass <= o_.passes; ++pass) {
    const LaunchResult l =
        launch("together", hosts, pass, stage_run_args(o_, HealthStage::kTogether),
               fmt::format("{} nodes", hosts.size()), o_.ranks_per_node);
    if (l.ran == Ran::kFailed) event(fmt::format("all nodes together failed: {}", l.reason));
    launches.push_back(l.records);
  }
  const bool power_of_two = (hosts.size() & (hosts.size() - 1)) == 0;
  r_.together = together_figures(launches, predicted, o_.backend == "nccl" || power_of_two);
  r_.stages.push_back(fmt::format("stage 3 (all nodes together): {} nodes, {} launches, {:.1f} s",
                                  hosts.size(), r_.launches - launches_before, elapsed() - begun));
}

}  // namespace colltune
