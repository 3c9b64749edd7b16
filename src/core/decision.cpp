#include "core/decision.hpp"

#include <algorithm>
#include <boost/math/distributions/normal.hpp>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <numeric>

#include "core/stats.hpp"

namespace colltune {
namespace {

std::vector<double> log_medians(const LaunchSamples& launches) {
  std::vector<double> out;
  for (const auto& samples : launches) {
    const double median = summarize(samples).median;
    if (!samples.empty() && median > 0) out.push_back(std::log(median));
  }
  return out;
}

double mean_of(const std::vector<double>& v) {
  return std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}

// Sum of squared deviations from the mean.
double squares(const std::vector<double>& v) {
  const double m = mean_of(v);
  double sum = 0;
  for (double x : v) sum += (x - m) * (x - m);
  return sum;
}

// Each side's launches with samples into `t`; false (and why) when a side has none.
bool counted(const std::vector<double>& a, const std::vector<double>& b, LaunchTest& t) {
  t.base_launches = a.size();
  t.cand_launches = b.size();
  if (!a.empty() && !b.empty()) return true;
  t.why_not = "no samples on one side";
  return false;
}

}  // namespace

double mean_log_median(const LaunchSamples& launches, int& counted) {
  const std::vector<double> logs = log_medians(launches);
  counted = static_cast<int>(logs.size());
  return logs.empty() ? 0 : mean_of(logs);
}

LaunchTest test_launches(const LaunchSamples& base, const LaunchSamples& cand,
                         double noise_floor_sd) {
  LaunchTest t;
  const auto a = log_medians(base), b = log_medians(cand);
  if (!counted(a, b, t)) return t;
  const double diff = mean_of(b) - mean_of(a);
  t.ratio = std::exp(diff);
  const auto na = static_cast<double>(a.size()), nb = static_cast<double>(b.size());
  const bool both_spread = a.size() >= 2 && b.size() >= 2;
  double stat = 0, half_width = 0;
  if (noise_floor_sd > 0) {
    double sd = noise_floor_sd;
    if (a.size() + b.size() > 2 && (a.size() > 1 || b.size() > 1)) {
      sd = std::max(sd, std::sqrt((squares(a) + squares(b)) / (na + nb - 2)));
    }
    const double se = sd * std::sqrt(1 / na + 1 / nb);
    const boost::math::normal z;
    stat = diff / se;
    t.p_slower = boost::math::cdf(boost::math::complement(z, stat));
    t.p_faster = boost::math::cdf(z, stat);
    half_width = boost::math::quantile(boost::math::complement(z, 0.025)) * se;
    t.log_se = se;
    t.method = "noise floor";
  } else if (both_spread) {
    // Welch: each side its own variance; Welch-Satterthwaite degrees of freedom.
    const double floor_var = kMinLaunchSd * kMinLaunchSd;
    const double va = std::max(squares(a) / (na - 1), floor_var) / na;
    const double vb = std::max(squares(b) / (nb - 1), floor_var) / nb;
    const double se = std::sqrt(va + vb);
    const double df = (va + vb) * (va + vb) / (va * va / (na - 1) + vb * vb / (nb - 1));
    const boost::math::students_t dist(df);
    stat = diff / se;
    t.p_slower = boost::math::cdf(boost::math::complement(dist, stat));
    t.p_faster = boost::math::cdf(dist, stat);
    half_width = boost::math::quantile(boost::math::complement(dist, 0.025)) * se;
    t.log_se = se;
    t.df = df;
    t.method = "welch";
  } else {
    t.why_not = "one launch on a side cannot show launch-to-launch noise";
    return t;
  }
  t.ratio_low = std::exp(diff - half_width);
  t.ratio_high = std::exp(diff + half_width);
  return t;
}

LaunchTest test_paired_launches(const LaunchSamples& base, const LaunchSamples& cand) {
  LaunchTest t;
  std::vector<double> diffs;
  for (std::size_t i = 0; i < std::min(base.size(), cand.size()); ++i) {
    const auto a = log_medians({base[i]}), b = log_medians({cand[i]});
    if (!a.empty() && !b.empty()) diffs.push_back(b[0] - a[0]);
  }
  t.base_launches = t.cand_launches = diffs.size();
  if (diffs.size() < 2) {
    t.why_not = "fewer than two launches measured both: one cannot show launch-to-launch noise";
    return t;
  }
  const auto n = static_cast<double>(diffs.size());
  const double diff = mean_of(diffs);
  t.log_se = std::max(std::sqrt(squares(diffs) / (n - 1)), kMinLaunchSd) / std::sqrt(n);
  t.df = n - 1;
  const boost::math::students_t dist(t.df);
  const double stat = diff / t.log_se;
  t.p_slower = boost::math::cdf(boost::math::complement(dist, stat));
  t.p_faster = boost::math::cdf(dist, stat);
  const double half_width = boost::math::quantile(boost::math::complement(dist, 0.025)) * t.log_se;
  t.ratio = std::exp(diff);
  t.ratio_low = std::exp(diff - half_width);
  t.ratio_high = std::exp(diff + half_width);
  t.method = "paired launches";
  return t;
}

double p_slower_beyond(const LaunchTest& t, double max_ratio) {
  if (t.method.empty() || t.log_se <= 0 || t.ratio <= 0) return 1;
  const double stat = (std::log(t.ratio) - std::log(max_ratio)) / t.log_se;
  if (t.df > 0)
    return boost::math::cdf(boost::math::complement(boost::math::students_t(t.df), stat));
  return boost::math::cdf(boost::math::complement(boost::math::normal(), stat));
}

LaunchTest test_runs(const LaunchSamples& base, const LaunchSamples& cand, double run_sd,
                     double run_df) {
  LaunchTest t;
  const auto a = log_medians(base), b = log_medians(cand);
  if (!counted(a, b, t)) return t;
  const double diff = mean_of(b) - mean_of(a);
  const double stat = diff / (std::max(run_sd, kMinLaunchSd) * std::sqrt(2.0));
  // The spread was estimated from a few runs: Student's t on its degrees of freedom.
  const auto tails = [&](const auto& dist) {
    t.p_slower = boost::math::cdf(boost::math::complement(dist, stat));
    t.p_faster = boost::math::cdf(dist, stat);
    return boost::math::quantile(boost::math::complement(dist, 0.025));
  };
  const double q =
      run_df >= 1 ? tails(boost::math::students_t(run_df)) : tails(boost::math::normal());
  const double half = q * std::max(run_sd, kMinLaunchSd) * std::sqrt(2.0);
  t.ratio = std::exp(diff);
  t.ratio_low = std::exp(diff - half);
  t.ratio_high = std::exp(diff + half);
  t.log_se = std::max(run_sd, kMinLaunchSd) * std::sqrt(2.0);
  t.df = run_df >= 1 ? run_df : 0;
  t.method = "between runs";
  return t;
}

std::vector<double> benjamini_hochberg(const std::vector<double>& p) {
  const std::size_t m = p.size();
  std::vector<std::size_t> order(m);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return p[x] < p[y]; });
  std::vector<double> adjusted(m);
  double running = 1;  // step-up: the minimum over this rank and every larger one
  for (std::size_t k = m; k-- > 0;) {
    const double value = p[order[k]] * static_cast<double>(m) / static_cast<double>(k + 1);
    running = std::min(running, value);
    adjusted[order[k]] = running;
  }
  return adjusted;
}

double pooled_launch_sd(const std::vector<LaunchSamples>& cells, std::size_t* df) {
  double sum = 0;
  std::size_t freedom = 0;
  for (const auto& cell : cells) {
    const auto logs = log_medians(cell);
    if (logs.size() < 2) continue;
    sum += squares(logs);
    freedom += logs.size() - 1;
  }
  if (df != nullptr) *df = freedom;
  return freedom == 0 ? 0 : std::sqrt(sum / static_cast<double>(freedom));
}

}  // namespace colltune
