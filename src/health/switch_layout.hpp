#pragma once
// The fabric's leaf switches, from Slurm's topology.conf (the topology/tree plugin's file that
// operators already keep), and the rule that names a leaf's uplinks when the slow links of a
// health check gather at it. One pair of 1,024 nodes is out of reach of 40 launches, but an
// uplink carries a share of every pair leaving its leaf (docs/health.md). Pure functions.

#include <map>
#include <string>
#include <vector>

#include "health/health_verdict.hpp"

namespace colltune {

// Slurm's host list ("gpu[001-004,010],login1"): each host, in order. Throws ConfigError naming
// `field` and the list where a range is malformed or backwards.
std::vector<std::string> expand_hostlist(const std::string& list, const std::string& field);

// Each host of a leaf switch: the lines naming `Nodes=` (upper levels, `Switches=` alone, carry
// no host). Throws ConfigError naming the file and line for a line without SwitchName=, or a
// host under two switches.
std::map<std::string, std::string> read_topology_conf(const std::string& text,
                                                      const std::string& path);

// A leaf at least this many of whose pairs to other leaves are slow links is named: one slow
// link is a cable or a port of its own, and the rule already holds each pair at alpha 0.001.
inline constexpr int kUplinkMinSlowPairs = 2;

// This many nodes under one leaf slow for their network path, none of the pairs within the leaf
// slow: one shared uplink, not that many cables failing at once.
inline constexpr int kUplinkMinNodes = 3;

// Call once the confirmation is applied: nodes named for their network path, kUplinkMinNodes or
// more under one leaf with no slow pair within it, become ok with `behind_uplink` naming the
// leaf, and so does a node elsewhere every slow pair of which was with them; their slow pairs
// are then that leaf's slow links for judge_uplinks, and no node is drained for a switch's
// fault. `in.switch_of` empty: nothing changes.
void attribute_to_uplinks(const HealthInput& in, HealthJudgement& j);

// A leaf whose uplinks explain slow links: of the judged pairs with exactly one node under it,
// those that are link faults (both nodes fine), and the same counts for pairs within it.
struct UplinkVerdict {
  std::string leaf;
  int slow_crossing = 0, crossing = 0, slow_within = 0, within = 0;
  // Leaves with as many slow links as this one, named with it: the figures cannot tell them
  // apart (two leaves only: every pair leaving one enters the other).
  std::vector<std::string> tied;
};

// Leaves in turn: the one with the most slow links leaving it (kUplinkMinSlowPairs or more) is
// named (with any leaf as many), its links taken as explained, and the next counted without
// them; so one bad leaf's slow links, whose far ends are spread over many leaves, name that leaf
// alone. `in.switch_of` empty: nothing.
std::vector<UplinkVerdict> judge_uplinks(const HealthInput& in, const HealthJudgement& j);

}  // namespace colltune
