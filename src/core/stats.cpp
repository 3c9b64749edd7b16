#include "core/stats.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace colltune {
namespace {

double quantile_sorted(const std::vector<double>& sorted, double q) {
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const auto hi = std::min(lo + 1, sorted.size() - 1);
  const double frac = pos - static_cast<double>(lo);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * frac;
}

}  // namespace

double median_of(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  return quantile_sorted(values, 0.5);
}

Summary summarize(std::vector<double> samples, double z) {
  Summary s;
  s.n = samples.size();
  if (samples.empty()) return s;
  std::sort(samples.begin(), samples.end());
  const auto n = static_cast<double>(s.n);
  s.min = samples.front();
  s.max = samples.back();
  s.median = quantile_sorted(samples, 0.5);
  s.p95 = quantile_sorted(samples, 0.95);
  s.mean = std::accumulate(samples.begin(), samples.end(), 0.0) / n;
  if (s.n > 1) {
    double sq = 0;
    for (double v : samples) sq += (v - s.mean) * (v - s.mean);
    s.stddev = std::sqrt(sq / (n - 1));
  }
  // Le Boudec: 1-based ranks floor((n - z sqrt n) / 2) and ceil(1 + (n + z sqrt n) / 2).
  const double half_width = z * std::sqrt(n);
  const double lo_rank = std::floor((n - half_width) / 2);
  const double hi_rank = std::ceil(1 + (n + half_width) / 2);
  s.ci_level = z == 1.96 ? 0.95 : std::erf(z / std::sqrt(2.0));
  if (lo_rank >= 1 && hi_rank <= n) {
    s.ci_low = samples[static_cast<std::size_t>(lo_rank) - 1];
    s.ci_high = samples[static_cast<std::size_t>(hi_rank) - 1];
    s.ci_exact = true;
  } else {
    s.ci_low = s.min;
    s.ci_high = s.max;
  }
  return s;
}

double mann_whitney_p(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.empty() || b.empty()) return 1.0;
  std::vector<std::pair<double, bool>> all;  // value, from a
  for (double v : a) all.emplace_back(v, true);
  for (double v : b) all.emplace_back(v, false);
  std::sort(all.begin(), all.end());
  const auto n = static_cast<double>(all.size());
  double rank_sum_a = 0;
  double tie_term = 0;
  for (std::size_t i = 0; i < all.size();) {
    std::size_t j = i;
    while (j < all.size() && all[j].first == all[i].first) ++j;
    const double average_rank = (static_cast<double>(i + j) + 1) / 2;  // ranks i+1 .. j
    const auto ties = static_cast<double>(j - i);
    tie_term += ties * ties * ties - ties;
    for (std::size_t k = i; k < j; ++k) {
      if (all[k].second) rank_sum_a += average_rank;
    }
    i = j;
  }
  const auto na = static_cast<double>(a.size());
  const auto nb = static_cast<double>(b.size());
  const double u = rank_sum_a - na * (na + 1) / 2;
  const double mean = na * nb / 2;
  const double variance = na * nb / 12 * ((n + 1) - tie_term / (n * (n - 1)));
  if (variance <= 0) return 1.0;
  const double z = std::max(0.0, std::abs(u - mean) - 0.5) / std::sqrt(variance);
  return std::erfc(z / std::sqrt(2.0));
}

double relative_ci_width(const Summary& s) {
  return s.median > 0 ? (s.ci_high - s.ci_low) / s.median : 0.0;
}

}  // namespace colltune
