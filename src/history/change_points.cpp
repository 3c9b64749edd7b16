#include "history/change_points.hpp"

#include <algorithm>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <functional>
#include <map>
#include <optional>

#include "core/decision.hpp"

namespace colltune {
namespace {

// The robust sd rests on the successive differences: below 5 of them it is a guess.
constexpr std::size_t kMinRunsForOutliers = 6;

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// How far run i is from the runs on either side of it. On each side, the nearer to zero of its
// difference from the nearest run and from the median of the 2 nearest (0 when they disagree
// in sign): a lone outlier is far from both sides; a run at a step, or the first of two slow
// newest runs, is near one of them.
struct Offsets {
  std::optional<double> before, after;
};

double nearer_zero(double a, double b) {
  if ((a > 0) != (b > 0)) return 0;
  return std::abs(a) < std::abs(b) ? a : b;
}

Offsets offsets(const std::vector<double>& x, std::size_t i) {
  Offsets o;
  if (i >= 1) {
    const double two = median_of({x.begin() + (i >= 2 ? i - 2 : 0), x.begin() + i});
    o.before = nearer_zero(x[i] - x[i - 1], x[i] - two);
  }
  if (i + 1 < x.size()) {
    const double two = median_of({x.begin() + i + 1, x.begin() + std::min(x.size(), i + 3)});
    o.after = nearer_zero(x[i] - x[i + 1], x[i] - two);
  }
  return o;
}

// The spread of one run about its neighbours from successive differences (MAD scaled to a normal
// sd, over sqrt 2 since a difference holds two runs' noise): a step moves one difference only, a
// lone outlier two, so neither inflates it.
double robust_run_sd(const std::vector<double>& x) {
  std::vector<double> diffs;
  for (std::size_t i = 1; i < x.size(); ++i) diffs.push_back(std::abs(x[i] - x[i - 1]));
  if (diffs.empty()) return kMinLaunchSd;
  return std::max(1.4826 * median_of(diffs) / std::sqrt(2.0), kMinLaunchSd);
}

struct Moments {
  double n = 0, sum = 0, squares = 0;  // squares: sum of squared deviations from the mean
  double mean() const { return sum / n; }
};

Moments moments(const std::vector<double>& y, std::size_t lo, std::size_t hi) {
  Moments m;
  for (std::size_t i = lo; i < hi; ++i) {
    m.n += 1;
    m.sum += y[i];
  }
  for (std::size_t i = lo; i < hi; ++i) m.squares += (y[i] - m.mean()) * (y[i] - m.mean());
  return m;
}

struct Split {
  std::size_t at = 0;
  double t = 0, p = 1;
};

// The split of y[lo, hi) with the largest |t| (pooled-variance Student's t of the two sides),
// its two-sided p made Bonferroni over the splits tried. Prefix sums keep it O(hi - lo).
Split best_split(const std::vector<double>& y, std::size_t lo, std::size_t hi,
                 std::size_t min_segment) {
  Split best;
  const std::size_t m = hi - lo;
  if (m < 2 * min_segment || m < 3) return best;
  std::vector<double> sum(m + 1, 0), sq(m + 1, 0);
  for (std::size_t i = 0; i < m; ++i) {
    sum[i + 1] = sum[i] + y[lo + i];
    sq[i + 1] = sq[i] + y[lo + i] * y[lo + i];
  }
  const double df = static_cast<double>(m) - 2;
  for (std::size_t k = min_segment; k + min_segment <= m; ++k) {
    const double n1 = static_cast<double>(k), n2 = static_cast<double>(m - k);
    const double s1 = sum[k], s2 = sum[m] - sum[k];
    const double ss = std::max(0.0, (sq[k] - s1 * s1 / n1) + (sq[m] - sq[k] - s2 * s2 / n2));
    const double sd = std::max(std::sqrt(ss / df), kMinLaunchSd);
    const double t = (s2 / n2 - s1 / n1) / (sd * std::sqrt(1 / n1 + 1 / n2));
    if (std::abs(t) > std::abs(best.t) || best.at == 0) best = {lo + k, t, 1};
  }
  const double splits = static_cast<double>(m - 2 * min_segment + 1);
  const boost::math::students_t dist(df);
  best.p =
      std::min(1.0, splits * 2 * boost::math::cdf(boost::math::complement(dist, std::abs(best.t))));
  return best;
}

}  // namespace

std::size_t min_runs_for_change(const ChangePointOptions& o) {
  return std::max<std::size_t>(2 * o.min_segment, 3);
}

Segmentation segment_series(const std::vector<double>& x, const ChangePointOptions& o) {
  Segmentation out;
  const std::size_t n = x.size();
  const double min_step = std::log1p(o.min_change);
  // Lone outlying runs first, so one bad night neither makes a change nor hides one. A run is
  // off when it is beyond the bar from the runs on both sides of it the same way (the newest and
  // the oldest have one side only), and lone when neither neighbour is off the same way.
  std::vector<bool> flagged(n, false);
  std::vector<double> off(n, 0);
  const double sd = robust_run_sd(x);
  const double bar = std::max(o.outlier_z * sd, min_step);
  if (n >= kMinRunsForOutliers) {
    for (std::size_t i = 0; i < n; ++i) {
      const Offsets d = offsets(x, i);
      if (d.before && d.after) {
        off[i] = nearer_zero(*d.before, *d.after);
      } else {
        off[i] = d.before ? *d.before : *d.after;
      }
      flagged[i] = std::abs(off[i]) > bar;
    }
  }
  std::vector<double> y;
  std::vector<std::size_t> run_of;  // y's index -> run index
  for (std::size_t i = 0; i < n; ++i) {
    const auto same_way = [&](std::size_t j) { return flagged[j] && (off[j] > 0) == (off[i] > 0); };
    const bool lone = flagged[i] && !(i > 0 && same_way(i - 1)) && !(i + 1 < n && same_way(i + 1));
    if (lone) {
      out.outliers.push_back({i, off[i], off[i] / sd});
    } else {
      y.push_back(x[i]);
      run_of.push_back(i);
    }
  }
  // Binary segmentation over the runs left (indices into y).
  std::vector<std::size_t> cuts;
  std::map<std::size_t, double> p_of_cut;
  // Each cut doubles the segments searched next; halving the level with each depth keeps the
  // chance of a false cut among them at about the level (Bonferroni over a depth's segments).
  const std::function<void(std::size_t, std::size_t, double)> split =
      [&](std::size_t lo, std::size_t hi, double level) {
        const Split s = best_split(y, lo, hi, o.min_segment);
        if (lo == 0 && hi == y.size()) out.first_split_p = s.at == 0 ? 1 : s.p;
        if (s.at == 0 || !(s.p <= level)) return;
        cuts.push_back(s.at);
        p_of_cut[s.at] = s.p;
        const bool top = lo == 0 && hi == y.size();
        const double next = (top && o.deeper_level >= 0 ? o.deeper_level : level) / 2;
        split(lo, s.at, next);
        split(s.at, hi, next);
      };
  split(0, y.size(), o.level);
  std::sort(cuts.begin(), cuts.end());
  // The final segments give each change its step and interval, and the spread between runs.
  std::vector<std::size_t> bounds{0};
  bounds.insert(bounds.end(), cuts.begin(), cuts.end());
  bounds.push_back(y.size());
  // The spread counts the outliers, each in the segment its run falls in: a bad night is part
  // of the drift a comparison of two single runs faces.
  double squares = 0;
  for (std::size_t s = 0; s + 1 < bounds.size(); ++s) {
    const std::size_t lo = s == 0 ? 0 : run_of[bounds[s]];
    const std::size_t hi = s + 2 == bounds.size() ? n : run_of[bounds[s + 1]];
    const Moments m = moments(x, lo, hi);
    squares += m.squares;
    if (m.n > 1) out.between_run_df += static_cast<std::size_t>(m.n) - 1;
  }
  if (out.between_run_df > 0)
    out.between_run_sd_log = std::sqrt(squares / static_cast<double>(out.between_run_df));
  for (std::size_t c = 1; c + 1 < bounds.size(); ++c) {
    const Moments a = moments(y, bounds[c - 1], bounds[c]);
    const Moments b = moments(y, bounds[c], bounds[c + 1]);
    const double df = a.n + b.n - 2;
    const double pooled = std::max(std::sqrt((a.squares + b.squares) / df), kMinLaunchSd);
    const double half =
        boost::math::quantile(boost::math::complement(boost::math::students_t(df), 0.025)) *
        pooled * std::sqrt(1 / a.n + 1 / b.n);
    ChangePoint cp;
    cp.first_run = run_of[bounds[c]];
    cp.step_log = b.mean() - a.mean();
    cp.step_low_log = cp.step_log - half;
    cp.step_high_log = cp.step_log + half;
    cp.before_runs = static_cast<std::size_t>(a.n);
    cp.after_runs = static_cast<std::size_t>(b.n);
    cp.p_value = p_of_cut[bounds[c]];
    cp.notable = std::abs(cp.step_log) >= min_step;
    out.changes.push_back(cp);
  }
  return out;
}

}  // namespace colltune
