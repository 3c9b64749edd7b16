#pragma once
// alltoallv's count matrix: who sends how many elements to whom, drawn from a named pattern and a
// seed. Every rank derives the same matrix from (pattern, parameter, seed, nranks, mean count)
// without communicating; rows sum to mean count x nranks exactly, so the size axis (bytes each
// rank sends) stays comparable with alltoall's.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/collective.hpp"

namespace colltune {

// "uniform", "random[:RATIO]", "zipf[:S]" or "hot[:K]" -> an Exchange with `seed`. Throws
// ConfigError "<field>: '<text>' ...; allowed: ..." for an unknown name or a parameter out of
// range (ratio >= 1, s >= 0, k >= 1, all finite and at most 1e6).
Exchange parse_exchange(std::string_view text, std::uint64_t seed, std::string_view field);

// The canonical spelling parse_exchange reads back: "uniform", "zipf:1.5".
std::string exchange_name(const Exchange& e);

// Elements rank `src` sends to each rank (index = destination); sums to mean_count x nranks.
std::vector<std::size_t> exchange_row(const Exchange& e, std::size_t mean_count, int nranks,
                                      int src);

// One rank's side of an alltoallv, in elements, indexed by peer: what MPI_Alltoallv's count and
// displacement arguments hold, plus where each received block starts in its sender's input.
struct RankExchange {
  std::vector<std::size_t> send_counts, send_offsets, recv_counts, recv_offsets;
  std::vector<std::size_t> recv_first;  // the sender's send offset of the block we receive
  std::size_t send_total = 0, recv_total = 0;
};
RankExchange rank_exchange(const Collective& c, int nranks, int rank);

// What every rank moves, in elements (index = rank), for records and bandwidth.
struct ExchangeTotals {
  std::vector<std::uint64_t> send, recv;
  std::vector<std::uint64_t> max_peer, min_peer;  // largest and smallest block a rank sends
  std::uint64_t busiest = 0;  // max over ranks of max(send, recv): the rank that bounds the time
  std::uint64_t max_recv = 0;
  double imbalance = 1;  // busiest / mean bytes per rank: 1 for uniform
};
ExchangeTotals exchange_totals(const Collective& c, int nranks);

}  // namespace colltune
