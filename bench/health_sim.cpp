// colltune health at fleet scale, simulated: each check's pair figures are drawn from a model (a
// node-to-node spread, launch-to-launch noise, slow nodes, slow links, stopped nodes), measured
// in the rounds health's own planner gives (pair_rounds, plan_confirmation) and judged by its own
// rule and report (judge_all_stages, apply_confirmation, health_json): no copy of either. Per N it
// prints launches, rounds, the expected wall time, and how often what is slow is named and what
// is healthy is not. Stage 1 (every node alone, at once: a launch a pass) is simulated too, so a
// node slow only through its pairs (its cable) can be told from a node slow itself.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <random>
#include <set>

#include "health/health_alone.hpp"
#include "health/health_confirm.hpp"
#include "health/health_plan.hpp"
#include "health/health_report.hpp"
#include "health/health_run.hpp"
#include "health/switch_layout.hpp"

namespace colltune {
namespace {

struct SimOptions {
  std::vector<int> nodes{4, 16, 64, 256, 1024, 4096};
  int checks = 100;
  // Log sds between launches of a pair and between healthy nodes, fitted to the namespace
  // cluster (bench/bench-health.sh prints the fit): bw, and the 8 B pingpong latency.
  double launch_sd = 0.0026, node_sd = 0.0003;
  double latency_launch_sd = 0.197, latency_node_sd = 0.032;
  // Stage 1's figures (a node's own collectives and memcpy): the namespace cluster's are 8 ranks
  // on 2 cores, no model of a real node's, so the bw sds stand in (an assumption; options).
  double alone_launch_sd = 0.0026, alone_node_sd = 0.0003;
  double slow_factor = 1.25;  // a slow node's time: 1.25 = 20% slower
  int slow_nodes = 1;         // how many, in the slow-node scenario
  double link_factor = 2.0;   // a slow link's time, and a slow cable's
  double launch_seconds = 20, timeout_seconds = 60;
  int matchings = 3, passes = 2, max_passes = 4;
  // The fabric: leaf switches of this many nodes (health --topology), each with this many
  // uplinks that ECMP spreads a leaf's outgoing pairs over; a bad uplink slows its share.
  int leaf_size = 32, uplinks = 4;
  std::uint64_t seed = 1;
};

// What happened to one fault (or to no fault) in one check, as health's report says it.
struct Scenario {
  std::set<int> slow_nodes, stopped;
  std::map<NodePair, double> links;
  std::map<int, double> cables;  // a node's own link: every pair of it slower, alone not
  int bad_leaf = -1;             // one uplink of this leaf at link_factor
};

struct Outcome {
  int launches = 0, rounds = 0;
  double seconds = 0;
  std::set<std::string> named;                          // nodes named slow, failed or unreachable
  std::set<std::string> network_paths;                  // of those, named for their network path
  std::set<std::string> uplinks;                        // switches named for their uplinks
  std::set<std::pair<std::string, std::string>> links;  // links named as links
};

class Check {
 public:
  Check(const SimOptions& o, int n, const Scenario& s, std::uint64_t seed)
      : o_(o), s_(s), random_(seed) {
    for (int i = 0; i < n; ++i) {
      in_.nodes.push_back("n" + std::to_string(i));
      in_.switch_of.push_back("s" + std::to_string(i / o.leaf_size));
    }
    for (int i = 0; i < n; ++i) {
      speed_.push_back(std::exp(o.node_sd * normal_(random_)) *
                       (s.slow_nodes.count(i) ? o.slow_factor : 1));
      latency_.push_back(std::exp(o.latency_node_sd * normal_(random_)));
      alone_.push_back(std::exp(o.alone_node_sd * normal_(random_)) *
                       (s.slow_nodes.count(i) ? o.slow_factor : 1));
    }
  }

  Outcome run(std::uint64_t seed) {
    const int n = static_cast<int>(in_.nodes.size());
    const auto rounds = pair_rounds(n, o_.matchings, seed);
    out_.rounds = static_cast<int>(rounds.size());
    // Stage 1, every node alone at once (--alone-launch one, on at every size): a launch a pass.
    std::vector<int> everyone(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) everyone[static_cast<std::size_t>(i)] = i;
    for (int pass = 1; pass <= o_.passes; ++pass) measure_alone(everyone, in_);
    HealthJudgement j;
    for (int pass = 1; pass <= o_.max_passes; ++pass) {
      std::set<NodePair> undecided;
      for (const PairVerdict& v : j.pairs) {
        if (v.undecided) undecided.insert(v.pair);
      }
      if (pass > o_.passes && undecided.empty()) break;
      for (const PairRound& round : rounds) {
        PairRound todo;
        for (const NodePair& p : round) {
          if (pass <= o_.passes || undecided.count(p)) todo.push_back(p);
        }
        measure(todo, in_);
      }
      if (pass >= o_.passes) j = judge();
    }
    ConfirmationPlan plan = plan_confirmation(in_, j);
    HealthResult r;
    if (!plan.impossible.empty()) r.unconfirmable = plan.impossible;
    if (plan.impossible.empty() &&
        !(plan.nodes.empty() && plan.links.empty() && plan.alone_nodes.empty())) {
      HealthInput confirm;
      confirm.nodes = in_.nodes;
      for (int pass = 1; pass <= o_.passes; ++pass) {
        for (const PairRound& round : plan.rounds) measure(round, confirm);
        if (!plan.alone_nodes.empty()) measure_alone(plan.alone_nodes, confirm);
      }
      j = judge();
      apply_confirmation(j, in_, confirm, plan, HealthRule{});
    }
    attribute_to_uplinks(in_, j);
    out_.launches += o_.passes;  // stage 3, all nodes together
    out_.seconds += o_.passes * o_.launch_seconds;
    r.input = in_;
    r.judgement = j;
    const nlohmann::json report = health_json(r, HealthRule{});
    for (const auto& node : report["nodes"]) {
      const std::string v = node["verdict"];
      if (v == "slow" || v == "failed" || v == "unreachable")
        out_.named.insert(node["node"].get<std::string>());
      if (node["network_path"].get<bool>())
        out_.network_paths.insert(node["node"].get<std::string>());
    }
    for (const auto& uplink : report["uplinks"])
      out_.uplinks.insert(uplink["switch"].get<std::string>());
    for (const auto& pair : report["pairs"]) {
      if (pair["link_fault"].get<bool>())
        out_.links.emplace(pair["nodes"][0].get<std::string>(),
                           pair["nodes"][1].get<std::string>());
    }
    return out_;
  }

 private:
  HealthJudgement judge() {
    blame_nodes_of_failed_pairs(in_);
    return judge_all_stages(in_, HealthRule{});
  }

  // One stage-1 launch of `nodes` at once; a stopped node adds no figure (its hang: not here).
  void measure_alone(const std::vector<int>& nodes, HealthInput& into) {
    ++out_.launches;
    out_.seconds += o_.launch_seconds;
    for (const int node : nodes) {
      if (s_.stopped.count(node)) continue;
      auto at = std::find_if(into.alone.begin(), into.alone.end(),
                             [&](const AloneFigures& f) { return f.node == node; });
      if (at == into.alone.end()) at = into.alone.insert(into.alone.end(), AloneFigures{node, {}});
      for (const char* metric : {"allreduce bw", "memcpy"}) {
        const double base =
            (std::string(metric) == "memcpy" ? 0.1 : 1e-3) * alone_[static_cast<std::size_t>(node)];
        const double launch = base * std::exp(o_.alone_launch_sd * normal_(random_));
        std::vector<double> samples;
        for (int k = 0; k < 5; ++k) samples.push_back(launch * std::exp(0.01 * normal_(random_)));
        at->launches[metric].push_back(samples);
      }
    }
  }

  // One launch of `pairs`: a stopped node hangs it to the timeout, its ranks' roll call names
  // the node, and the rest run again (as health's measure_pairs does).
  void measure(const PairRound& pairs, HealthInput& into) {
    PairRound live;
    for (const NodePair& p : pairs) {
      if (!in_.failed.count(p.first) && !in_.failed.count(p.second)) live.push_back(p);
    }
    if (live.empty()) return;
    ++out_.launches;
    PairRound rest;
    for (const NodePair& p : live) {
      for (const int node : {p.first, p.second}) {
        if (s_.stopped.count(node)) in_.failed.emplace(node, "hung: no end within the timeout");
      }
      if (!s_.stopped.count(p.first) && !s_.stopped.count(p.second)) rest.push_back(p);
    }
    if (rest.size() != live.size()) {
      out_.seconds += o_.timeout_seconds;
      return measure(rest, into);
    }
    out_.seconds += o_.launch_seconds;
    for (const NodePair& p : live) {
      double factor = std::max(speed_[static_cast<std::size_t>(p.first)],
                               speed_[static_cast<std::size_t>(p.second)]);
      if (const auto it = s_.links.find(p); it != s_.links.end()) factor *= it->second;
      for (const int node : {p.first, p.second}) {
        if (const auto it = s_.cables.find(node); it != s_.cables.end()) factor *= it->second;
      }
      // ECMP: a fixed hash of the pair picks the uplink it leaves the bad leaf by.
      const bool leaves =
          (p.first / o_.leaf_size == s_.bad_leaf) != (p.second / o_.leaf_size == s_.bad_leaf);
      if (s_.bad_leaf >= 0 && leaves && (p.first * 31 + p.second) % o_.uplinks == 0)
        factor *= o_.link_factor;
      auto& index = where_[&into];
      auto [at, fresh] = index.emplace(p, into.pairs.size());
      if (fresh) into.pairs.push_back(PairFigures{p, {}});
      PairFigures* f = &into.pairs[at->second];
      const double latency = std::max(latency_[static_cast<std::size_t>(p.first)],
                                      latency_[static_cast<std::size_t>(p.second)]);
      for (const char* metric : {"latency", "bw"}) {
        const bool bw = std::string(metric) == "bw";
        const double base = bw ? 1e-3 * factor : 5e-6 * latency;
        const double launch =
            base * std::exp((bw ? o_.launch_sd : o_.latency_launch_sd) * normal_(random_));
        std::vector<double> samples;
        for (int k = 0; k < 5; ++k) samples.push_back(launch * std::exp(0.01 * normal_(random_)));
        f->launches[metric].push_back(samples);
      }
    }
  }

  const SimOptions& o_;
  const Scenario& s_;
  std::mt19937_64 random_;
  std::normal_distribution<double> normal_{0, 1};
  std::vector<double> speed_, latency_, alone_;  // each node's bw, latency and stage-1 factors
  HealthInput in_;
  std::map<const HealthInput*, std::map<NodePair, std::size_t>> where_;  // a pair's entry
  Outcome out_;
};

struct Tally {
  int checks = 0, hits = 0;
  std::string text() const { return fmt::format("{}/{}", hits, checks); }
};

// One line of bad input, exit 2 (before any check).
[[noreturn]] void refuse(const std::string& line) {
  std::fprintf(stderr, "health_sim: %s\n", line.c_str());
  std::exit(2);
}

void check_positive(double value, const char* name) {
  if (!std::isfinite(value) || value <= 0)
    refuse(fmt::format("{} {}: allowed: a finite number above 0", name, value));
}

void simulate(const SimOptions& o, int n) {
  std::mt19937_64 pick(o.seed * 7919 + static_cast<std::uint64_t>(n));
  std::uniform_int_distribution<int> node(0, n - 1);
  Tally healthy, slow, link, link_as_node, cable, uplink, stopped;
  int launches_healthy = 0, launches_slow = 0, launches_uplink = 0, rounds = 0;
  double seconds_healthy = 0, seconds_stopped = 0;
  for (int c = 0; c < o.checks; ++c) {
    const std::uint64_t seed = o.seed * 1000003 + static_cast<std::uint64_t>(c);
    const Outcome h = Check(o, n, Scenario{}, seed).run(seed);
    ++healthy.checks;
    healthy.hits += !h.named.empty() || !h.links.empty() || !h.uplinks.empty();
    launches_healthy = std::max(launches_healthy, h.launches);
    seconds_healthy += h.seconds / o.checks;
    rounds = h.rounds;

    Scenario s;
    std::set<std::string> bad;
    while (static_cast<int>(s.slow_nodes.size()) < o.slow_nodes) {
      const int k = node(pick);
      if (s.slow_nodes.insert(k).second) bad.insert("n" + std::to_string(k));
    }
    const Outcome sl = Check(o, n, s, seed).run(seed);
    ++slow.checks;
    // Every slow node named, and nothing else; as slow itself, not for its network path.
    slow.hits += sl.named == bad && sl.network_paths.empty();
    launches_slow = std::max(launches_slow, sl.launches);

    Scenario l;
    int a = node(pick), b = node(pick);
    while (b == a) b = node(pick);
    l.links[{std::min(a, b), std::max(a, b)}] = o.link_factor;
    const Outcome li = Check(o, n, l, seed).run(seed);
    ++link.checks;
    ++link_as_node.checks;
    const std::string x = "n" + std::to_string(std::min(a, b)),
                      y = "n" + std::to_string(std::max(a, b));
    link.hits += li.links.count({x, y}) > 0 && li.named.empty();
    link_as_node.hits += li.named.count(x) + li.named.count(y) > 0;

    Scenario ca;
    const int cabled = node(pick);
    ca.cables[cabled] = o.link_factor;
    const Outcome co = Check(o, n, ca, seed).run(seed);
    ++cable.checks;
    const std::set<std::string> just{"n" + std::to_string(cabled)};
    cable.hits += co.named == just && co.network_paths == just && co.links.empty();

    if (n >= 2 * o.leaf_size) {  // two leaves at least, or no pair leaves one
      Scenario up;
      up.bad_leaf = std::uniform_int_distribution<int>(0, n / o.leaf_size - 1)(pick);
      const Outcome uo = Check(o, n, up, seed).run(seed);
      ++uplink.checks;
      launches_uplink = std::max(launches_uplink, uo.launches);
      uplink.hits += uo.uplinks == std::set<std::string>{"s" + std::to_string(up.bad_leaf)} &&
                     uo.named.empty();
    }

    Scenario st;
    const int gone = node(pick);
    st.stopped = {gone};
    const Outcome so = Check(o, n, st, seed).run(seed);
    ++stopped.checks;
    stopped.hits += so.named == std::set<std::string>{"n" + std::to_string(gone)};
    seconds_stopped += so.seconds / o.checks;
  }
  std::printf("%6d %7d %9d %9.1f %9d %9s %14s %14s %14s %14s %14s %14s %14s %9.1f\n", n, rounds,
              launches_healthy, seconds_healthy / 60, launches_slow,
              uplink.checks ? std::to_string(launches_uplink).c_str() : "-", healthy.text().c_str(),
              slow.text().c_str(), cable.text().c_str(),
              uplink.checks ? uplink.text().c_str() : "-", link.text().c_str(),
              link_as_node.text().c_str(), stopped.text().c_str(), seconds_stopped / 60);
  std::fflush(stdout);
}

}  // namespace
}  // namespace colltune

int main(int argc, char** argv) {
  using colltune::SimOptions;
  SimOptions o;
  CLI::App app(
      "colltune health simulated at fleet scale: health's real planner and rule on "
      "figures drawn from a model");
  app.add_option("--nodes", o.nodes, "fleet sizes (default 4 16 64 256 1024 4096)");
  app.add_option("--checks", o.checks, "checks per size and scenario (default 100)");
  app.add_option("--launch-sd", o.launch_sd,
                 "bw: log sd between launches of one pair (default 0.0026: the namespace fit)");
  app.add_option("--node-sd", o.node_sd,
                 "bw: log sd between healthy nodes (default 0.0003: the namespace fit)");
  app.add_option("--latency-launch-sd", o.latency_launch_sd,
                 "latency: log sd between launches (default 0.197: the namespace fit)");
  app.add_option("--latency-node-sd", o.latency_node_sd,
                 "latency: log sd between nodes (default 0.032: the namespace fit)");
  app.add_option("--slow-factor", o.slow_factor, "a slow node's time (default 1.25: 20% slower)");
  app.add_option("--slow-nodes", o.slow_nodes,
                 "slow nodes in the slow-node scenario (default 1; all must be named)");
  app.add_option("--link-factor", o.link_factor,
                 "a slow link's time, and a slow cable's (every pair of its node; default 2)");
  app.add_option("--alone-launch-sd", o.alone_launch_sd,
                 "stage 1: log sd between launches of a node alone (default 0.0026: bw's)");
  app.add_option("--alone-node-sd", o.alone_node_sd,
                 "stage 1: log sd between healthy nodes alone (default 0.0003: bw's)");
  app.add_option("--leaf-size", o.leaf_size, "nodes under a leaf switch (default 32)");
  app.add_option("--uplinks", o.uplinks, "a leaf's uplinks, one of them bad (default 4)");
  app.add_option("--launch-seconds", o.launch_seconds, "one launch (default 20)");
  app.add_option("--timeout-seconds", o.timeout_seconds, "a hung launch (default 60)");
  app.add_option("--matchings", o.matchings, "beyond 32 nodes (default 3)");
  app.add_option("--passes", o.passes, "(default 2)");
  app.add_option("--seed", o.seed, "(default 1)");
  CLI11_PARSE(app, argc, argv);
  for (const auto& [value, flag] : {std::pair{o.launch_sd, "--launch-sd"},
                                    {o.node_sd, "--node-sd"},
                                    {o.latency_launch_sd, "--latency-launch-sd"},
                                    {o.latency_node_sd, "--latency-node-sd"},
                                    {o.alone_launch_sd, "--alone-launch-sd"},
                                    {o.alone_node_sd, "--alone-node-sd"},
                                    {o.launch_seconds, "--launch-seconds"},
                                    {o.timeout_seconds, "--timeout-seconds"}})
    colltune::check_positive(value, flag);
  for (const auto& [factor, flag] :
       {std::pair{o.slow_factor, "--slow-factor"}, {o.link_factor, "--link-factor"}}) {
    if (!std::isfinite(factor) || factor < 1)
      colltune::refuse(fmt::format("{} {}: allowed: a time factor of 1 or more", flag, factor));
  }
  if (o.checks < 1 || o.matchings < 1 || o.leaf_size < 1 || o.uplinks < 1 || o.passes < 2) {
    colltune::refuse(fmt::format(
        "--checks {}, --matchings {}, --leaf-size {}, --uplinks {}: allowed: 1 or more; --passes "
        "{}: 2 or more",
        o.checks, o.matchings, o.leaf_size, o.uplinks, o.passes));
  }
  if (o.slow_nodes < 1)
    colltune::refuse(fmt::format("--slow-nodes {}: allowed: 1 or more", o.slow_nodes));
  for (const int n : o.nodes) {
    // Each scenario puts one slow node, one slow link and one stopped node in the fleet.
    if (n < 4)
      colltune::refuse(fmt::format("--nodes {}: allowed: 4 or more (faults and partners)", n));
    if (o.slow_nodes >= n)
      colltune::refuse(
          fmt::format("--slow-nodes {}: more slow nodes than the {} nodes leave "
                      "healthy ones to pair with; allowed: fewer than --nodes",
                      o.slow_nodes, n));
  }
  std::printf(
      "bw: launch-to-launch sd %.4f, node-to-node sd %.4f; latency: %.3f, %.3f; stage 1: %.4f, "
      "%.4f (log; bw's unless given: an assumption); slow node x%.2f, slow link x%.2f; leaves "
      "of %d, %d uplinks; %g s a launch, %g s a hang; %d checks per size and scenario\n",
      o.launch_sd, o.node_sd, o.latency_launch_sd, o.latency_node_sd, o.alone_launch_sd,
      o.alone_node_sd, o.slow_factor, o.link_factor, o.leaf_size, o.uplinks, o.launch_seconds,
      o.timeout_seconds, o.checks);
  std::printf("%6s %7s %9s %9s %9s %9s %14s %14s %14s %14s %14s %14s %14s %9s\n", "nodes", "rounds",
              "launches", "wall_min", "l_slow", "l_uplink", "healthy_named", "slow_named",
              "cable_as_path", "uplink_named", "pair_as_link", "pair_as_node", "stopped_named",
              "wall_stop");
  for (const int n : o.nodes) colltune::simulate(o, n);
  return 0;
}
