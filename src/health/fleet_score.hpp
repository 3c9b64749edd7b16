#pragma once
// One home for holding a unit (a node alone, a pair) against the fleet on one metric: the
// launch-noise test, the fleet's own spread between units, and the adjustment for many
// comparisons. Stage 1 and stage 2 both judge with it (docs/health.md states the rule). Pure.

#include <cstddef>
#include <string>
#include <vector>

#include "core/decision.hpp"

namespace colltune {

struct HealthRule {
  double min_effect = 0.15;  // slow only where 15% or more below the fleet's reference
  double alpha = 0.001;      // on Benjamini-Hochberg-adjusted p over all units x metrics
};

// A unit's figure beyond this many robust sds (1.4826 x MAD) of the fleet's spread between
// units, and at least this many launch sds, is an outlier. Iglewicz and Hoaglin's modified z-score
// cut is 3.5 for one value; a check holds every node, and with 64 healthy nodes spread 10% that cut
// still names one in 5% of checks, 5 in 0.1% (docs/health.md has the simulated rates by fleet
// size).
inline constexpr double kOutlierZ = 5;

// One unit on one metric. The caller fills unit, metric, mean_log and launches.
struct FleetCell {
  std::size_t unit = 0;  // index into the caller's units
  std::string metric;
  double mean_log = 0;  // mean over launches of log launch medians (seconds)
  int launches = 0;
  double d = 0;          // log(unit time / fleet time): > 0 slower
  double p = 1;          // one-sided p of "slower than the fleet" over launches
  double adjusted = 1;   // p after Benjamini-Hochberg over every cell (adjust_for_many)
  double launch_sd = 0;  // the launch noise this cell is held against: every other cell's
  std::size_t df = 0;    // launch_sd's degrees of freedom; 0: unknown, and p is 1
};

// How one metric's fleet spreads: its reference, the noise between launches, the spread
// between units.
struct FleetScale {
  double fleet_log = 0;   // the fleet's reference (log seconds)
  double launch_sd = 0;   // pooled sd of log launch medians within units (kMinLaunchSd floor)
  std::size_t df = 0;     // launch_sd's degrees of freedom; 0: the launch noise is unknown
  double between_sd = 0;  // 1.4826 x MAD of `unit_logs`; 0 with fewer than 3 of them
};

// One-sided p of "slower than the fleet" for a unit `d` above the fleet's figure (in log), over
// `launches` launches, with the pooled launch sd `spread` on `df` degrees of freedom; 1 when df
// is 0 (the noise is unknown).
double slower_than_fleet_p(double d, double spread, int launches, std::size_t df);

// Scores one metric's `cells` (pooled[i]: cells[i]'s launches) against `fleet_log`, the median
// the caller took of `unit_logs` (a figure per unit the fleet is made of). Sets each cell's d,
// launch_sd, df and p and returns the scale.
FleetScale score_against_fleet(std::vector<FleetCell>& cells,
                               const std::vector<LaunchSamples>& pooled, double fleet_log,
                               const std::vector<double>& unit_logs);

// Benjamini-Hochberg over every cell of every metric: sets `adjusted`.
void adjust_for_many(std::vector<FleetCell>& cells);

// What a cell says under `rule`, given its metric's `scale`.
enum class FleetCall {
  kOk,         // not min_effect below the fleet, or within its spread between units (or launches)
  kUndecided,  // below and an outlier, but not significant over launches: more launches help
  kSlow,       // below, an outlier, and significant at alpha after adjustment
};
FleetCall call_of(const FleetCell& cell, const FleetScale& scale, const HealthRule& rule);

}  // namespace colltune
