#pragma once
// Which node pairs colltune health measures together: rounds of disjoint pairs, one launch per
// round. Plain C++; the driver's thread.

#include <cstdint>
#include <utility>
#include <vector>

namespace colltune {

// Up to this many nodes every pair is measured (round robin: N-1 rounds for even N, N for odd);
// beyond it, random perfect matchings. 32 nodes is 31 launches a pass, under a minute each.
inline constexpr int kAllPairsMaxNodes = 32;

using NodePair = std::pair<int, int>;     // node indexes, first < second
using PairRound = std::vector<NodePair>;  // disjoint pairs, measured in one launch

// Every pair of `nodes` nodes exactly once, in rounds of disjoint pairs (the circle method);
// with an odd count one node sits out each round.
std::vector<PairRound> all_pair_rounds(int nodes);

// `matchings` random perfect matchings (seeded: the same input gives the same rounds), so every
// node is in `matchings` pairs (one node sits out each round when the count is odd). A slow node
// shows in all its pairs; a slow link is seen only when drawn, with chance matchings/(nodes-1).
std::vector<PairRound> matching_rounds(int nodes, int matchings, std::uint64_t seed);

// all_pair_rounds up to kAllPairsMaxNodes, matching_rounds beyond.
std::vector<PairRound> pair_rounds(int nodes, int matchings, std::uint64_t seed);

}  // namespace colltune
