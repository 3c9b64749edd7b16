#include "health/fleet_score.hpp"

#include <algorithm>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>

#include "core/stats.hpp"

namespace colltune {

double slower_than_fleet_p(double d, double spread, int launches, std::size_t df) {
  if (df == 0 || launches == 0) return 1;
  const double t = d / (spread / std::sqrt(static_cast<double>(launches)));
  return boost::math::cdf(
      boost::math::complement(boost::math::students_t(static_cast<double>(df)), t));
}

FleetScale score_against_fleet(std::vector<FleetCell>& cells,
                               const std::vector<LaunchSamples>& pooled, double fleet_log,
                               const std::vector<double>& unit_logs) {
  FleetScale s;
  s.fleet_log = fleet_log;
  s.launch_sd = std::max(pooled_launch_sd(pooled, &s.df), kMinLaunchSd);
  // Healthy nodes differ among themselves (their parts, their place in the fabric), often by
  // more than one node differs from launch to launch: a node is slow only where it stands out
  // of that spread too. The MAD ignores up to half the units being slow; with two units it is
  // half their gap, which would hide either, so it needs three.
  if (unit_logs.size() >= 3) {
    const double centre = median_of(unit_logs);
    std::vector<double> deviations;
    for (double v : unit_logs) deviations.push_back(std::abs(v - centre));
    s.between_sd = 1.4826 * median_of(deviations);
  }
  // Each cell is held against the launch noise of the others (an externally studentized test):
  // a throttled node's own erratic launches (0.3 s to 8 s for one memcpy under a CPU quota) would
  // otherwise widen the yardstick it is measured by, until a node 20x slower in every launch was
  // neither an outlier nor significant.
  std::vector<double> cell_squares(pooled.size());
  std::vector<std::size_t> cell_df(pooled.size());
  double all_squares = 0;
  for (std::size_t i = 0; i < pooled.size(); ++i) {
    const double sd = pooled_launch_sd({pooled[i]}, &cell_df[i]);
    cell_squares[i] = sd * sd * static_cast<double>(cell_df[i]);
    all_squares += cell_squares[i];
  }
  for (std::size_t i = 0; i < cells.size(); ++i) {
    FleetCell& c = cells[i];
    c.df = s.df - cell_df[i];
    const double others = std::max(all_squares - cell_squares[i], 0.0);
    c.launch_sd = c.df == 0 ? kMinLaunchSd
                            : std::max(std::sqrt(others / static_cast<double>(c.df)), kMinLaunchSd);
    c.d = c.mean_log - fleet_log;
    c.p = slower_than_fleet_p(c.d, c.launch_sd, c.launches, c.df);
  }
  return s;
}

void adjust_for_many(std::vector<FleetCell>& cells) {
  std::vector<double> ps;
  for (const FleetCell& c : cells) ps.push_back(c.p);
  const std::vector<double> adjusted = benjamini_hochberg(ps);
  for (std::size_t i = 0; i < cells.size(); ++i) cells[i].adjusted = adjusted[i];
}

FleetCall call_of(const FleetCell& cell, const FleetScale& scale, const HealthRule& rule) {
  const bool below = std::exp(-cell.d) <= 1 - rule.min_effect;
  // A spread between units below the noise between one unit's launches is not believed: the MAD
  // of a few nodes comes out near 0 where their figures share pairs (4 nodes: each pair counts
  // for two, and 3 of the 4 node figures were one pair's), while pairs differed 22% on the same
  // shared cores for every one of their launches (a healthy namespace cluster named a node slow).
  const double spread = std::max(scale.between_sd, cell.launch_sd);
  const bool outlier = cell.d > kOutlierZ * spread;
  if (!below || !outlier) return FleetCall::kOk;
  return cell.adjusted < rule.alpha ? FleetCall::kSlow : FleetCall::kUndecided;
}

}  // namespace colltune
