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

double relative_ci_width(const Summary& s) {
  return s.median > 0 ? (s.ci_high - s.ci_low) / s.median : 0.0;
}

}  // namespace colltune
