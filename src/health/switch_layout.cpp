#include "health/switch_layout.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <set>
#include <sstream>

#include "core/errors.hpp"

namespace colltune {
namespace {

// The list's items: split at commas outside brackets.
std::vector<std::string> items(const std::string& list) {
  std::vector<std::string> out(1);
  int depth = 0;
  for (const char c : list) {
    depth += c == '[' ? 1 : c == ']' ? -1 : 0;
    if (c == ',' && depth == 0) {
      out.emplace_back();
    } else {
      out.back() += c;
    }
  }
  return out;
}

bool all_digits(const std::string& s) {
  return !s.empty() &&
         std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); });
}

}  // namespace

std::vector<std::string> expand_hostlist(const std::string& list, const std::string& field) {
  const auto refuse = [&](const std::string& why) {
    return ConfigError(fmt::format(
        "{}: '{}': {}; allowed: Slurm's host list, names or prefix[range,...] (gpu[001-004,7])",
        field, list, why));
  };
  std::vector<std::string> hosts;
  for (const std::string& item : items(list)) {
    if (item.empty()) throw refuse("an empty name");
    const std::size_t open = item.find('['), close = item.find(']');
    if (open == std::string::npos && close == std::string::npos) {
      hosts.push_back(item);
      continue;
    }
    if (open == std::string::npos || close == std::string::npos || close < open ||
        item.find('[', open + 1) != std::string::npos)
      throw refuse("one bracketed range a name is all this reads");
    const std::string prefix = item.substr(0, open), suffix = item.substr(close + 1);
    for (const std::string& range : items(item.substr(open + 1, close - open - 1))) {
      const std::size_t dash = range.find('-');
      const std::string lo = range.substr(0, dash);
      const std::string hi = dash == std::string::npos ? lo : range.substr(dash + 1);
      if (!all_digits(lo) || !all_digits(hi) || lo.size() > 9 || hi.size() > 9)
        throw refuse(fmt::format("'{}' is not a number or a range of them", range));
      const long first = std::stol(lo), last = std::stol(hi);
      if (last < first) throw refuse(fmt::format("'{}' runs backwards", range));
      if (last - first >= 100000) throw refuse(fmt::format("'{}' is over 100,000 hosts", range));
      // Slurm pads every number to the width of the range's first ("001-010").
      for (long n = first; n <= last; ++n)
        hosts.push_back(fmt::format("{}{:0{}}{}", prefix, n, lo.size(), suffix));
    }
  }
  return hosts;
}

std::map<std::string, std::string> read_topology_conf(const std::string& text,
                                                      const std::string& path) {
  std::map<std::string, std::string> switch_of;
  std::istringstream lines(text);
  std::string line;
  for (int number = 1; std::getline(lines, line); ++number) {
    line = line.substr(0, line.find('#'));
    std::istringstream words(line);
    std::string word, name, nodes;
    while (words >> word) {
      if (word.starts_with("SwitchName=")) name = word.substr(11);
      if (word.starts_with("Nodes=")) nodes = word.substr(6);
    }
    if (nodes.empty()) continue;  // an upper level, a blank or a comment
    const std::string where = fmt::format("{}:{}", path, number);
    if (name.empty()) {
      throw ConfigError(
          fmt::format("{}: Nodes= without SwitchName=; allowed: Slurm's "
                      "topology.conf, SwitchName=NAME Nodes=HOSTLIST",
                      where));
    }
    for (const std::string& host : expand_hostlist(nodes, where + ": Nodes")) {
      const auto [at, fresh] = switch_of.emplace(host, name);
      if (!fresh && at->second != name) {
        throw ConfigError(
            fmt::format("{}: {} is under {} and {}; allowed: each host under one "
                        "leaf switch",
                        where, host, at->second, name));
      }
    }
  }
  return switch_of;
}

void attribute_to_uplinks(const HealthInput& in, HealthJudgement& j) {
  if (in.switch_of.size() != j.nodes.size()) return;
  std::map<std::string, std::vector<int>> suspects;
  for (const NodeVerdict& v : j.nodes) {
    if (v.verdict == HealthVerdict::kSlow && v.network_path)
      suspects[in.switch_of[static_cast<std::size_t>(v.node)]].push_back(v.node);
  }
  for (const auto& [leaf, nodes] : suspects) {
    if (static_cast<int>(nodes.size()) < kUplinkMinNodes) continue;
    // A slow pair under the leaf itself points at the switch or the cables, not its uplinks.
    const bool slow_within = std::any_of(j.pairs.begin(), j.pairs.end(), [&](const PairVerdict& p) {
      return p.verdict == HealthVerdict::kSlow &&
             in.switch_of[static_cast<std::size_t>(p.pair.first)] == leaf &&
             in.switch_of[static_cast<std::size_t>(p.pair.second)] == leaf;
    });
    if (slow_within) continue;
    for (const int node : nodes) {
      NodeVerdict& v = j.nodes[static_cast<std::size_t>(node)];
      v.verdict = HealthVerdict::kOk;
      v.behind_uplink = leaf;
    }
  }
  // A node elsewhere whose every slow pair was with a node under a leaf named above: those
  // pairs crossed its uplinks (a node drawn twice with that leaf's nodes is slow in 2 of 3).
  std::map<std::string, bool> named;
  for (const NodeVerdict& v : j.nodes) {
    if (!v.behind_uplink.empty()) named[v.behind_uplink] = true;
  }
  for (NodeVerdict& v : j.nodes) {
    if (v.verdict != HealthVerdict::kSlow || !v.network_path || !v.behind_uplink.empty()) continue;
    const std::string& own = in.switch_of[static_cast<std::size_t>(v.node)];
    std::string through;
    int slow = 0;
    for (const PairVerdict& p : j.pairs) {
      if (p.verdict != HealthVerdict::kSlow || (p.pair.first != v.node && p.pair.second != v.node))
        continue;
      const int other = p.pair.first == v.node ? p.pair.second : p.pair.first;
      const std::string& leaf = in.switch_of[static_cast<std::size_t>(other)];
      if (!named.count(leaf) || leaf == own || (!through.empty() && leaf != through)) {
        slow = 0;
        break;
      }
      through = leaf;
      ++slow;
    }
    if (slow > 0) {
      v.verdict = HealthVerdict::kOk;
      v.behind_uplink = through;
    }
  }
}

std::vector<UplinkVerdict> judge_uplinks(const HealthInput& in, const HealthJudgement& j) {
  std::vector<UplinkVerdict> named;
  if (in.switch_of.size() != j.nodes.size()) return named;
  const auto leaf = [&](int node) { return in.switch_of[static_cast<std::size_t>(node)]; };
  std::set<NodePair> explained;
  while (true) {
    std::map<std::string, UplinkVerdict> by_leaf;
    for (const PairVerdict& p : j.pairs) {
      const bool judged = p.verdict != HealthVerdict::kNotJudged;
      if (!judged || explained.count(p.pair)) continue;
      const bool slow = link_fault(j, p);
      const std::string a = leaf(p.pair.first), b = leaf(p.pair.second);
      if (a == b) {
        UplinkVerdict& v = by_leaf[a];
        ++v.within;
        v.slow_within += slow;
        continue;
      }
      for (const std::string& end : {a, b}) {
        UplinkVerdict& v = by_leaf[end];
        ++v.crossing;
        v.slow_crossing += slow;
      }
    }
    int most = 0;
    for (const auto& [name, v] : by_leaf) most = std::max(most, v.slow_crossing);
    if (most < kUplinkMinSlowPairs) break;
    std::vector<std::string> worst;
    for (const auto& [name, v] : by_leaf) {
      if (v.slow_crossing == most) worst.push_back(name);
    }
    for (const std::string& name : worst) {
      UplinkVerdict v = by_leaf[name];
      v.leaf = name;
      for (const std::string& other : worst) {
        if (other != name) v.tied.push_back(other);
      }
      named.push_back(v);
      for (const PairVerdict& p : j.pairs) {
        if (link_fault(j, p) && (leaf(p.pair.first) == name) != (leaf(p.pair.second) == name))
          explained.insert(p.pair);
      }
    }
  }
  return named;
}

}  // namespace colltune
