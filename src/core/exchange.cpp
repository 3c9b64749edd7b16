#include "core/exchange.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <numeric>

#include "core/errors.hpp"
#include "core/pattern_math.hpp"

namespace colltune {
namespace {

struct PatternName {
  ExchangeKind kind;
  std::string_view name;
  double default_parameter;
  double min_parameter;
};
constexpr PatternName kPatterns[] = {{ExchangeKind::kUniform, "uniform", 0, 0},
                                     {ExchangeKind::kRandom, "random", 4, 1},
                                     {ExchangeKind::kZipf, "zipf", 1, 0},
                                     {ExchangeKind::kHot, "hot", 4, 1}};
constexpr double kMaxParameter = 1e6;

const PatternName& pattern_of(ExchangeKind kind) {
  for (const auto& p : kPatterns) {
    if (p.kind == kind) return p;
  }
  return kPatterns[0];
}

// A uniform draw in [0, 1) from the seed and up to two indexes, the same on every rank.
double unit_draw(std::uint64_t seed, std::uint64_t a, std::uint64_t b) {
  const std::uint64_t h = pattern_mix(seed ^ pattern_mix(a * 0x9E3779B97F4A7C15ULL + b));
  return static_cast<double>(h >> 11) * 0x1.0p-53;
}

// Whether every source sends the same row (only random draws per pair).
bool same_row_for_all(const Exchange& e) { return e.kind != ExchangeKind::kRandom; }

std::vector<double> row_weights(const Exchange& e, int nranks, int src) {
  const auto n = static_cast<std::size_t>(nranks);
  std::vector<double> w(n, 1.0);
  switch (e.kind) {
    case ExchangeKind::kUniform:
      break;
    case ExchangeKind::kRandom:
      for (std::size_t d = 0; d < n; ++d)
        w[d] = 1.0 + (e.parameter - 1.0) * unit_draw(e.seed, static_cast<std::uint64_t>(src), d);
      break;
    case ExchangeKind::kZipf: {
      // A seeded popularity order (Fisher-Yates), shared by all sources: the same experts are
      // popular everywhere, so their ranks receive more.
      std::vector<std::size_t> order(n);
      std::iota(order.begin(), order.end(), 0);
      for (std::size_t i = n; i > 1; --i) {
        const auto j = static_cast<std::size_t>(unit_draw(e.seed, i, n) * static_cast<double>(i));
        std::swap(order[i - 1], order[std::min(j, i - 1)]);
      }
      for (std::size_t k = 0; k < n; ++k)
        w[order[k]] = std::pow(static_cast<double>(k + 1), -e.parameter);
      break;
    }
    case ExchangeKind::kHot:
      w[static_cast<std::size_t>(pattern_mix(e.seed) % n)] = e.parameter;
      break;
  }
  return w;
}

// Splits `total` in proportion to `weights` into whole counts that sum to it exactly: floors,
// then one more to the largest remainders (ties to the lower index), so every rank agrees.
std::vector<std::size_t> apportion(std::uint64_t total, const std::vector<double>& weights) {
  const double sum = std::accumulate(weights.begin(), weights.end(), 0.0);
  std::vector<std::size_t> counts(weights.size());
  std::vector<double> remainder(weights.size());
  std::uint64_t given = 0;
  for (std::size_t d = 0; d < weights.size(); ++d) {
    const double quota = static_cast<double>(total) * (weights[d] / sum);
    counts[d] = static_cast<std::size_t>(std::floor(quota));
    remainder[d] = quota - std::floor(quota);
    given += counts[d];
  }
  std::vector<std::size_t> by_remainder(weights.size());
  std::iota(by_remainder.begin(), by_remainder.end(), 0);
  std::stable_sort(by_remainder.begin(), by_remainder.end(),
                   [&](std::size_t a, std::size_t b) { return remainder[a] > remainder[b]; });
  for (std::size_t k = 0; given < total; k = (k + 1) % weights.size(), ++given)
    ++counts[by_remainder[k]];
  // Rounding in the quotas can overshoot; take the excess from the smallest remainders.
  for (std::size_t k = weights.size(); given > total;) {
    k = (k == 0 ? weights.size() : k) - 1;
    if (counts[by_remainder[k]] > 0) --counts[by_remainder[k]], --given;
  }
  return counts;
}

}  // namespace

Exchange parse_exchange(std::string_view text, std::uint64_t seed, std::string_view field) {
  const auto colon = text.find(':');
  const std::string_view name = text.substr(0, colon);
  const auto allowed = [&] {
    return fmt::format(
        "allowed: uniform, random[:RATIO] (max/min ratio >= 1, default 4), zipf[:S] (skew >= 0, "
        "default 1), hot[:K] (one rank gets K >= 1 times the others, default 4)");
  };
  const PatternName* pattern = nullptr;
  for (const auto& p : kPatterns) {
    if (p.name == name) pattern = &p;
  }
  if (pattern == nullptr)
    throw ConfigError(
        fmt::format("{}: '{}' is not an exchange pattern; {}", field, text, allowed()));
  Exchange e{pattern->kind, pattern->default_parameter, seed};
  if (colon == std::string_view::npos) return e;
  const std::string_view number = text.substr(colon + 1);
  double value = -1;
  const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), value);
  if (pattern->kind == ExchangeKind::kUniform || ec != std::errc() ||
      end != number.data() + number.size() || !std::isfinite(value) ||
      value < pattern->min_parameter || value > kMaxParameter) {
    throw ConfigError(fmt::format("{}: '{}' is not allowed; {}", field, text, allowed()));
  }
  e.parameter = value;
  return e;
}

std::string exchange_name(const Exchange& e) {
  const PatternName& p = pattern_of(e.kind);
  if (e.kind == ExchangeKind::kUniform) return std::string(p.name);
  return fmt::format("{}:{}", p.name, e.parameter);
}

std::vector<std::size_t> exchange_row(const Exchange& e, std::size_t mean_count, int nranks,
                                      int src) {
  const auto total = static_cast<std::uint64_t>(mean_count) * static_cast<std::uint64_t>(nranks);
  return apportion(total, row_weights(e, nranks, src));
}

RankExchange rank_exchange(const Collective& c, int nranks, int rank) {
  const auto n = static_cast<std::size_t>(nranks);
  const auto me = static_cast<std::size_t>(rank);
  RankExchange x;
  x.send_counts = exchange_row(c.exchange, c.count, nranks, rank);
  x.send_offsets.resize(n);
  x.recv_counts.resize(n);
  x.recv_offsets.resize(n);
  x.recv_first.resize(n);
  for (std::size_t d = 0; d < n; ++d) {
    x.send_offsets[d] = x.send_total;
    x.send_total += x.send_counts[d];
  }
  for (std::size_t s = 0; s < n; ++s) {
    const auto row = same_row_for_all(c.exchange)
                         ? x.send_counts
                         : exchange_row(c.exchange, c.count, nranks, static_cast<int>(s));
    x.recv_counts[s] = row[me];
    x.recv_first[s] =
        std::accumulate(row.begin(), row.begin() + static_cast<long>(me), std::size_t{0});
    x.recv_offsets[s] = x.recv_total;
    x.recv_total += row[me];
  }
  return x;
}

ExchangeTotals exchange_totals(const Collective& c, int nranks) {
  const auto n = static_cast<std::size_t>(nranks);
  ExchangeTotals t;
  t.send.assign(n, 0);
  t.recv.assign(n, 0);
  t.max_peer.assign(n, 0);
  t.min_peer.assign(n, 0);
  std::vector<std::size_t> row;
  for (std::size_t s = 0; s < n; ++s) {
    if (s == 0 || !same_row_for_all(c.exchange))
      row = exchange_row(c.exchange, c.count, nranks, static_cast<int>(s));
    t.max_peer[s] = *std::max_element(row.begin(), row.end());
    t.min_peer[s] = *std::min_element(row.begin(), row.end());
    for (std::size_t d = 0; d < n; ++d) {
      t.send[s] += row[d];
      t.recv[d] += row[d];
    }
  }
  for (std::size_t r = 0; r < n; ++r) {
    t.busiest = std::max({t.busiest, t.send[r], t.recv[r]});
    t.max_recv = std::max(t.max_recv, t.recv[r]);
  }
  const double mean = static_cast<double>(c.count) * nranks;
  if (mean > 0) t.imbalance = static_cast<double>(t.busiest) / mean;
  return t;
}

}  // namespace colltune
