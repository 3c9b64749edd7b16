#pragma once
// colltune health's confirmation pass: what the first passes named (a node slow in its pairs, a
// slow link) is measured again in fresh launches before it is named, as Google's
// cluster-health-scanner pairs a failed node with passed ones. Pure functions; the verdicts
// are judge_health's own (no copy of the rule).

#include <string>
#include <vector>

#include "health/health_plan.hpp"
#include "health/health_verdict.hpp"

namespace colltune {

// A suspect node is paired with this many nodes judged ok: one more than a bad link of its own
// can spoil, so "slow in more than half" needs the node itself.
inline constexpr int kConfirmPartners = 3;

struct ConfirmationPlan {
  std::vector<int> nodes;         // suspects: slow in their pairs
  std::vector<int> alone_nodes;   // suspects: slow alone (stage 1), measured alone again
  std::vector<int> failed_nodes;  // failed in the first passes (an error, a hang): paired again
  std::vector<NodePair> links;    // slow links between nodes that are themselves fine
  std::vector<PairRound> rounds;  // the fresh pairs, disjoint within a round: a launch each
  std::string impossible;         // set: a suspect has no node judged ok to pair with
};

// Each suspect node with up to `partners` nodes judged ok (those it was not paired with first,
// then the rest; spread over the ok nodes), each suspect link once more, each failed node (not
// one never reached) with one node judged ok: does it run at all in a fresh launch.
ConfirmationPlan plan_confirmation(const HealthInput& in, const HealthJudgement& j,
                                   int partners = kConfirmPartners);

// Judges the first passes' pairs and the confirmation pairs (`confirm`: their figures only,
// kept as units of their own, its `alone` the suspects' fresh launches alone) together by
// judge_health and judge_alone, and rewrites `j`: a suspect node slow in more than half of its
// confirmation pairs (slow alone: slow alone again) stays slow, else it is "not confirmed"; a
// suspect link slow again stays, else "not confirmed". A failed node that ran in a fresh pair
// is "not confirmed" (failed_first, both passes in its reason); one that failed again stays
// failed, saying so. A suspect none of whose confirmation figures was measured keeps its first
// verdict, with a note.
void apply_confirmation(HealthJudgement& j, const HealthInput& first, const HealthInput& confirm,
                        const ConfirmationPlan& plan, const HealthRule& rule);

// How many of `plan`'s suspects (nodes, nodes slow alone, links) `j` still names slow: after
// apply_confirmation, those confirmed.
int confirmed_suspects(const ConfirmationPlan& plan, const HealthJudgement& j);

}  // namespace colltune
