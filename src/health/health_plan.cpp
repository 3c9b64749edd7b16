#include "health/health_plan.hpp"

#include <algorithm>
#include <numeric>
#include <random>

namespace colltune {

std::vector<PairRound> all_pair_rounds(int nodes) {
  // Circle method: seat m (even) players around a table, one fixed; turning the others one seat
  // a round gives m-1 rounds in which every two players meet once. The extra seat of an odd
  // count is a bye.
  const int m = nodes % 2 == 0 ? nodes : nodes + 1;
  std::vector<PairRound> rounds;
  for (int r = 0; r < m - 1; ++r) {
    PairRound round;
    const auto add = [&](int a, int b) {
      if (a < nodes && b < nodes) round.emplace_back(std::min(a, b), std::max(a, b));
    };
    add(m - 1, r);
    for (int i = 1; i < m / 2; ++i) add((r + i) % (m - 1), (r - i + m - 1) % (m - 1));
    if (!round.empty()) rounds.push_back(std::move(round));
  }
  return rounds;
}

std::vector<PairRound> matching_rounds(int nodes, int matchings, std::uint64_t seed) {
  std::mt19937_64 random(seed);
  std::vector<int> order(static_cast<std::size_t>(nodes));
  std::iota(order.begin(), order.end(), 0);
  std::vector<PairRound> rounds;
  for (int k = 0; k < matchings; ++k) {
    // Fisher-Yates by hand: std::shuffle's draws differ between standard libraries, and the
    // same input must give the same rounds everywhere.
    for (std::size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[random() % i]);
    PairRound round;
    for (std::size_t i = 0; i + 1 < order.size(); i += 2) {
      round.emplace_back(std::min(order[i], order[i + 1]), std::max(order[i], order[i + 1]));
    }
    rounds.push_back(std::move(round));
  }
  return rounds;
}

std::vector<PairRound> pair_rounds(int nodes, int matchings, std::uint64_t seed) {
  return nodes <= kAllPairsMaxNodes ? all_pair_rounds(nodes)
                                    : matching_rounds(nodes, matchings, seed);
}

}  // namespace colltune
