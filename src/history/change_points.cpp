#include "history/change_points.hpp"

#include <algorithm>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <tuple>

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

// The median of the (up to) 2 runs before run i, and of the 2 after it; i must have one there.
double level_before(const std::vector<double>& x, std::size_t i) {
  return median_of({x.begin() + (i >= 2 ? i - 2 : 0), x.begin() + i});
}
double level_after(const std::vector<double>& x, std::size_t i) {
  return median_of({x.begin() + i + 1, x.begin() + std::min(x.size(), i + 3)});
}

Offsets offsets(const std::vector<double>& x, std::size_t i) {
  Offsets o;
  if (i >= 1) o.before = nearer_zero(x[i] - x[i - 1], x[i] - level_before(x, i));
  if (i + 1 < x.size()) o.after = nearer_zero(x[i] - x[i + 1], x[i] - level_after(x, i));
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
  std::size_t at = 0;   // first index inside the candidate (0: none)
  std::size_t end = 0;  // one past its last; the segment's end for a plain split
  double t = 0, p = 1;
};

// The candidate of y[lo, hi) with the largest |t| (pooled-variance Student's t of the runs inside
// it against the rest): every split with min_segment runs on each side (inside: the later side),
// and every interval of min_segment runs or more with a run on each side of it and min_segment
// runs around it in all (circular binary segmentation: a spell). Its two-sided p is made
// Bonferroni over all the candidates tried. Prefix sums keep each candidate O(1).
Split best_split(const std::vector<double>& y, std::size_t lo, std::size_t hi,
                 std::size_t min_segment, bool with_intervals) {
  Split best;
  const std::size_t m = hi - lo;
  if (m < 2 * min_segment || m < 3) return best;
  std::vector<double> sum(m + 1, 0), sq(m + 1, 0);
  for (std::size_t i = 0; i < m; ++i) {
    sum[i + 1] = sum[i] + y[lo + i];
    sq[i + 1] = sq[i] + y[lo + i] * y[lo + i];
  }
  const double df = static_cast<double>(m) - 2;
  double candidates = 0, best_t2 = 0;
  const auto score = [&](std::size_t a, std::size_t b) {  // inside [a, b) of the segment
    candidates += 1;
    const double n1 = static_cast<double>(b - a), n2 = static_cast<double>(m) - n1;
    const double s1 = sum[b] - sum[a], s2 = sum[m] - s1;
    const double q1 = sq[b] - sq[a], q2 = sq[m] - q1;
    const double ss = std::max(0.0, (q1 - s1 * s1 / n1) + (q2 - s2 * s2 / n2));
    const double variance = std::max(ss / df, kMinLaunchSd * kMinLaunchSd);
    const double step = s1 / n1 - s2 / n2;
    // t squared, so the O(n^2) candidates of a long history take no square root each.
    const double t2 = step * step / (variance * (1 / n1 + 1 / n2));
    if (t2 > best_t2 || best.at == 0) {
      best_t2 = t2;
      best = {lo + a, lo + b, std::copysign(std::sqrt(t2), step), 1};
    }
  };
  for (std::size_t k = min_segment; k + min_segment <= m; ++k) score(k, m);
  for (std::size_t a = 1; with_intervals && a + 1 < m; ++a) {
    for (std::size_t b = a + min_segment; b < m; ++b) {
      if (m - (b - a) >= min_segment) score(a, b);
    }
  }
  const boost::math::students_t dist(df);
  best.p = std::min(
      1.0, candidates * 2 * boost::math::cdf(boost::math::complement(dist, std::abs(best.t))));
  return best;
}

Moments moments_around(const std::vector<double>& y, std::size_t lo, std::size_t a, std::size_t b,
                       std::size_t hi) {
  const Moments before = moments(y, lo, a), after = moments(y, b, hi);
  Moments m;
  m.n = before.n + after.n;
  m.sum = before.sum + after.sum;
  for (std::size_t i = lo; i < hi; ++i) {
    if (i < a || i >= b) m.squares += (y[i] - m.mean()) * (y[i] - m.mean());
  }
  return m;
}

// Two sides' step (b's mean minus a's) and its pooled-t 95% interval half width (infinite with
// no degrees of freedom: two single runs).
std::pair<double, double> step_and_half(const Moments& a, const Moments& b) {
  const double df = a.n + b.n - 2;
  if (df < 1) return {b.mean() - a.mean(), std::numeric_limits<double>::infinity()};
  const double pooled = std::max(std::sqrt((a.squares + b.squares) / df), kMinLaunchSd);
  const double half =
      boost::math::quantile(boost::math::complement(boost::math::students_t(df), 0.025)) * pooled *
      std::sqrt(1 / a.n + 1 / b.n);
  return {b.mean() - a.mean(), half};
}

}  // namespace

std::pair<double, std::size_t> drift_spread(const std::vector<double>& x,
                                            const std::vector<std::size_t>& cuts) {
  std::vector<std::size_t> bounds{0};
  bounds.insert(bounds.end(), cuts.begin(), cuts.end());
  bounds.push_back(x.size());
  double squares = 0;
  std::size_t df = 0;
  for (std::size_t s = 0; s + 1 < bounds.size(); ++s) {
    const Moments m = moments(x, bounds[s], bounds[s + 1]);
    squares += m.squares;
    if (m.n > 1) df += static_cast<std::size_t>(m.n) - 1;
  }
  return {df > 0 ? std::sqrt(squares / static_cast<double>(df)) : 0, df};
}

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
      // A newest run alone faster is left in: it cannot make a change by itself, and where it
      // is back at a level the series held before a slow stretch, it ends a spell.
      flagged[i] = std::abs(off[i]) > bar && (d.after || off[i] > 0);
      // A run at a step that overshoots the new level (the first TCP night, slower still than
      // the ones after it) is the step's first run, not a lone outlier: set aside, it would date
      // the change a run late.
      if (flagged[i] && d.before && d.after) {
        const double step = level_after(x, i) - level_before(x, i);
        if (std::abs(step) > bar && (step > 0) == (off[i] > 0)) flagged[i] = false;
      }
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
  std::vector<std::pair<std::size_t, std::size_t>> intervals;  // candidates that cut twice
  // Each cut doubles the segments searched next; halving the level with each depth keeps the
  // chance of a false cut among them at about the level (Bonferroni over a depth's segments).
  // Inside an interval only splits are searched: a spell within a spell over-reads a few runs.
  const std::function<void(std::size_t, std::size_t, double, bool)> split =
      [&](std::size_t lo, std::size_t hi, double level, bool with_intervals) {
        const Split s = best_split(y, lo, hi, o.min_segment, with_intervals);
        if (lo == 0 && hi == y.size()) out.first_split_p = s.at == 0 ? 1 : s.p;
        if (s.at == 0 || !(s.p <= level)) return;
        cuts.push_back(s.at);
        p_of_cut[s.at] = s.p;
        const bool top = lo == 0 && hi == y.size();
        const double next = (top && o.deeper_level >= 0 ? o.deeper_level : level) / 2;
        split(lo, s.at, next, with_intervals);
        if (s.end < hi) {
          cuts.push_back(s.end);
          p_of_cut[s.end] = s.p;
          intervals.push_back({s.at, s.end});
          split(s.at, s.end, next, false);
          split(s.end, hi, next, with_intervals);
        } else {
          split(s.at, hi, next, with_intervals);
        }
      };
  split(0, y.size(), o.level, true);
  std::sort(cuts.begin(), cuts.end());
  // The final segments give each change its step and interval, and the spread between runs.
  std::vector<std::size_t> bounds{0};
  bounds.insert(bounds.end(), cuts.begin(), cuts.end());
  bounds.push_back(y.size());
  // An interval whose final segments all stay within min_change of its mean (cuts inside it too
  // small to be findings do not split it) is a spell: the series came back, and its two cuts are
  // not changes. Unless the segments on its two sides are shown to differ by min_change or more
  // (the 95% interval of their difference beyond it): then it is a staircase, two changes. A run
  // or two back cannot show much, and the simpler reading stands until they do.
  std::vector<bool> spell_cut(bounds.size(), false);
  const auto index_of = [&](std::size_t at) {
    return static_cast<std::size_t>(std::lower_bound(bounds.begin(), bounds.end(), at) -
                                    bounds.begin());
  };
  for (const auto& [first, end] : intervals) {
    const std::size_t cf = index_of(first), ce = index_of(end);
    const double level = moments(y, first, end).mean();
    bool one_level = true;
    for (std::size_t c = cf; c < ce; ++c)
      one_level =
          one_level && std::abs(moments(y, bounds[c], bounds[c + 1]).mean() - level) < min_step;
    if (!one_level) continue;
    const Moments before = moments(y, bounds[cf - 1], first);
    const Moments after = moments(y, end, bounds[ce + 1]);
    const auto [apart, apart_half] = step_and_half(before, after);
    if (apart - apart_half >= min_step || apart + apart_half <= -min_step) continue;
    const auto [step, half] = step_and_half(
        moments_around(y, bounds[cf - 1], first, end, bounds[ce + 1]), moments(y, first, end));
    Spell sp;
    sp.first_run = run_of[first];
    sp.end_run = run_of[end];
    sp.step_log = step;
    sp.step_low_log = step - half;
    sp.step_high_log = step + half;
    sp.p_value = p_of_cut[first];
    sp.inside_runs = end - first;
    sp.around_runs = (first - bounds[cf - 1]) + (bounds[ce + 1] - end);
    sp.notable = std::abs(step) >= min_step;
    out.spells.push_back(sp);
    spell_cut[cf] = spell_cut[ce] = true;
  }
  std::sort(out.spells.begin(), out.spells.end(),
            [](const Spell& a, const Spell& b) { return a.first_run < b.first_run; });
  // The spread counts the outliers, each in the segment its run falls in, and a spell in the
  // segment around it: a bad night, or a few, is part of the drift a comparison of two single
  // runs faces.
  std::vector<std::size_t> drift_cuts;
  for (std::size_t c = 1; c + 1 < bounds.size(); ++c)
    if (!spell_cut[c]) drift_cuts.push_back(run_of[bounds[c]]);
  std::tie(out.between_run_sd_log, out.between_run_df) = drift_spread(x, drift_cuts);
  for (std::size_t c = 1; c + 1 < bounds.size(); ++c) {
    if (spell_cut[c]) continue;
    const Moments a = moments(y, bounds[c - 1], bounds[c]);
    const Moments b = moments(y, bounds[c], bounds[c + 1]);
    const auto [step, half] = step_and_half(a, b);
    ChangePoint cp;
    cp.first_run = run_of[bounds[c]];
    cp.step_log = step;
    cp.step_low_log = step - half;
    cp.step_high_log = step + half;
    cp.before_runs = static_cast<std::size_t>(a.n);
    cp.after_runs = static_cast<std::size_t>(b.n);
    cp.p_value = p_of_cut[bounds[c]];
    cp.notable = std::abs(cp.step_log) >= min_step;
    out.changes.push_back(cp);
  }
  return out;
}

}  // namespace colltune
