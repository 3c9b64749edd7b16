#pragma once
// Change points in one series of runs (one value a run, in time order): binary segmentation with
// Student's t-test between the two sides of the best split, as Hunter does (Fleming et al., ICPE
// 2023, which replaced E-divisive's permutation test with a t-test so that the same input always
// gives the same answer), after lone outlying runs are set aside. Each search also scores every
// interval inside the segment against the runs around it (circular binary segmentation, Olshen et
// al., Biostatistics 2004), so a level that left and came back is a spell, not a change. Method,
// false-alarm rate and limits: docs/history.md. Pure functions; any thread.

#include <cstddef>
#include <utility>
#include <vector>

namespace colltune {

struct ChangePointOptions {
  double level = 0.05;  // a series' first split's Bonferroni-adjusted two-sided p must be below
  // The level of the splits inside the first split's halves, halved again at each depth; below 0
  // it is `level`. A family of series holds these to its own level over the series (Bonferroni),
  // since with a change in every series, each first split passes at the full level.
  double deeper_level = -1;
  double min_change = 0.05;     // and its step at least this (0.05 = 5%) to count
  std::size_t min_segment = 2;  // runs on each side of a change
  double outlier_z = 5;  // robust sds off the runs on both sides that make a lone run an outlier
};

struct ChangePoint {
  std::size_t first_run = 0;  // index of the first run after the change
  double step_log = 0;        // mean log after minus before (>0: times went up, slower)
  double step_low_log = 0, step_high_log = 0;   // its 95% interval
  double p_value = 1;                           // adjusted over the splits tried
  std::size_t before_runs = 0, after_runs = 0;  // outliers not counted
  // Its step is at least min_change. Smaller significant steps still cut the series (so the
  // spread within segments stays honest) but are not findings.
  bool notable = false;
};

// Runs [first_run, end_run) at another level than the runs on both sides of them, which agree
// within min_change: a slow (or fast) spell the series came back from, not a change.
struct Spell {
  std::size_t first_run = 0, end_run = 0;      // end_run: the first run back at the earlier level
  double step_log = 0;                         // mean log inside minus around (>0: slower)
  double step_low_log = 0, step_high_log = 0;  // its 95% interval
  double p_value = 1;                          // adjusted over the candidates tried
  std::size_t inside_runs = 0, around_runs = 0;
  bool notable = false;  // its step is at least min_change
};

struct Outlier {
  std::size_t run = 0;
  // How far its log value is from the runs before it and after it, the nearer of the two sides
  // (>0: slower); the newest run has the runs before only. change_points.cpp says how.
  double off_log = 0;
  double z = 0;  // in robust sds
};

struct Segmentation {
  std::vector<Outlier> outliers;     // ascending by run
  std::vector<ChangePoint> changes;  // ascending by first_run; a spell's two ends are not here
  std::vector<Spell> spells;         // ascending by first_run
  double between_run_sd_log =
      0;  // pooled sd of log run values within segments, outliers and spells in
  std::size_t between_run_df = 0;  // its degrees of freedom
  double first_split_p = 1;        // the whole series' best split, before the level
};

// `log_values`: log of each run's value (time), oldest first. `level` may be lowered by the
// caller to hold a family of series together (history adjusts it over series).
Segmentation segment_series(const std::vector<double>& log_values, const ChangePointOptions& o);

// The pooled sd of log run values within the stretches `cuts` (first run of each, ascending)
// leave, and its degrees of freedom: the spread between runs.
std::pair<double, std::size_t> drift_spread(const std::vector<double>& log_values,
                                            const std::vector<std::size_t>& cuts);

// The runs a series needs before a change with min_segment runs on each side can be told.
std::size_t min_runs_for_change(const ChangePointOptions& o);

}  // namespace colltune
